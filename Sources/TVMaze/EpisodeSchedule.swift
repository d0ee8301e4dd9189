import Foundation
import GuideCore
import GuideStore

/// A followed show's episode in the viewer's time: the profile's shift applied.
public struct Airing: Hashable, Sendable {
    public var show: Show
    public var episode: Episode
    /// Whether the profile wants reminders for the show.
    public var reminders: Bool
    /// When it airs for the viewer: an instant, or a day for releases with no time.
    public var time: AirTime

    /// When it ends: the start plus the runtime (an hour when TVmaze has none); nil for all-day releases.
    public var end: Date? {
        time.instant.map { $0.addingTimeInterval(TimeInterval(Bounded.clamped(episode.runtime ?? 60, to: Programme.lengthMinutesRange)) * 60) }
    }

    /// Whether it has not yet finished at `instant`.
    public func isCurrentOrUpcoming(at instant: Date, in zone: TimeZone) -> Bool {
        if let end { return end > instant }
        return time.isUpcoming(after: instant, in: zone)
    }
}

/// One followed show on the upcoming list.
public struct Upcoming: Hashable, Sendable {
    public enum State: Hashable, Sendable {
        /// Its next episode (or the one on now).
        case next(Airing)
        /// Running, but no next episode dated yet ("no date announced").
        case noDate
        /// Ended, or no further episodes will come.
        case ended
    }

    public var followed: FollowedShow
    public var state: State

    public var next: Airing? {
        if case .next(let airing) = state { return airing }
        return nil
    }
}

/// A profile's followed shows' episodes in its zone and shift: the upcoming list, a calendar's days, the count of
/// episodes airing today.
public struct EpisodeSchedule: Sendable {
    public let store: any SeriesStore
    public let profile: ProfileID
    public let zone: TimeZone
    public let settings: SeriesSettings

    public init(store: any SeriesStore, profile: ProfileID, zone: TimeZone, settings: SeriesSettings) {
        self.store = store
        self.profile = profile
        self.zone = zone
        self.settings = settings
    }

    /// Each followed show with its next episode after `instant`; dated ones soonest first, then "no date
    /// announced", then ended shows.
    public func upcoming(at instant: Date) async throws -> [Upcoming] {
        var upcoming: [Upcoming] = []
        for followed in try await store.following(profile) {
            let next = try await store.episodes(ofShow: followed.show.id).lazy
                .map { airing(of: $0, show: followed) }
                .first { $0.isCurrentOrUpcoming(at: instant, in: zone) }
            upcoming.append(Upcoming(followed: followed, state: next.map { .next($0) } ?? (followed.show.hasEnded ? .ended : .noDate)))
        }
        return upcoming.sorted { left, right in
            switch (left.next, right.next) {
            case let (l?, r?): l.time.sortKey(in: zone) < r.time.sortKey(in: zone)
            case (_?, nil): true
            case (nil, _?): false
            case (nil, nil): (left.state == .ended ? 1 : 0, left.followed.show.name) < (right.state == .ended ? 1 : 0, right.followed.show.name)
            }
        }
    }

    /// Episodes airing on the viewer's days `from` through `through`, in air order.
    public func airings(from: CivilDate, through: CivilDate) async throws -> [Airing] {
        // Air dates are the network's and the shift moves them: widen the stored range by both, then place each.
        let slack = 1 + abs(settings.shiftMinutes) / 1440 + 1
        let following = Dictionary(try await store.following(profile).map { ($0.show.id, $0) }, uniquingKeysWith: { first, _ in first })
        return try await store.episodes(followedBy: profile, from: from.adding(days: -slack).description,
                                  through: through.adding(days: slack).description)
            .compactMap { episode -> Airing? in
                guard let id = episode.show?.id, let followed = following[id] else { return nil }
                let airing = airing(of: episode, show: followed)
                guard let day = airing.time.day(in: zone), day >= from, day <= through else { return nil }
                return airing
            }
            .sorted { ($0.time.sortKey(in: zone), $0.show.name) < ($1.time.sortKey(in: zone), $1.show.name) }
    }

    /// How many followed episodes air on the viewer's calendar day containing `instant`.
    public func airingToday(at instant: Date) async throws -> Int {
        let today = CivilDate(instant, in: zone)
        return try await airings(from: today, through: today).count
    }

    private func airing(of episode: Episode, show followed: FollowedShow) -> Airing {
        // Times are the network's; a global web channel's (no zone) are UTC's.
        Airing(show: followed.show, episode: episode, reminders: followed.reminders,
               time: episode.airTime(zone: followed.show.timeZone ?? .gmt).shifted(by: settings.shiftMinutes))
    }
}
