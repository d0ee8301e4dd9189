import GuideCore
import Foundation

/// XMLTV's timestamp form: `YYYYMMDDhhmmss +hhmm`, any leading part of the digits, a numeric or named zone, or
/// none (UTC). Hour 24 is the next day's midnight.
public enum XMLTVTimestamp {
    /// Seconds since 1970 for the timestamp in `bytes`, or nil when it is not one. With `localZone` the digits are a
    /// wall-clock time there and any zone the timestamp states is ignored.
    public static func parse(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, localZone: TimeZone? = nil) -> Int64? {
        var index = bytes.startIndex
        let end = bytes.endIndex
        while index < end, bytes[index] == 0x20 { index += 1 }
        // Up to 14 digits: YYYY MM DD hh mm ss, any leading part of them.
        var fields = (year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0)
        var count = 0
        var value = 0
        while index < end, count < 14, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value * 10 + Int(bytes[index] - 0x30)
            count += 1
            index += 1
            switch count {
            case 4: fields.year = value; value = 0
            case 6: fields.month = value; value = 0
            case 8: fields.day = value; value = 0
            case 10: fields.hour = value; value = 0
            case 12: fields.minute = value; value = 0
            case 14: fields.second = value; value = 0
            default: break
            }
        }
        // Only whole fields: 4, 6, 8, 10, 12 or 14 digits, and no more digits after them.
        guard count >= 4, count % 2 == 0, index == end || bytes[index] < 0x30 || bytes[index] > 0x39 else { return nil }
        let (year, month, day, hour, minute, second) = fields
        guard (1...12).contains(month), day >= 1, day <= CivilTime.daysIn(month: month, year: year),
              hour <= 24, minute <= 59, second <= 60 else { return nil }
        guard hour < 24 || (minute == 0 && second == 0) else { return nil }
        let local = Int64(CivilTime.days(year: year, month: month, day: day)) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
        if let localZone { return local - Int64(offset(in: localZone, localSeconds: local)) }
        while index < end, bytes[index] == 0x20 { index += 1 }
        guard let offset = zoneOffset(bytes[index..<end], localSeconds: local) else { return nil }
        return local - Int64(offset)
    }

    /// The last timestamp parsed, kept with its bytes: in a channel's listings a programme's start is most often the
    /// stop of the one before it, so a reader taking starts and stops in turn through one of these parses each once.
    /// (One `localZone` for all its parses.)
    public struct Recent: Sendable {
        private var bytes: [UInt8] = []
        private var value: Int64?
        /// Longer bytes are parsed and not kept.
        private static let longest = 64

        public init() {}

        public mutating func parse(_ raw: Slice<UnsafeBufferPointer<UInt8>>, localZone: TimeZone?) -> Int64? {
            guard let base = raw.base.baseAddress, !raw.isEmpty, raw.count <= Self.longest else {
                return XMLTVTimestamp.parse(raw, localZone: localZone)
            }
            let given = base + raw.startIndex
            if raw.count == bytes.count, let kept = value {
                let isSame = bytes.withUnsafeBufferPointer { held in
                    held.baseAddress.map { memcmp(given, $0, raw.count) == 0 } ?? false
                }
                if isSame { return kept }
                let moved: Int64? = localZone != nil ? nil : bytes.withUnsafeBufferPointer { held in
                    held.baseAddress.flatMap { Self.sameDay(given, as: $0, count: raw.count, kept) }
                }
                if let moved {
                    bytes.withUnsafeMutableBufferPointer { held in
                        if let held = held.baseAddress { memcpy(held, given, raw.count) }
                    }
                    value = moved
                    return moved
                }
            }
            value = XMLTVTimestamp.parse(raw, localZone: localZone)
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: raw)
            return value
        }

        /// The instant of `given` when it differs from `held` (which parsed as `kept`) only in its time of day: both 14
        /// digits (`YYYYMMDDhhmmss`) of the same date, then the same zone, numeric or none, whose offset is the same
        /// all day: `kept` moved by the difference. A stop is most often on the day of its start; this spares the
        /// date's and the zone's reading (a tenth of a refresh's survey). Nil for anything else, which is parsed.
        static func sameDay(_ given: UnsafePointer<UInt8>, as held: UnsafePointer<UInt8>, count: Int,
                            _ kept: Int64) -> Int64? {
            guard count >= 14, memcmp(given, held, 8) == 0, memcmp(given + 14, held + 14, count - 14) == 0,
                  let now = timeOfDay(given + 8), let before = timeOfDay(held + 8) else { return nil }
            for index in 0..<8 where held[index] &- 0x30 > 9 { return nil }
            for index in 14..<count where !isZoneByte(held[index]) { return nil }
            return kept - before + now
        }

        /// Seconds into the day of `hhmmss` at `digits`; nil for anything but six digits of 00:00:00 to 23:59:59.
        private static func timeOfDay(_ digits: UnsafePointer<UInt8>) -> Int64? {
            func pair(_ at: Int) -> Int? {
                let tens = digits[at] &- 0x30, ones = digits[at + 1] &- 0x30
                return tens <= 9 && ones <= 9 ? Int(tens) * 10 + Int(ones) : nil
            }
            guard let hour = pair(0), let minute = pair(2), let second = pair(4), hour < 24, minute < 60, second < 60
            else { return nil }
            return Int64(hour * 3600 + minute * 60 + second)
        }

        /// A byte of a numeric zone: spaces, a sign, digits and a colon.
        private static func isZoneByte(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x2B || byte == 0x2D || byte == 0x3A || byte &- 0x30 <= 9
        }
    }

    /// Parses timestamp bytes held in an array.
    public static func parse(_ bytes: [UInt8], localZone: TimeZone? = nil) -> Int64? {
        bytes.withUnsafeBufferPointer { parse($0[...], localZone: localZone) }
    }

    /// Parses a timestamp given as text.
    public static func date(_ text: String) -> Date? {
        parse(Array(text.utf8)).map { Date(unixSeconds: $0) }
    }

    /// Writes an instant as `YYYYMMDDhhmmss +0000`, the form every reader understands.
    public static func format(_ date: Date) -> String {
        let c = CivilTime.components(date.unixSeconds)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(c.year, 4) + pad(c.month, 2) + pad(c.day, 2) + pad(c.hour, 2) + pad(c.minute, 2) + pad(c.second, 2)
            + " +0000"
    }

    /// Zone offset in seconds east of UTC; an empty zone is UTC.
    static func zoneOffset(_ zone: Slice<UnsafeBufferPointer<UInt8>>, localSeconds: Int64) -> Int? {
        guard let first = zone.first else { return 0 }
        if zone.count == 5, first == 0x2B || first == 0x2D {
            // The common "+hhmm" without an array.
            var digits = 0
            for index in (zone.startIndex + 1)..<zone.endIndex {
                let byte = zone[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                digits = digits * 10 + Int(byte - 0x30)
            }
            let hours = digits / 100, minutes = digits % 100
            guard hours <= 14, minutes < 60 else { return nil }
            return (first == 0x2D ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
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
        if let zone = TimeZone(identifier: name) { return offset(in: zone, localSeconds: localSeconds) }
        return nil
    }

    /// The offset of `zone` at a wall-clock time there: tries the standard offset, then confirms with the offset at
    /// that instant.
    public static func offset(in zone: TimeZone, localSeconds: Int64) -> Int {
        let guess = Date(timeIntervalSince1970: TimeInterval(localSeconds) - TimeInterval(zone.secondsFromGMT()))
        return zone.secondsFromGMT(for: guess)
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
