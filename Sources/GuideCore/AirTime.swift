import Foundation

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
        } else if let date, let time, let zone, let minutes = CivilTime.minutes(ofDay: time) {
            let local = Int64(date.dayNumber) * 86_400 + Int64(minutes) * 60
            self = .instant(Date(unixSeconds: ZonedTime.utc(localSeconds: local, in: zone)))
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
