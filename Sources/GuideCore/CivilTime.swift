import Foundation

/// Calendar arithmetic on UTC seconds without Foundation's calendars: hot paths (every timestamp of an import) and
/// machine-readable output need it fast and locale-free.
public enum CivilTime {
    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01.
    public static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp + (mp < 10 ? 3 : -9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Splits UTC seconds into date and time of day.
    public static func components(_ seconds: Int64) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let time = Int(seconds - days * 86_400)
        let (year, month, day) = date(days: Int(days))
        return (year, month, day, time / 3600, time / 60 % 60, time % 60)
    }

    /// `2026-11-21T18:30:00Z`: the form JSON output uses.
    public static func iso8601(_ date: Date) -> String {
        var bytes: [UInt8] = []
        appendISO8601(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``iso8601(_:)``'s text without making a string: the JSON API writes thousands per answer.
    public static func appendISO8601(_ date: Date, to bytes: inout [UInt8]) {
        let c = components(date.unixSeconds)
        // Years 1000-9999, every field of a fixed width: written in one piece (20,000 instants per /api/now answer).
        if (1000...9999).contains(c.year) {
            var text: (UInt64, UInt64, UInt32) = (0, 0, 0)
            withUnsafeMutableBytes(of: &text) { out in
                func put(_ value: Int, _ at: Int) {
                    out[at] = UInt8(truncatingIfNeeded: 48 + value / 10)
                    out[at + 1] = UInt8(truncatingIfNeeded: 48 + value % 10)
                }
                put(c.year / 100, 0); put(c.year % 100, 2); out[4] = UInt8(ascii: "-")
                put(c.month, 5); out[7] = UInt8(ascii: "-"); put(c.day, 8); out[10] = UInt8(ascii: "T")
                put(c.hour, 11); out[13] = UInt8(ascii: ":"); put(c.minute, 14); out[16] = UInt8(ascii: ":")
                put(c.second, 17); out[19] = UInt8(ascii: "Z")
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: out[0..<20]))
            }
            return
        }
        append(c.year, width: 4, to: &bytes); bytes.append(UInt8(ascii: "-"))
        append(c.month, width: 2, to: &bytes); bytes.append(UInt8(ascii: "-"))
        append(c.day, width: 2, to: &bytes); bytes.append(UInt8(ascii: "T"))
        append(c.hour, width: 2, to: &bytes); bytes.append(UInt8(ascii: ":"))
        append(c.minute, width: 2, to: &bytes); bytes.append(UInt8(ascii: ":"))
        append(c.second, width: 2, to: &bytes); bytes.append(UInt8(ascii: "Z"))
    }

    /// `value` in at least `width` digits, as ``pad(_:_:)`` writes it.
    private static func append(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt = 1
        var digits = 1
        while divisor <= magnitude / 10 { divisor *= 10; digits += 1 }
        for _ in 0..<max(0, width - digits - (value < 0 ? 1 : 0)) { bytes.append(UInt8(ascii: "0")) }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        }
    }

    /// Reads an ISO 8601 instant: `2026-11-21T18:30:00Z`, with an offset (`+01:00` or `+0100`), with or without
    /// seconds, with fractional seconds (dropped). Read by hand: a Foundation formatter per request cost more than
    /// the rest of the request's parsing.
    public static func parseISO8601(_ text: String) -> Date? {
        var utf8 = Array(text.utf8)[...]
        func number(_ width: Int) -> Int? {
            guard utf8.count >= width else { return nil }
            var value = 0
            for byte in utf8.prefix(width) {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            utf8 = utf8.dropFirst(width)
            return value
        }
        func skip(_ character: Character) -> Bool {
            guard utf8.first == character.asciiValue else { return false }
            utf8 = utf8.dropFirst()
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2),
              skip("T") || skip("t"), let hour = number(2), skip(":"), let minute = number(2) else { return nil }
        var second = 0
        if skip(":") {
            guard let value = number(2) else { return nil }
            second = value
            if skip(".") || skip(",") {
                guard utf8.first.map({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) == true else { return nil }
                while let byte = utf8.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { utf8 = utf8.dropFirst() }
            }
        }
        var offset = 0
        if skip("Z") || skip("z") {
            offset = 0
        } else if let sign = utf8.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            utf8 = utf8.dropFirst()
            guard let hours = number(2) else { return nil }
            _ = skip(":")
            guard let minutes = number(2), hours <= 23, minutes <= 59 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        guard utf8.isEmpty, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(unixSeconds: Int64(seconds))
    }

    /// Minutes since midnight of a time of day written `HH:MM` (00:00 to 23:59); nil for anything else.
    public static func minutes(ofDay text: some StringProtocol) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let hour = Bounded.integer(parts[0], in: 0...23), let minute = Bounded.integer(parts[1], in: 0...59) else {
            return nil
        }
        return hour * 60 + minute
    }

    /// `value` in at least `width` digits, zeros first.
    public static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
