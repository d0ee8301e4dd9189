import Foundation

/// How one viewer sees time: their zone and the hour their broadcast day starts.
public struct ViewerClock: Sendable {
    public var zone: TimeZone
    public var dayStartHour: Int

    public init(zone: TimeZone, dayStartHour: Int) {
        (self.zone, self.dayStartHour) = (zone, dayStartHour)
    }

    /// `HH:MM` in the viewer's zone.
    public func time(_ instant: Date) -> String {
        let parts = local(instant)
        return "\(Self.pad(parts.hour)):\(Self.pad(parts.minute))"
    }

    /// "Sat 15 Feb" in the viewer's zone.
    public func date(_ instant: Date) -> String {
        let parts = local(instant)
        let weekday = Self.weekdays[(CivilTime.days(year: parts.year, month: parts.month, day: parts.day) % 7 + 11) % 7]
        return "\(weekday) \(parts.day) \(Self.months[parts.month - 1])"
    }

    /// "Saturday 15 February 2026" for a broadcast day.
    public func longDate(_ day: BroadcastDay) -> String {
        let weekday = Self.longWeekdays[(CivilTime.days(year: day.year, month: day.month, day: day.day) % 7 + 11) % 7]
        return "\(weekday) \(day.day) \(Self.longMonths[day.month - 1]) \(day.year)"
    }

    public func day(containing instant: Date) -> BroadcastDay {
        BroadcastDay(containing: instant, zone: zone, startHour: dayStartHour)
    }

    public func day(_ text: String) -> BroadcastDay? {
        BroadcastDay(text, zone: zone, startHour: dayStartHour)
    }

    private func local(_ instant: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        CivilTime.components(instant.unixSeconds + Int64(zone.secondsFromGMT(for: instant)))
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
    // Day 0 (1970-01-01) was a Thursday: index (days + 4) % 7 from Sunday, written above as (days % 7 + 11) % 7.
    public static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    public static let longWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    public static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    public static let longMonths = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                     "October", "November", "December"]
}
