import Foundation
import GuideCore
import GuideStore

/// Reminders for followed shows' episodes, delivered like any other (ntfy, webhooks, ...): for each profile, one
/// waiting reminder per episode of a show with reminders on that airs (at a known time) in the next two days, at the
/// profile's lead time and shift. Synced after following, unfollowing or a change of settings, and every few minutes
/// (TVmaze's times change, new episodes get dated): a reminder whose airing is no longer there (or whose show's
/// reminders were turned off) is dropped, and made again if it comes back; one the profile cancelled stays cancelled.
public struct EpisodeReminders: Sendable {
    public typealias Store = SeriesStore & ReminderStore & AccountStore

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
        var wanted: [Key: NewReminder] = [:]
        for airing in airings where airing.reminders {
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
