import Foundation

/// A guide's day: from a start hour (05:00 by default, as broadcasters count) on a calendar date in the viewer's
/// zone to the same hour on the next date. 23 or 25 hours long when the clocks change.
public struct BroadcastDay: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The calendar date it starts on.
    public let year: Int, month: Int, day: Int
    public let zone: TimeZone
    public let startHour: Int

    /// The day named `text` (`YYYY-MM-DD`); nil when that is not a real date.
    public init?(_ text: String, zone: TimeZone, startHour: Int) {
        guard let date = CivilDate(text) else { return nil }
        self.init(year: date.year, month: date.month, day: date.day, zone: zone, startHour: startHour)
    }

    /// The broadcast day `instant` falls in: before the start hour it still belongs to the previous date.
    public init(containing instant: Date, zone: TimeZone, startHour: Int) {
        let local = instant.unixSeconds + Int64(zone.secondsFromGMT(for: instant))
        let civil = CivilTime.components(local - Int64(startHour) * 3600)
        self.init(year: civil.year, month: civil.month, day: civil.day, zone: zone, startHour: startHour)
    }

    private init(year: Int, month: Int, day: Int, zone: TimeZone, startHour: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.zone = zone
        self.startHour = min(23, max(0, startHour))
    }

    /// `YYYY-MM-DD`, as URLs and date pickers write it.
    public var description: String {
        "\(CivilTime.pad(year, 4))-\(CivilTime.pad(month, 2))-\(CivilTime.pad(day, 2))"
    }

    /// The instants it spans.
    public var window: TimeWindow {
        TimeWindow(start: Self.instant(daysSince1970: dayNumber, hour: startHour, zone: zone),
                   end: Self.instant(daysSince1970: dayNumber + 1, hour: startHour, zone: zone))
    }

    /// The day `count` days later (earlier when negative).
    public func adding(days count: Int) -> BroadcastDay {
        let date = CivilTime.date(days: dayNumber + count)
        return BroadcastDay(year: date.year, month: date.month, day: date.day, zone: zone, startHour: startHour)
    }

    /// Every day that shows some of `coverage`, in order.
    public static func days(covering coverage: TimeWindow, zone: TimeZone, startHour: Int) -> [BroadcastDay] {
        var day = BroadcastDay(containing: coverage.start, zone: zone, startHour: startHour)
        var days: [BroadcastDay] = []
        while day.window.start < coverage.end, days.count < 366 {
            days.append(day)
            day = day.adding(days: 1)
        }
        return days
    }

    public static func < (lhs: BroadcastDay, rhs: BroadcastDay) -> Bool { lhs.dayNumber < rhs.dayNumber }

    public static func == (lhs: BroadcastDay, rhs: BroadcastDay) -> Bool {
        lhs.dayNumber == rhs.dayNumber && lhs.startHour == rhs.startHour && lhs.zone.identifier == rhs.zone.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(dayNumber)
        hasher.combine(startHour)
        hasher.combine(zone.identifier)
    }

    private var dayNumber: Int { CivilTime.days(year: year, month: month, day: day) }

    private static func instant(daysSince1970 days: Int, hour: Int, zone: TimeZone) -> Date {
        let local = Int64(days) * 86_400 + Int64(hour) * 3600
        return Date(unixSeconds: ZonedTime.utc(localSeconds: local, in: zone))
    }
}
