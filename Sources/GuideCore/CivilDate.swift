import Foundation

/// A calendar date with no time and no zone: an episode's `airdate`, an all-day event.
public struct CivilDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// "YYYY-MM-DD" with a year from 0001 to 9999, checked; nil for "" or anything else. Every date a request, a
    /// feed or TVmaze writes is read here.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }),
              let year = Bounded.integer(parts[0], in: 1...9999), let month = Bounded.integer(parts[1], in: 1...12),
              let day = Bounded.integer(parts[2], in: 1...CivilTime.daysIn(month: month, year: year)) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day `instant` falls on in `zone`.
    public init(_ instant: Date, in zone: TimeZone) {
        let local = instant.unixSeconds + Int64(zone.secondsFromGMT(for: instant))
        let parts = CivilTime.components(local)
        self.init(year: parts.year, month: parts.month, day: parts.day)
    }

    /// Days since 1970-01-01.
    public var dayNumber: Int { CivilTime.days(year: year, month: month, day: day) }

    public func adding(days count: Int) -> CivilDate {
        let (year, month, day) = CivilTime.date(days: dayNumber + count)
        return CivilDate(year: year, month: month, day: day)
    }

    /// 0 for Sunday to 6 for Saturday.
    public var weekday: Int { ((dayNumber % 7) + 11) % 7 }

    /// The instant this day starts in `zone`.
    public func start(in zone: TimeZone) -> Date {
        Date(unixSeconds: ZonedTime.utc(localSeconds: Int64(dayNumber) * 86_400, in: zone))
    }

    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool { lhs.dayNumber < rhs.dayNumber }
}
