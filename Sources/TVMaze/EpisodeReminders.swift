import Foundation
import GuideCore
import GuideStore

/// Reminders for followed shows' episodes, delivered like any other (ntfy, webhooks, ...): for each profile, one
/// waiting reminder per episode of a show with reminders on that airs (at a known time) in the next two days, at the
/// profile's lead time. Where the imported listings carry the episode (``ListingAirings``: its number, sub-title or
/// air date says which), the reminder is for its first airing there, on the guide's channel ("S02E05 ... at 21:00 on
/// BBC Two"), and an episode the profile has watched is a repeat, not reminded; else it is TVmaze's airing, with the
/// profile's shift. Synced after following, unfollowing or a change of settings, and every few minutes (TVmaze's
/// times change, new episodes get dated, listings are imported): a reminder whose airing is no longer there (or whose
/// show's reminders were turned off) is dropped, and made again if it comes back; one the profile cancelled stays
/// cancelled.
public struct EpisodeReminders: Sendable {
    public typealias Store = SeriesStore & ReminderStore & AccountStore & ListingStore & WatchedStore

    public let store: any Store
    /// The zone for profiles that chose none.
    public let defaultZone: TimeZone

    public init(store: any Store, defaultZone: TimeZone) {
        (self.store, self.defaultZone) = (store, defaultZone)
    }

    /// How far ahead reminders are made: more than the longest lead time (a day).
    public static let reach: TimeInterval = 2 * 86_400

    /// What one sync changed.
    public struct Changes: Sendable, Equatable {
        public var added = 0
        public var dropped = 0
        public var changedLead = 0

        public init(added: Int = 0, dropped: Int = 0, changedLead: Int = 0) {
            (self.added, self.dropped, self.changedLead) = (added, dropped, changedLead)
        }
    }

    /// Makes `profile`'s episode reminders match its followed shows at `instant`.
    @discardableResult
    public func sync(_ profile: Profile, at instant: Date) async throws -> Changes {
        let zone = profile.timeZone.flatMap(TimeZone.init(identifier:)) ?? defaultZone
        let settings = try await store.seriesSettings(of: profile.id)
        let schedule = EpisodeSchedule(store: store, profile: profile.id, zone: zone, settings: settings)
        let airings = try await schedule.airings(from: CivilDate(instant, in: zone),
                                                 through: CivilDate(instant.addingTimeInterval(Self.reach), in: zone))
        var (wanted, linked) = try await fromListings(profile, lead: settings.leadMinutes, at: instant)
        for airing in airings where airing.reminders && !linked.contains(airing.episode.id) {
            guard let start = airing.time.instant, start > instant, start <= instant.addingTimeInterval(Self.reach) else { continue }
            let reminder = NewReminder(profile: profile.id, kind: .episode, channel: ChannelID("tvmaze-show-\(airing.show.id)"),
                                       channelName: airing.show.channel?.name ?? airing.show.name, title: EpisodeCalendar.summary(of: airing),
                                       start: start, stop: airing.end ?? start.addingTimeInterval(3600), leadMinutes: settings.leadMinutes)
            wanted[Key(reminder)] = reminder
        }
        var changes = Changes()
        let waiting = try await store.reminders(of: profile.id, in: [.pending], limit: Reminder.mostPending).filter { $0.what.kind == .episode }
        var kept: Set<Key> = []
        for reminder in waiting {
            let key = Key(reminder.what)
            if wanted[key] == nil {
                try await store.dropReminder(reminder.id)
                changes.dropped += 1
            } else {
                kept.insert(key)
                if reminder.what.leadMinutes != settings.leadMinutes {
                    try await store.changeLead(of: reminder.id, to: settings.leadMinutes)
                    changes.changedLead += 1
                }
            }
        }
        for (key, reminder) in wanted where !kept.contains(key) {
            // One the profile cancelled stays cancelled: adding is by channel, start and title.
            if try await store.addReminderIfNew(reminder, at: instant) != nil { changes.added += 1 }
        }
        return changes
    }

    /// Reminders for the first airing in the listings of each episode of `profile`'s shows with reminders on, in
    /// the next two days and not watched yet; and every episode the listings carry in that time (TVmaze's airing of
    /// it is not reminded).
    private func fromListings(_ profile: Profile, lead: Int, at instant: Date) async throws -> (wanted: [Key: NewReminder], linked: Set<Int>) {
        let shows = try await store.following(profile.id).filter(\.reminders).map(\.show)
        guard !shows.isEmpty else { return ([:], []) }
        let episodesOf = try await store.episodes(ofShows: shows.map(\.id))
        let languages = LocalizedText.readingOrder(profile: profile.language?.code, accepted: nil)
        var (wanted, linked) = ([Key: NewReminder](), Set<Int>())
        var watched: Set<Int>?, names: [ChannelID: String]?
        for show in shows {
            let airings = try await ListingAirings.airings(of: show, episodes: episodesOf[show.id] ?? [], languages: languages, in: store,
                                                           after: instant, before: instant.addingTimeInterval(Self.reach), limit: 100)
            for airing in airings {
                let programme = airing.stored.programme
                guard let episode = airing.link?.episode, programme.start > instant, !linked.contains(episode.id) else { continue }
                linked.insert(episode.id)
                if watched == nil { watched = Set(try await store.watched(by: profile.id, show: nil).map(\.episodeID)) }
                guard watched?.contains(episode.id) == false else { continue }
                if names == nil { names = Dictionary(try await store.channels().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first }) }
                let reminder = NewReminder(profile: profile.id, kind: .episode, channel: programme.channel,
                                           channelName: names?[programme.channel] ?? programme.channel.rawValue,
                                           title: EpisodeCalendar.summary(show: show.name, episode: episode),
                                           start: programme.start, stop: airing.stored.end, leadMinutes: lead)
                wanted[Key(reminder)] = reminder
            }
        }
        return (wanted, linked)
    }

    /// Syncs every profile.
    public func syncAll(at instant: Date) async throws {
        for profile in try await store.profiles() { try await sync(profile, at: instant) }
    }

    private struct Key: Hashable {
        var channel: ChannelID
        var start: Date
        var title: String
        init(_ reminder: NewReminder) { (channel, start, title) = (reminder.channel, reminder.start, reminder.title) }
    }
}
