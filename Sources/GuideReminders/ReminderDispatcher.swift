import Catalogs
import Foundation
import GuideCore
import GuideStore
import Logging
import Synchronization
import Metrics

/// Sends due reminders: every ``interval`` it claims those due (a lease of ``lease``, so of several instances sharing
/// a database one sends each) and sends each to every channel of its profile that has not had it yet. Up to
/// ``concurrency`` reminders are being sent at once, each on its own: one slow receiver holds only its own reminder,
/// and reminders falling due meanwhile are claimed and sent in the next round, 10 s later.
///
/// The rules:
/// - on time: a reminder is sent within ``interval`` (10 s) of its due time while the server runs;
/// - late: one due while the server was down is sent when it comes back, saying how long ago the programme started;
///   once the programme has ended it is dropped as missed;
/// - failures: a channel that fails is tried again after 30 s, 2, 5 and 15 minutes (only the channels that have not had
///   the reminder); after that, or once the programme has ended, the reminder is marked failed with the last error;
///   a channel set up wrong (404, 410, an address that cannot work) is not retried;
/// - once: each channel's delivery is recorded as it succeeds, and a message names itself
///   (``ReminderMessage/id``: ntfy's and the webhook's receivers can drop a repeat, should a process stop between
///   sending and recording).
public struct ReminderDispatcher: Sendable {
    public typealias Store = ReminderStore & AccountStore

    public let store: any Store
    public let senders: ReminderSenders
    public let clock: any Clock<Duration>
    public let now: @Sendable () -> Date
    /// Names this instance in leases.
    public let owner: String
    /// The guide's own address for links, when known (`http://host:port`).
    public let site: String?
    public let interval: Duration
    public let lease: TimeInterval
    /// The zone and day start for profiles that chose none.
    public let defaultClock: ViewerClock

    /// Where deliveries are counted (`tvguide_reminder_deliveries_total`): the process's metrics system unless a test
    /// gives its own.
    let metrics: any MetricsFactory
    let translations: Translations?
    /// Where a failed delivery's full reason goes (the viewer's log says only "refused" or "could not be delivered").
    let logger: Logger
    /// Each reminder sent, for whoever else announces it (Home Assistant's event); the latest 100 wait for a reader.
    public let sent: AsyncStream<Reminder>
    private let announce: AsyncStream<Reminder>.Continuation
    /// The profile (by name) whose reminders a door announces as they are sent (Home Assistant's event): for it the
    /// announcement is a delivery, so its reminders are sent with no delivery channel of its own.
    private let announcedFor = AnnouncedProfile()

    /// Whose reminders `sent` is read for as their delivery; nil: nobody's.
    public func announce(remindersOf profileName: String?) {
        announcedFor.name.withLock { $0 = profileName }
    }

    /// The name ``announce(remindersOf:)`` set, shared by the dispatcher's copies.
    private final class AnnouncedProfile: Sendable {
        let name = Mutex<String?>(nil)
    }

    /// - Parameter translations: the catalogs a profile's language is read from; without them every message is English.
    public init(store: any Store, senders: ReminderSenders, clock: any Clock<Duration>, now: @escaping @Sendable () -> Date,
                translations: Translations? = nil,
                owner: String = UUID().uuidString, site: String? = nil, interval: Duration = .seconds(10), lease: TimeInterval = 900,
                defaultClock: ViewerClock = ViewerClock(zone: .current, dayStartHour: 5), metrics: any MetricsFactory = MetricsSystem.factory,
                logger: Logger = Logger(label: "tvguide.reminders")) {
        (self.store, self.senders, self.clock, self.now, self.owner, self.site) = (store, senders, clock, now, owner, site)
        self.translations = translations
        (self.interval, self.lease, self.defaultClock, self.metrics, self.logger) = (interval, lease, defaultClock, metrics, logger)
        (sent, announce) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(100))
    }

    /// The longest one reminder's sending can take: every channel a profile may have, each at its whole deadline. A
    /// claim's lease is longer, so no other instance takes a reminder still being sent.
    public var longestSend: TimeInterval {
        Double(DeliveryChannel.mostPerProfile) * (Double(senders.timeout.components.seconds) + 1)
    }

    /// Waits after each failed try, by the attempts made before it.
    public static let retryDelays: [TimeInterval] = [30, 120, 300, 900]
    /// Reminders one round claims at most; when a round claims this many, the next starts at once.
    public static let batch = 48
    /// Reminders being sent at once, at most. Each takes at most ``longestSend`` (every receiver taking its whole
    /// deadline on each of a profile's channels), within the lease.
    public static let concurrency = 16

    private enum Event: Sendable { case tick, finished }

    /// Sends due reminders until cancelled: every ``interval`` it claims what is due, as many as there is room for
    /// beside the reminders still being sent, and starts sending them without waiting for the others; `onRound` hears
    /// how many each round claimed. Cancelled, it stops claiming and lets the sends under way end (their claims'
    /// leases pass to another round or instance if they are cut short).
    public func run(onRound: (@Sendable (Round) -> Void)? = nil) async {
        await withTaskGroup(of: Event.self) { group in
            var sending = 0
            group.addTask { .tick }
            while let event = await group.next() {
                guard event == .tick else {
                    sending -= 1
                    continue
                }
                guard !Task.isCancelled else { continue }
                let room = min(Self.batch, Self.concurrency - sending)
                var claimed = 0
                if room > 0 {
                    do {
                        for (reminder, channels, reader) in try await claimDue(limit: room) {
                            group.addTask {
                                _ = try? await send(reminder, to: channels, reader: reader)  // Failures are recorded as it goes.
                                return .finished
                            }
                            claimed += 1
                        }
                    } catch {
                        logger.error("reminders could not be claimed", metadata: ["error": "\(error)"])
                    }
                }
                sending += claimed
                onRound?(Round(claimed: claimed))
                let again = claimed == room && room == Self.batch
                group.addTask { [clock, interval] in
                    if !again { try? await clock.sleep(for: interval) }
                    return .tick
                }
            }
        }
    }

    /// What one round did.
    public struct Round: Sendable, Equatable {
        public var claimed = 0
        public var sent = 0
        public var retrying = 0
        public var missed = 0
        public var failed = 0

        public init(claimed: Int = 0, sent: Int = 0, retrying: Int = 0, missed: Int = 0, failed: Int = 0) {
            (self.claimed, self.sent, self.retrying, self.missed, self.failed) = (claimed, sent, retrying, missed, failed)
        }
    }

    /// How a profile reads its reminders: its clock (zone, day start, locale) and its language's words.
    struct Reader: Sendable {
        var clock: ViewerClock
        var words: Localizer
        /// Whether a door announces the profile's reminders (``announce(remindersOf:)``).
        var isAnnounced = false
    }

    /// Claims up to `limit` reminders due now, each with its profile's channels, clock and language.
    private func claimDue(limit: Int) async throws -> [(Reminder, [DeliveryChannel], Reader)] {
        let instant = now()
        let due = try await store.claimDueReminders(at: instant, owner: owner, leaseUntil: instant.addingTimeInterval(lease), limit: limit)
        var readers: [ProfileID: Reader] = [:]
        var channels: [ProfileID: [DeliveryChannel]] = [:]
        for profile in Set(due.map(\.what.profile)) {
            let settings = try await store.profile(profile)
            // A profile that chose no language reads English: a message has no browser to ask.
            let language = settings?.language ?? .english
            let locale = settings?.language.map { Locale(identifier: $0.code) }
            readers[profile] = Reader(
                clock: ViewerClock(zone: settings?.timeZone.flatMap(TimeZone.init(identifier:)) ?? defaultClock.zone,
                                   dayStartHour: settings?.dayStartHour ?? defaultClock.dayStartHour, locale: locale,
                                   hours: settings?.hours ?? .locale),
                words: translations?.localizer(language, locale: locale) ?? .english,
                isAnnounced: settings.map { profile in announcedFor.name.withLock { $0 == profile.name } } ?? false)
            channels[profile] = try await store.deliveryChannels(of: profile)
        }
        let fallback = Reader(clock: defaultClock, words: .english)
        return due.map { ($0, channels[$0.what.profile] ?? [], readers[$0.what.profile] ?? fallback) }
    }

    /// Claims the reminders due now and sends them, ``concurrency`` at a time, returning when all are done: one round
    /// of ``run(onRound:)``, waited for (the CLI and tests).
    public func sendDue() async throws -> Round {
        let due = try await claimDue(limit: Self.batch)
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            var round = Round(claimed: due.count)
            func count(_ outcome: Outcome) {
                switch outcome {
                case .sent: round.sent += 1
                case .retrying: round.retrying += 1
                case .missed: round.missed += 1
                case .failed: round.failed += 1
                }
            }
            for (index, (reminder, channels, reader)) in due.enumerated() {
                if index >= Self.concurrency, let outcome = try await group.next() { count(outcome) }
                group.addTask { try await send(reminder, to: channels, reader: reader) }
            }
            for try await outcome in group { count(outcome) }
            return round
        }
    }

    private enum Outcome { case sent, retrying, missed, failed }

    private func send(_ reminder: Reminder, to channels: [DeliveryChannel], reader: Reader) async throws -> Outcome {
        let instant = now()
        guard instant < reminder.what.stop else {
            try await store.finishReminder(reminder.id, as: .missed, note: Sentence(saying: "the programme had ended before it could be sent"), at: instant)
            return .missed
        }
        guard !channels.isEmpty || reader.isAnnounced else {
            try await store.finishReminder(reminder.id, as: .failed, note: Sentence(saying: "no delivery channel is set up"), at: instant)
            return .failed
        }
        let done = try await store.deliveries(of: reminder.id)
        var errors: [Sentence] = []
        var canRetry = false
        for channel in channels where done[channel.id] == nil {
            let message = ReminderMessage(reminder, channel: channel.id, at: instant, clock: reader.clock, words: reader.words, site: site)
            var failure: DeliveryFailure?
            do {
                try await senders.send(message, to: channel, at: instant)
            } catch let error as DeliveryFailure {
                failure = error
            } catch {
                return .retrying   // Cancelled: the lease runs out and another round (or instance) takes it.
            }
            let givingUp = failure?.isPermanent ?? false
            Counter(label: "tvguide_reminder_deliveries_total",
                    dimensions: [("channel", channel.what.kind.rawValue),
                                 ("outcome", failure == nil ? "sent" : givingUp ? "given-up" : "failed")],
                    factory: metrics).increment()
            try await store.recordDelivery(Delivery(profile: reminder.what.profile, channel: channel.id, reminder: reminder.id,
                                                    title: reminder.what.title, at: now(), error: failure?.sentence),
                                           givingUp: givingUp)
            if let failure {
                logger.notice("a reminder was not delivered", metadata: ["channel": "\(channel.id.rawValue)", "kind": "\(channel.what.kind.rawValue)",
                                                                         "detail": "\(failure.detail)"])
                errors.append(Sentence(saying: "{channel}: {failure}", ["channel": channel.what.name], sentences: ["failure": failure.sentence]))
                canRetry = canRetry || !givingUp
                // A push subscription the push service no longer knows is gone: the browser unsubscribed.
                if failure.isGone, channel.what.kind == .webPush {
                    try await store.removeDeliveryChannel(channel.id, of: channel.what.profile)
                }
            }
        }
        // Channels given up on in an earlier round keep the reminder from counting as sent.
        let gaveUp = channels.filter { done[$0.id] == false }.map { Sentence(saying: "{channel}: given up (see the delivery log)", ["channel": $0.what.name]) }
        guard !errors.isEmpty || !gaveUp.isEmpty else {
            try await store.finishReminder(reminder.id, as: .sent, note: nil, at: now())
            announce.yield(reminder)
            return .sent
        }
        let note = Sentence.list(errors + gaveUp)
        let retryAt = instant.addingTimeInterval(Self.retryDelays[min(reminder.attempts, Self.retryDelays.count - 1)])
        guard canRetry, reminder.attempts < Self.retryDelays.count, retryAt < reminder.what.stop else {
            try await store.finishReminder(reminder.id, as: .failed, note: note, at: now())
            return .failed
        }
        try await store.retryReminder(reminder.id, at: retryAt, note: Sentence(saying: "trying again at {time}: {problems}", ["time": reader.clock.time(retryAt)], sentences: ["problems": note]))
        return .retrying
    }

    /// Sends a test message to `channel` now, in `words`' language (the page's that asked), recording it in the log;
    /// the failure, if any.
    public func test(_ channel: DeliveryChannel, words: Localizer = .english) async throws -> Sentence? {
        let instant = now()
        var error: Sentence?
        do {
            try await senders.send(.test(to: channel, at: instant, words: words), to: channel, at: instant)
        } catch let failure as DeliveryFailure {
            error = failure.sentence
            logger.notice("a test message was not delivered", metadata: ["channel": "\(channel.id.rawValue)", "kind": "\(channel.what.kind.rawValue)",
                                                                         "detail": "\(failure.detail)"])
        }
        try await store.recordDelivery(Delivery(profile: channel.what.profile, channel: channel.id, reminder: nil, title: "Test",
                                                at: instant, error: error), givingUp: false)
        return error
    }
}
