import Foundation
import GuideCore

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

    /// "YYYY-MM-DD", checked; nil for "" or anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              (1...12).contains(month), (1...CivilTime.daysIn(month: month, year: year)).contains(day) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day `instant` falls on in `zone`.
    public init(_ instant: Date, in zone: TimeZone) {
        let local = Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(zone.secondsFromGMT(for: instant))
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
        Date(timeIntervalSince1970: TimeInterval(ZonedTime.utc(localSeconds: Int64(dayNumber) * 86_400, in: zone)))
    }

    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool { lhs.dayNumber < rhs.dayNumber }
}

/// When an episode airs, as far as TVmaze knows (API-NOTES §5).
public enum AirTime: Hashable, Sendable {
    /// A known instant (from `airstamp`, or `airdate` + `airtime` in the show's zone).
    case instant(Date)
    /// A day but no time: a global streaming release (`airtime` ""), whose `airstamp` is a noon placeholder that
    /// must not be shown as "12:00". An all-day event.
    case day(CivilDate)
    /// Not announced (`airdate` "" and `airstamp` null).
    case unknown

    /// - Parameter zone: the show's zone, used only when `airstamp` is missing but `airdate` and `airtime` are not.
    public init(airdate: String?, airtime: String?, airstamp: String?, zone: TimeZone? = nil) {
        let date = airdate.flatMap(CivilDate.init)
        let time = (airtime ?? "").isEmpty ? nil : airtime
        if time == nil {
            self = date.map(AirTime.day) ?? .unknown
        } else if let stamp = airstamp.flatMap(CivilTime.parseISO8601) {
            self = .instant(stamp)
        } else if let date, let time, let zone, let minutes = Self.minutes(time) {
            let local = Int64(date.dayNumber) * 86_400 + Int64(minutes) * 60
            self = .instant(Date(timeIntervalSince1970: TimeInterval(ZonedTime.utc(localSeconds: local, in: zone))))
        } else {
            self = date.map(AirTime.day) ?? .unknown
        }
    }

    /// The instant when known.
    public var instant: Date? {
        if case .instant(let date) = self { return date }
        return nil
    }

    /// The day it falls on for a viewer in `zone` (an all-day release is on its date wherever one is).
    public func day(in zone: TimeZone) -> CivilDate? {
        switch self {
        case .instant(let date): CivilDate(date, in: zone)
        case .day(let date): date
        case .unknown: nil
        }
    }

    /// Whether it is after `instant`: an all-day release counts until its day has ended in `zone`.
    public func isUpcoming(after instant: Date, in zone: TimeZone) -> Bool {
        switch self {
        case .instant(let date): date > instant
        case .day(let date): date.adding(days: 1).start(in: zone) > instant
        case .unknown: false
        }
    }

    /// For sorting: the instant, or an all-day release's start in `zone`; unknown last.
    public func sortKey(in zone: TimeZone) -> Date {
        switch self {
        case .instant(let date): date
        case .day(let date): date.start(in: zone)
        case .unknown: .distantFuture
        }
    }

    private static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute) else {
            return nil
        }
        return hour * 60 + minute
    }
}

extension AirTime {
    /// Moved by `minutes` (a local channel airing later): an instant by the minutes, an all-day release by whole days.
    public func shifted(by minutes: Int) -> AirTime {
        switch self {
        case .instant(let date): .instant(date.addingTimeInterval(TimeInterval(minutes) * 60))
        case .day(let date): .day(date.adding(days: Int((Double(minutes) / 1440).rounded(.down))))
        case .unknown: .unknown
        }
    }
}
