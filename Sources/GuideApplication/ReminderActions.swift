import Foundation
import GuideCore
import GuideReminders
import GuideStore

/// What the reminders page and the reminders API both do, with the same checks and the same errors.
public struct ReminderActions: Sendable {
    public let store: any ListingStore & ReminderStore
    public let directory: ChannelDirectory
    public let settings: ServerSettings
    public let dispatcher: ReminderDispatcher
    /// For saved searches that record what they find.
    public let recordings: RecordingDesk
    /// "Send a test", per profile: a few a minute (each sends the viewer's own text to an address of their choosing).
    public let testSends: ClientQuota

    public init(store: any ListingStore & ReminderStore, directory: ChannelDirectory, settings: ServerSettings, dispatcher: ReminderDispatcher,
         recordings: RecordingDesk) {
        (self.store, self.directory, self.settings, self.dispatcher, self.recordings) = (store, directory, settings, dispatcher, recordings)
        testSends = ClientQuota(limit: Self.testsPerMinute, per: 60, now: settings.now)
    }

    public static let testsPerMinute = 3

    /// "Remind me" on a programme by its id in the guide, `lead` minutes before (15 by default). Kept by channel,
    /// start and title, so a refresh that replaces the programme's row keeps the reminder.
    public func remind(_ profile: Profile, programme text: String, lead: Int?) async throws -> Reminder {
        guard let id = Bounded.integer(text, in: 1...Int64.max), let stored = try await store.programme(ProgrammeID(rawValue: id)) else {
            throw ActionRefusal(.notFound, saying: "That programme is not in the guide (a newer import may have replaced it).")
        }
        let programme = stored.programme
        let now = settings.now()
        guard stored.end > now else { throw ActionRefusal(.invalid, saying: "{title} has already ended.", ["title": programme.title]) }
        let name = try await directory.snapshot().channel(programme.channel)?.name ?? programme.channel.rawValue
        return try await store.addReminder(
            NewReminder(profile: profile.id, kind: .programme, channel: programme.channel, channelName: name, title: programme.title,
                        start: programme.start, stop: stored.end, leadMinutes: lead ?? 15), at: now)
    }

    /// A delivery channel, checked: a kind this server sends to, a name of 1 to 60 characters, an address that can work.
    public func addChannel(_ profile: Profile, kind text: String, name: String, target: String, secret: String?) async throws -> DeliveryChannel {
        guard let kind = NewDeliveryChannel.Kind(rawValue: text) else {
            throw ActionRefusal(.invalid, saying: "kind is one of {kinds}", ["kinds": dispatcher.senders.kinds.map(\.rawValue).joined(separator: ", ")])
        }
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let target = target.trimmingCharacters(in: .whitespacesAndNewlines)
        let secret = secret.flatMap { $0.isEmpty ? nil : $0 }
        guard (1...60).contains(name.count) else { throw ActionRefusal(.invalid, saying: "a channel's name has 1 to 60 characters") }
        if let problem = dispatcher.senders.problem(kind: kind, target: target, secret: secret) {
            throw ActionRefusal(.invalid, Sentence(saying: "that channel cannot work: {problem}", sentences: ["problem": problem]))
        }
        if let problem = await dispatcher.senders.outboundProblem(kind: kind, target: target) {
            throw ActionRefusal(.invalid, Sentence(saying: "that address is {problem}", sentences: ["problem": problem]))
        }
        // One channel per browser: subscribing it again names the channel it already has.
        if kind == .webPush, let existing = try await store.deliveryChannels(of: profile.id)
            .first(where: { $0.what.kind == .webPush && $0.what.target == target }) {
            return existing
        }
        return try await store.addDeliveryChannel(NewDeliveryChannel(profile: profile.id, kind: kind, name: name, target: target,
                                                                           secret: secret), at: settings.now())
    }

    /// Saves "tell me when a programme matching these words appears", on the channels named (ids or names; none for
    /// all), and reminds of what already matches: the search, and how many reminders that made.
    /// `records`: each match is also asked of the recorder, for a profile that may record (ignored for one that may not).
    public func saveSearch(_ profile: Profile, words: String, channels names: [String], lead: Int?, records: Bool = false) async throws
        -> (search: SavedSearch, matched: Int) {
        let words = words.trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = SearchQuery.problem(withText: words) { throw ActionRefusal(.invalid, problem) }
        guard !SearchQuery([words]).terms.isEmpty else { throw ActionRefusal(.invalid, saying: "say what to look for: a word or two of a title") }
        let names = names.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard names.count <= SavedSearch.mostChannels else {
            throw ActionRefusal(.invalid, saying: "a saved search names at most {count} channels", ["count": "\(SavedSearch.mostChannels)"])
        }
        let snapshot = try await directory.snapshot()
        let channels = try names.map { name in
            guard let channel = snapshot.channel(ChannelID(name)) ?? snapshot.channels.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw ActionRefusal(.invalid, saying: "there is no channel {name} in the guide", ["name": String(name.prefix(100))])
            }
            return channel.id
        }
        let now = settings.now()
        let search = try await store.addSavedSearch(NewSavedSearch(profile: profile.id, words: words, channels: channels, leadMinutes: lead ?? 15,
                                                                   records: records && profile.mayRecord), at: now)
        let matched = try await SavedSearchReminders(store: store).run(for: profile.id, at: now)
        if search.what.records { try await recordings.recordSavedSearches(of: profile.id, at: now) }
        return (search, matched)
    }

    /// Sends a test message to the profile's channel now: what went wrong, in the words a viewer is given; 429 with
    /// Retry-After past ``testsPerMinute``.
    public func test(_ channel: DeliveryChannel, of profile: Profile, words: Localizer) async throws -> Sentence? {
        guard testSends.take(String(profile.id.rawValue)) else {
            throw ActionRefusal(.tooMany(retryAfterSeconds: testSends.retryAfter()),
                          saying: "{count} tests a minute at most: try again in a minute", ["count": "\(Self.testsPerMinute)"])
        }
        return try await dispatcher.test(channel, words: words)
    }

    /// The profile's channel with this id; 404 for another profile's.
    public func channel(_ id: Int64, of profile: Profile) async throws -> DeliveryChannel {
        guard let channel = try await store.deliveryChannels(of: profile.id).first(where: { $0.id.rawValue == id }) else {
            throw ActionRefusal(.notFound, saying: "no delivery channel {id}", ["id": "\(id)"])
        }
        return channel
    }
}
