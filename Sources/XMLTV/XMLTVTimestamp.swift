import GuideCore
import Foundation

/// XMLTV's timestamp form: `YYYYMMDDhhmmss +hhmm`, any leading part of the digits, a numeric or named zone, or
/// none (UTC). Hour 24 is the next day's midnight.
public enum XMLTVTimestamp {
    /// Seconds since 1970 for the timestamp in `bytes`, or nil when it is not one.
    public static func parse<Bytes: Collection>(_ bytes: Bytes) -> Int64? where Bytes.Element == UInt8 {
        var digits: [Int] = []
        digits.reserveCapacity(14)
        var index = bytes.startIndex
        while index != bytes.endIndex, bytes[index] == 0x20 { index = bytes.index(after: index) }
        while index != bytes.endIndex, digits.count < 14, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            digits.append(Int(bytes[index] - 0x30))
            index = bytes.index(after: index)
        }
        // Accept only whole fields: 4, 6, 8, 10, 12 or 14 digits.
        guard digits.count >= 4, digits.count % 2 == 0 else { return nil }
        func field(_ at: Int, _ width: Int, default value: Int) -> Int {
            guard at + width <= digits.count else { return value }
            return digits[at..<(at + width)].reduce(0) { $0 * 10 + $1 }
        }
        let year = field(0, 4, default: 0), month = field(4, 2, default: 1), day = field(6, 2, default: 1)
        let hour = field(8, 2, default: 0), minute = field(10, 2, default: 0), second = field(12, 2, default: 0)
        guard (1...12).contains(month), day >= 1, day <= CivilTime.daysIn(month: month, year: year),
              hour <= 24, minute <= 59, second <= 60 else { return nil }
        guard hour < 24 || (minute == 0 && second == 0) else { return nil }
        let local = Int64(CivilTime.days(year: year, month: month, day: day)) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
        let zone = bytes[index...].drop(while: { $0 == 0x20 })
        guard let offset = zoneOffset(zone, localSeconds: local) else { return nil }
        return local - Int64(offset)
    }

    /// Parses a timestamp given as text.
    public static func date(_ text: String) -> Date? {
        parse(Array(text.utf8)).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// Writes an instant as `YYYYMMDDhhmmss +0000`, the form every reader understands.
    public static func format(_ date: Date) -> String {
        let c = CivilTime.components(Int64(date.timeIntervalSince1970.rounded(.down)))
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(c.year, 4) + pad(c.month, 2) + pad(c.day, 2) + pad(c.hour, 2) + pad(c.minute, 2) + pad(c.second, 2)
            + " +0000"
    }

    /// Zone offset in seconds east of UTC; an empty zone is UTC.
    static func zoneOffset<Bytes: Collection>(_ zone: Bytes, localSeconds: Int64) -> Int? where Bytes.Element == UInt8 {
        guard let first = zone.first else { return 0 }
        let text = Array(zone)
        if first == 0x2B || first == 0x2D {
            // +hhmm, -hhmm, and the +hh:mm and +hh forms some grabbers write.
            let digits = text.dropFirst().filter { $0 != 0x3A }
            guard digits.count == 4 || digits.count == 2, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            let values = digits.map { Int($0 - 0x30) }
            let hours = values[0] * 10 + values[1]
            let minutes = values.count == 4 ? values[2] * 10 + values[3] : 0
            guard hours <= 14, minutes < 60 else { return nil }
            let offset = hours * 3600 + minutes * 60
            return first == 0x2D ? -offset : offset
        }
        let name = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        if let hours = namedZones[name.uppercased()] { return Int(hours * 3600) }
        if let zone = TimeZone(identifier: name) {
            // The local time's offset: try the standard offset, then confirm with the offset at that instant.
            let guess = Date(timeIntervalSince1970: TimeInterval(localSeconds) - TimeInterval(zone.secondsFromGMT()))
            return zone.secondsFromGMT(for: guess)
        }
        return nil
    }

    /// Zone abbreviations seen in real XMLTV files; ambiguous ones (IST, CST) take their most common meaning in TV data.
    static let namedZones: [String: Double] = [
        "UTC": 0, "UT": 0, "GMT": 0, "Z": 0, "WET": 0, "BST": 1, "IST": 1, "WEST": 1, "CET": 1, "MET": 1,
        "CEST": 2, "MEST": 2, "EET": 2, "EEST": 3, "MSK": 3, "AST": -4, "ADT": -3, "EST": -5, "EDT": -4,
        "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7, "AKST": -9, "AKDT": -8, "HST": -10,
        "NZST": 12, "NZDT": 13, "AEST": 10, "AEDT": 11, "ACST": 9.5, "ACDT": 10.5, "AWST": 8, "JST": 9, "KST": 9,
        "HKT": 8, "SGT": 8, "WIB": 7, "ICT": 7,
    ]
}
