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
        let c = components(Int64(date.timeIntervalSince1970.rounded(.down)))
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))Z"
    }

    /// Reads an ISO 8601 instant: `2026-11-21T18:30:00Z`, with an offset (`+01:00`), with or without seconds.
    public static func parseISO8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        // Without seconds: 2026-11-21T18:30Z or +01:00.
        if let t = text.firstIndex(of: "T") {
            let time = text[text.index(after: t)...]
            if time.count >= 5, time.prefix(5).filter({ $0 == ":" }).count == 1,
               time.dropFirst(5).first.map({ !$0.isNumber && $0 != ":" }) ?? true {
                let withSeconds = text[...t] + time.prefix(5) + ":00" + time.dropFirst(5)
                formatter.formatOptions = [.withInternetDateTime]
                return formatter.date(from: String(withSeconds))
            }
        }
        return nil
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
