import Foundation
import GuideCore

/// Reminders a profile asked for, the channels it is told through, and what was sent. Due reminders are claimed
/// with a lease, so of several instances sharing a database one sends each; each channel's delivery is recorded,
/// so a retry sends only to the channels that have not had it.
public protocol ReminderStore: Sendable {
    /// Adds a reminder, or returns the one the profile already has for the same channel, start and title (pressing
    /// "Remind me" twice reminds once). `StoreError(.invalid)` when the profile has ``Reminder/mostPending`` pending.
    func addReminder(_ reminder: NewReminder, at instant: Date) async throws -> Reminder
    /// Adds a reminder unless the profile has one for the same channel, start and title (in any state); nil then.
    /// For reminders made for the profile (saved searches, episodes): one it cancelled stays cancelled.
    func addReminderIfNew(_ reminder: NewReminder, at instant: Date) async throws -> Reminder?
    /// A profile's reminders in `states`, due soonest first for pending ones, most recent first for the rest.
    func reminders(of profile: ProfileID, in states: Set<Reminder.State>, limit: Int) async throws -> [Reminder]
    /// Cancels a pending reminder of the profile; `.notFound` when it has none pending by that id.
    func cancelReminder(_ id: ReminderID, of profile: ProfileID, at instant: Date) async throws
    /// Forgets a pending reminder made for the profile rather than by it (an episode's whose airing went away), so
    /// that it is made again should the airing come back.
    func dropReminder(_ id: ReminderID) async throws
    /// Sends a pending reminder `minutes` before its start instead.
    func changeLead(of id: ReminderID, to minutes: Int) async throws

    /// Pending reminders due by `instant` that no one holds, at most `limit`, now held by `owner` until `leaseUntil`.
    func claimDueReminders(at instant: Date, owner: String, leaseUntil: Date, limit: Int) async throws -> [Reminder]
    /// Ends a claimed reminder (sent, missed or failed) with a note for the profile.
    func finishReminder(_ id: ReminderID, as state: Reminder.State, note: Sentence?, at instant: Date) async throws
    /// Lets a claimed reminder go until `retryAt`, counting an attempt, with a note for the profile.
    func retryReminder(_ id: ReminderID, at retryAt: Date, note: Sentence) async throws
    /// The channels done with this reminder: true for those that had it, false for those given up on.
    func deliveries(of id: ReminderID) async throws -> [DeliveryChannelID: Bool]
    /// Records one send (a reminder's, or a test's when `reminder` is nil) in the channel's state and the log; with
    /// `givingUp`, a failed one is not to be tried again for this reminder.
    func recordDelivery(_ delivery: Delivery, givingUp: Bool) async throws

    /// Saves a search whose matches are reminded; `StoreError(.invalid)` past ``SavedSearch/mostPerProfile``.
    func addSavedSearch(_ search: NewSavedSearch, at instant: Date) async throws -> SavedSearch
    /// A profile's saved searches, oldest first; every profile's when `profile` is nil.
    func savedSearches(of profile: ProfileID?) async throws -> [SavedSearch]
    func removeSavedSearch(_ id: Int64, of profile: ProfileID) async throws

    /// The server's secret called `name` (its VAPID key), made by `make` and kept the first time it is asked for; of
    /// instances asking at once, all get the one that was kept.
    func serverSecret(named name: String, make: @Sendable () -> String, at instant: Date) async throws -> String

    /// Adds a channel; `StoreError(.invalid)` past ``DeliveryChannel/mostPerProfile``.
    func addDeliveryChannel(_ channel: NewDeliveryChannel, at instant: Date) async throws -> DeliveryChannel
    /// A profile's channels, oldest first.
    func deliveryChannels(of profile: ProfileID) async throws -> [DeliveryChannel]
    func removeDeliveryChannel(_ id: DeliveryChannelID, of profile: ProfileID) async throws
    /// The last `limit` sends to the profile's channels, newest first (the log keeps ``Delivery/kept`` a profile).
    func deliveryLog(of profile: ProfileID, limit: Int) async throws -> [Delivery]
}

public struct ReminderID: RawRepresentable, Hashable, Sendable, Codable {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

public struct DeliveryChannelID: RawRepresentable, Hashable, Sendable, Codable {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// What a reminder is of: one airing on one channel, named as the guide showed it.
public struct NewReminder: Hashable, Sendable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A programme chosen in the guide.
        case programme
        /// An episode of a followed show.
        case episode
        /// A programme a saved search found.
        case search
    }

    public var profile: ProfileID
    public var kind: Kind
    public var channel: ChannelID
    /// The channel's name when the reminder was made, for the message.
    public var channelName: String
    public var title: String
    public var start: Date
    public var stop: Date
    /// Minutes before the start it is sent (``Reminder/leadRange``).
    public var leadMinutes: Int

    public init(profile: ProfileID, kind: Kind, channel: ChannelID, channelName: String, title: String, start: Date, stop: Date,
                leadMinutes: Int) {
        (self.profile, self.kind, self.channel, self.channelName, self.title) = (profile, kind, channel, channelName, title)
        (self.start, self.stop, self.leadMinutes) = (start, stop, Bounded.clamped(leadMinutes, to: Reminder.leadRange))
    }

    /// When it is to be sent.
    public var due: Date { start.addingTimeInterval(-TimeInterval(leadMinutes) * 60) }
}

public struct Reminder: Hashable, Sendable, Identifiable {
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Waiting for its time (or for a retry).
        case pending
        /// Every channel had it.
        case sent
        /// Cancelled by the profile, or because its programme left the listings.
        case cancelled
        /// Its programme ended before it could be sent (the server was down).
        case missed
        /// It could not be sent to every channel after its retries.
        case failed
    }

    public var id: ReminderID
    public var what: NewReminder
    public var state: State
    /// Why it ended as it did, or why it waits for a retry; worded in the reader's language where it is shown.
    public var note: Sentence?
    public var attempts: Int
    public var created: Date
    /// When it was sent, missed, cancelled or failed.
    public var finished: Date?

    public init(id: ReminderID, what: NewReminder, state: State, note: Sentence?, attempts: Int, created: Date, finished: Date?) {
        (self.id, self.what, self.state, self.note, self.attempts, self.created, self.finished) = (id, what, state, note, attempts, created, finished)
    }

    /// Minutes before the start a reminder may be sent: from at the start to a day before.
    public static let leadRange = 0...1440
    /// Pending reminders a profile may have at once.
    public static let mostPending = 1000
}

/// Where a profile is told: an ntfy topic, a webhook, an e-mail address or a browser's push subscription.
public struct NewDeliveryChannel: Hashable, Sendable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case ntfy, webhook, email
        case webPush = "webpush"
    }

    public var profile: ProfileID
    public var kind: Kind
    /// The profile's name for it ("Phone", "Kitchen tablet").
    public var name: String
    /// The ntfy topic's URL, the webhook's URL, the e-mail address or the push endpoint.
    public var target: String
    /// The ntfy access token, the webhook's HMAC key, or the push subscription's keys; nil when none.
    public var secret: String?

    public init(profile: ProfileID, kind: Kind, name: String, target: String, secret: String?) {
        (self.profile, self.kind, self.name, self.target, self.secret) = (profile, kind, name, target, secret)
    }
}

public struct DeliveryChannel: Hashable, Sendable, Identifiable {
    public var id: DeliveryChannelID
    public var what: NewDeliveryChannel
    public var created: Date
    public var lastSent: Date?
    /// The last failure, cleared by the next success.
    public var lastError: Sentence?

    public init(id: DeliveryChannelID, what: NewDeliveryChannel, created: Date, lastSent: Date?, lastError: Sentence?) {
        (self.id, self.what, self.created, self.lastSent, self.lastError) = (id, what, created, lastSent, lastError)
    }

    /// Channels a profile may have.
    public static let mostPerProfile = 10
}

/// One send to one channel.
public struct Delivery: Hashable, Sendable {
    public var profile: ProfileID
    public var channel: DeliveryChannelID
    /// Nil for a test message.
    public var reminder: ReminderID?
    /// The reminder's title, or "Test".
    public var title: String
    public var at: Date
    /// Nil when it was delivered; why not otherwise.
    public var error: Sentence?

    public init(profile: ProfileID, channel: DeliveryChannelID, reminder: ReminderID?, title: String, at: Date, error: Sentence?) {
        (self.profile, self.channel, self.reminder, self.title, self.at, self.error) = (profile, channel, reminder, title, at, error)
    }

    /// Log entries kept per profile; older ones are dropped as new ones come.
    public static let kept = 200
}

/// "Tell me when a programme matching these words appears": its title holds every word, on any channel or on the
/// ones chosen.
public struct NewSavedSearch: Hashable, Sendable {
    public var profile: ProfileID
    /// As typed; folded and split when it runs (``SearchQuery``).
    public var words: String
    /// Empty for every channel.
    public var channels: [ChannelID]
    public var leadMinutes: Int
    /// Each match is also asked of the recorder (for a profile that may record: docs/recorders.md).
    public var records: Bool

    public init(profile: ProfileID, words: String, channels: [ChannelID], leadMinutes: Int, records: Bool = false) {
        (self.profile, self.words, self.channels, self.records) = (profile, words, channels, records)
        self.leadMinutes = Bounded.clamped(leadMinutes, to: Reminder.leadRange)
    }
}

public struct SavedSearch: Hashable, Sendable, Identifiable {
    public var id: Int64
    public var what: NewSavedSearch
    public var created: Date

    public init(id: Int64, what: NewSavedSearch, created: Date) {
        (self.id, self.what, self.created) = (id, what, created)
    }

    /// Saved searches a profile may have: each is a search after every import.
    public static let mostPerProfile = 20
    /// The most channels one may be limited to.
    public static let mostChannels = 50
}
