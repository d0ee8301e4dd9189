import Foundation
import GuideCore

/// HTTP's date form (RFC 9110 IMF-fixdate, `Sat, 15 Feb 2026 20:00:00 GMT`) for `Last-Modified`,
/// `If-Modified-Since` and `Retry-After`, read strictly into the guide's range of instants.
public enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sat, 15 Feb 2026 20:00:00 GMT`.
    public static func format(_ date: Date) -> String {
        let seconds = date.unixSeconds
        let parts = CivilTime.components(seconds)
        let weekday = weekdays[Int(((seconds / 86_400) % 7 + 7) % 7)]
        return "\(weekday), \(CivilTime.pad(parts.day, 2)) \(months[parts.month - 1]) \(CivilTime.pad(parts.year, 4)) "
            + "\(CivilTime.pad(parts.hour, 2)):\(CivilTime.pad(parts.minute, 2)):\(CivilTime.pad(parts.second, 2)) GMT"
    }

    /// The instant an IMF-fixdate names; nil for anything else, including a field out of its range (the weekday
    /// is not checked against the date, as RFC 9110 lets a recipient do).
    public static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
              parts[1].count == 2, parts[3].count == 4,
              let monthIndex = months.firstIndex(where: { $0 == parts[2] }),
              let year = Bounded.integer(parts[3], in: 1...9999),
              let day = Bounded.integer(parts[1], in: 1...CivilTime.daysIn(month: monthIndex + 1, year: year)) else { return nil }
        let time = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }),
              let hour = Bounded.integer(time[0], in: 0...23), let minute = Bounded.integer(time[1], in: 0...59),
              let second = Bounded.integer(time[2], in: 0...60) else { return nil }
        let days = Int64(CivilTime.days(year: year, month: monthIndex + 1, day: day))
        return Date(unixSeconds: days * 86_400 + Int64(hour * 3600 + minute * 60 + second))
    }

    /// The waits a `Retry-After` may ask for, in seconds: up to a day; a longer one is read as a day.
    public static let retryAfterRange: ClosedRange<Int64> = 0...86_400

    /// How long a `Retry-After` header asks to wait, in whole seconds (`120`) or until an HTTP date, read at `now`
    /// and pinned to ``retryAfterRange``; nil when the header is neither form.
    public static func retryAfter(_ text: String, now: Date) -> Duration? {
        let value = text.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // More digits than Int64 holds is still a number of seconds: longer than any wait we accept.
            let seconds = Bounded.integer(value, in: 0...Int64.max) ?? retryAfterRange.upperBound
            return .seconds(Bounded.clamped(seconds, to: retryAfterRange))
        }
        guard let date = parse(value) else { return nil }
        return .seconds(Bounded.clamped(date.unixSecondsRoundedUp - now.unixSeconds, to: retryAfterRange))
    }
}
