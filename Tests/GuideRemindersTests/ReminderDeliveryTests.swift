import Clocks
import Crypto
import Catalogs
import Foundation
import GuideCore
import GuideHTTP
import GuideReminders
import GuideStore
import StoreTestSupport
import Synchronization
import TestReceivers
import Testing

/// Reminders delivered to real receivers on loopback (an HTTP server standing in for ntfy and a webhook), on a
/// virtual clock, on whichever store the run tests: once each, at the lead time, through retries, restarts and two
/// instances sharing a database.
@Suite struct ReminderDeliveryTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)   // 2027-01-15 08:00 UTC

    /// A profile with an ntfy channel and a signed webhook on one receiver, and the time under the test's control.
    final class Rig: Sendable {
        let folder: String
        let location: String
        let store: any GuideDatabase
        let receiver: Receiver
        let profile: Profile
        let instant = Mutex(ReminderDeliveryTests.t0)
        var now: @Sendable () -> Date { { self.instant.withLock { $0 } } }

        init() async throws {
            folder = TestScratch.folder("reminders")
            location = TestDatabase.location(in: folder)
            store = try await TestDatabase.open(location)
            receiver = try await Receiver()
            profile = try await store.createProfile(name: "Sam", role: .admin, secretKind: .password, secretHash: "x", onlyIfFirst: false)
            try await store.updateSettings(of: profile.id, dayStartHour: 5, timeZone: "Europe/London")
            _ = try await store.addDeliveryChannel(NewDeliveryChannel(profile: profile.id, kind: .ntfy, name: "Phone",
                                                                      target: receiver.url("/tv-alerts"), secret: "tk_abc"), at: Self.t0)
            _ = try await store.addDeliveryChannel(NewDeliveryChannel(profile: profile.id, kind: .webhook, name: "Home",
                                                                      target: receiver.url("/hook"), secret: "s3cret"), at: Self.t0)
        }

        static var t0: Date { ReminderDeliveryTests.t0 }

        func dispatcher(_ store: (any GuideDatabase)? = nil, owner: String = "a", senders: ReminderSenders? = nil) -> ReminderDispatcher {
            ReminderDispatcher(store: store ?? self.store, senders: senders ?? ReminderSenders(transport: TestHTTP.outbound),
                               clock: ContinuousClock(), now: now, owner: owner, site: "http://guide.example")
        }

        /// The profile's one channel from now on: the rig's ntfy and webhook removed.
        func onlyChannel(_ kind: NewDeliveryChannel.Kind, name: String, target: String, secret: String?) async throws -> DeliveryChannel {
            for channel in try await store.deliveryChannels(of: profile.id) { try await store.removeDeliveryChannel(channel.id, of: profile.id) }
            return try await store.addDeliveryChannel(NewDeliveryChannel(profile: profile.id, kind: kind, name: name, target: target,
                                                                         secret: secret), at: Self.t0)
        }

        func set(_ date: Date) { instant.withLock { $0 = date } }

        /// A film at `start` for an hour on BBC One, reminded `lead` minutes before.
        func remind(_ title: String = "Film", at start: Date, lead: Int = 15) async throws -> Reminder {
            try await store.addReminder(NewReminder(profile: profile.id, kind: .programme, channel: ChannelID("bbc1.uk"),
                                                    channelName: "BBC One", title: title, start: start,
                                                    stop: start.addingTimeInterval(3600), leadMinutes: lead), at: now())
        }
    }

    @Test func aMessageIsInItsProfilesLanguageAndClock() async throws {
        // Given Sam reads German on a 12-hour clock, and a film tomorrow; then Hebrew
        let rig = try await Rig()
        try await rig.store.setLanguage(Language(tag: "de"), hours: .twelve, of: rig.profile.id)
        let start = Self.t0.addingTimeInterval(3600)
        _ = try await rig.remind(at: start, lead: 1)
        let dispatcher = ReminderDispatcher(store: rig.store, senders: ReminderSenders(transport: TestHTTP.outbound), clock: ContinuousClock(),
                                            now: rig.now, translations: try Translations(), owner: "a", site: nil)
        // When it is sent a minute before
        rig.set(start.addingTimeInterval(-60))
        #expect(try await dispatcher.sendDue().sent == 1)
        // Then the sentence is German, its time as German writes a 12-hour one, the count in the singular
        let message = try #require(rig.receiver.requests(to: "/").first?.json["message"] as? String)
        #expect(message.hasPrefix("9:00") && message.contains("AM") && message.hasSuffix("auf BBC One, in 1 Minute"), "\(message)")
        try await rig.store.setLanguage(Language(tag: "he"), hours: .locale, of: rig.profile.id)
        _ = try await rig.remind("Another film", at: start.addingTimeInterval(7200), lead: 2)
        rig.set(start.addingTimeInterval(7200 - 120))
        #expect(try await dispatcher.sendDue().sent == 1)
        let hebrew = try #require(rig.receiver.requests(to: "/").last?.json["message"] as? String)
        #expect(hebrew == "11:00 ב־BBC One, בעוד שתי דקות", "\(hebrew)")
        // A test message from a page speaks the page's language.
        let channel = try #require(try await rig.store.deliveryChannels(of: rig.profile.id).first)
        _ = try await dispatcher.test(channel, words: try Translations().localizer(try #require(Language(tag: "fr"))))
        #expect(rig.receiver.requests(to: "/").last?.json["message"] as? String == "Les rappels pour Phone arrivent comme ceci.")
    }

    @Test func eachChannelGetsOneMessageAtTheLeadTime() async throws {
        let rig = try await Rig()
        let start = Self.t0.addingTimeInterval(3600)
        let reminder = try await rig.remind(at: start)
        #expect(try await rig.remind(at: start).id == reminder.id)   // "Remind me" twice reminds once.
        let dispatcher = rig.dispatcher()
        rig.set(start.addingTimeInterval(-15 * 60 - 1))
        #expect(try await dispatcher.sendDue().claimed == 0)
        #expect(rig.receiver.requests.isEmpty)
        rig.set(start.addingTimeInterval(-15 * 60))
        #expect(try await dispatcher.sendDue() == ReminderDispatcher.Round(claimed: 1, sent: 1))
        #expect(try await dispatcher.sendDue().claimed == 0)

        // ntfy: the JSON publish to the server's root, with the topic and the access token.
        let ntfy = rig.receiver.requests(to: "/")
        #expect(ntfy.count == 1)
        #expect(ntfy.first?.method == "POST" && ntfy.first?.headers["authorization"] == "Bearer tk_abc")
        #expect(ntfy.first?.json["topic"] as? String == "tv-alerts" && ntfy.first?.json["title"] as? String == "Film")
        // 09:00 UTC is 09:00 in London in January.
        #expect(ntfy.first?.json["message"] as? String == "09:00 on BBC One, in 15 minutes")
        #expect(ntfy.first?.json["click"] as? String == "http://guide.example/reminders")

        // The webhook: JSON, signed with HMAC-SHA256 of the body under the channel's secret, checked here on its own.
        let hook = try #require(rig.receiver.requests(to: "/hook").first)
        #expect(rig.receiver.requests(to: "/hook").count == 1)
        let mac = HMAC<SHA256>.authenticationCode(for: hook.body, using: SymmetricKey(data: Data("s3cret".utf8)))
        #expect(hook.headers["x-tvguide-signature"] == "sha256=" + mac.map { String(format: "%02x", $0) }.joined())
        #expect(hook.headers["content-type"] == "application/json")
        #expect(hook.json["event"] as? String == "reminder" && hook.json["sentAt"] as? String == "2027-01-15T08:45:00Z")
        let payload = try #require(hook.json["reminder"] as? [String: Any])
        #expect(payload["channel"] as? String == "bbc1.uk" && payload["start"] as? String == "2027-01-15T09:00:00Z")
        #expect(payload["leadMinutes"] as? Int == 15)
        #expect(hook.headers["x-tvguide-delivery"] == hook.json["id"] as? String)

        let sent = try await rig.store.reminders(of: rig.profile.id, in: [.sent], limit: 10)
        #expect(try await rig.store.deliveries(of: reminder.id).values.allSatisfy { $0 })
        #expect(sent.map(\.id) == [reminder.id] && sent.first?.finished == start.addingTimeInterval(-15 * 60))
        #expect(try await rig.store.deliveryLog(of: rig.profile.id, limit: 10).filter { $0.error == nil }.count == 2)
        try await rig.receiver.stop()
    }

    @Test func aFailingChannelIsRetriedAloneWithBackoff() async throws {
        let rig = try await Rig()
        rig.receiver.answer("/hook", with: [500, 503, 200])
        let start = Self.t0.addingTimeInterval(3600)
        _ = try await rig.remind(at: start, lead: 30)
        let dispatcher = rig.dispatcher()
        rig.set(start.addingTimeInterval(-30 * 60))
        #expect(try await dispatcher.sendDue() == ReminderDispatcher.Round(claimed: 1, retrying: 1))
        let waiting = try await rig.store.reminders(of: rig.profile.id, in: [.pending], limit: 10)
        // The viewer is told it could not be delivered; which status the receiver answered is the admin's (the log).
        #expect(waiting.first?.note?.description.contains("Home: could not be delivered") == true)
        #expect(try await rig.store.deliveryChannels(of: rig.profile.id).last?.lastError == DeliveryFailure.undelivered)
        // Not before its retry, 30 s later; then 2 minutes after that; only the webhook is tried again.
        rig.set(start.addingTimeInterval(-30 * 60 + 29))
        #expect(try await dispatcher.sendDue().claimed == 0)
        rig.set(start.addingTimeInterval(-30 * 60 + 30))
        #expect(try await dispatcher.sendDue() == ReminderDispatcher.Round(claimed: 1, retrying: 1))
        rig.set(start.addingTimeInterval(-30 * 60 + 30 + 120))
        #expect(try await dispatcher.sendDue() == ReminderDispatcher.Round(claimed: 1, sent: 1))
        #expect(rig.receiver.requests(to: "/").count == 1)
        #expect(rig.receiver.requests(to: "/hook").count == 3)
        #expect(try await rig.store.deliveryChannels(of: rig.profile.id).last?.lastError == nil)
        // Every try of the one message carries the same delivery id, for a receiver to drop repeats.
        #expect(Set(rig.receiver.requests(to: "/hook").compactMap { $0.headers["x-tvguide-delivery"] }).count == 1)
        try await rig.receiver.stop()
    }

    @Test func aReceiverThatIsGoneFailsAtOnceAndOneThatNeverAnswersRightFailsWhenTheProgrammeEnds() async throws {
        let rig = try await Rig()
        rig.receiver.answer("/hook", with: [410])
        rig.receiver.answer("/", with: [500])
        let start = Self.t0.addingTimeInterval(600)
        _ = try await rig.remind(at: start, lead: 10)
        let dispatcher = rig.dispatcher()
        var round = try await dispatcher.sendDue()
        var tries = 1
        while round.retrying == 1, tries < 10 {
            // Each retry at its time: 30 s, 2, 5, 15 minutes.
            let next = try await rig.store.reminders(of: rig.profile.id, in: [.pending], limit: 1)
            #expect(next.count == 1)
            rig.set(rig.now().addingTimeInterval(ReminderDispatcher.retryDelays[min(tries - 1, 3)]))
            round = try await dispatcher.sendDue()
            tries += 1
        }
        #expect(round.failed == 1 && tries == 5)
        #expect(rig.receiver.requests(to: "/hook").count == 1)   // 410: gone, not retried.
        #expect(rig.receiver.requests(to: "/").count == 5)
        let failed = try await rig.store.reminders(of: rig.profile.id, in: [.failed], limit: 1)
        #expect(failed.first?.note?.description.contains("Phone: could not be delivered") == true)
        try await rig.receiver.stop()
    }

    @Test func lateRemindersSayHowLateAndEndedOnesAreMissed() async throws {
        let rig = try await Rig()
        let late = try await rig.remind("Late", at: Self.t0.addingTimeInterval(-7 * 60))
        let ended = try await rig.remind("Ended", at: Self.t0.addingTimeInterval(-2 * 3600))
        let cancelled = try await rig.remind("Cancelled", at: Self.t0.addingTimeInterval(60))
        try await rig.store.cancelReminder(cancelled.id, of: rig.profile.id, at: Self.t0)
        await #expect(throws: StoreError.self) { try await rig.store.cancelReminder(cancelled.id, of: rig.profile.id, at: Self.t0) }
        #expect(try await rig.dispatcher().sendDue() == ReminderDispatcher.Round(claimed: 2, sent: 1, missed: 1))
        #expect(rig.receiver.requests(to: "/").compactMap { $0.json["message"] as? String } == ["07:53 on BBC One, started 7 minutes ago"])
        let states = Dictionary(uniqueKeysWithValues: try await rig.store.reminders(of: rig.profile.id, in: Set(Reminder.State.allCases), limit: 10)
            .map { ($0.id, $0.state) })
        #expect(states == [late.id: .sent, ended.id: .missed, cancelled.id: .cancelled])
        try await rig.receiver.stop()
    }

    /// A profile with no delivery channel: its reminder fails saying so, unless a door announces its reminders (Home
    /// Assistant's event, the profile it acts for), for which the announcement is the delivery.
    @Test func aProfileWithNoChannelIsRemindedOnlyWhereADoorAnnouncesIt() async throws {
        let rig = try await Rig()
        for channel in try await rig.store.deliveryChannels(of: rig.profile.id) { try await rig.store.removeDeliveryChannel(channel.id, of: rig.profile.id) }
        let dispatcher = rig.dispatcher()
        let unheard = try await rig.remind("Unheard", at: Self.t0.addingTimeInterval(10 * 60))
        #expect(try await dispatcher.sendDue() == ReminderDispatcher.Round(claimed: 1, failed: 1))
        dispatcher.announce(remindersOf: "Sam")
        let heard = try await rig.remind("Heard", at: Self.t0.addingTimeInterval(12 * 60))
        #expect(try await dispatcher.sendDue() == ReminderDispatcher.Round(claimed: 1, sent: 1))
        var announced = dispatcher.sent.makeAsyncIterator()
        #expect(await announced.next()?.what.title == "Heard")
        let reminders = try await rig.store.reminders(of: rig.profile.id, in: Set(Reminder.State.allCases), limit: 10)
        #expect(reminders.first { $0.id == unheard.id }?.state == .failed && reminders.first { $0.id == heard.id }?.state == .sent)
        #expect(rig.receiver.requests(to: "/").isEmpty)
        try await rig.receiver.stop()
    }

    /// A restart between scheduling and delivery: the reminder is in the store, a new process (a new handle on the
    /// same database) sends it once; and two instances at once send each reminder once.
    @Test func restartsAndTwoInstancesNeitherLoseNorRepeat() async throws {
        let rig = try await Rig()
        let start = Self.t0.addingTimeInterval(3600)
        // More than one round's batch, so the two instances can each take some.
        for index in 0..<60 { _ = try await rig.remind("Film \(index)", at: start.addingTimeInterval(TimeInterval(index * 30))) }
        let restarted = try await TestDatabase.open(rig.location)
        let other = try await TestDatabase.open(rig.location)
        rig.set(start.addingTimeInterval(30 * 60))   // All due (the last at start + 14:30), none ended.
        async let first = rig.dispatcher(restarted, owner: "a").sendDue()
        async let second = rig.dispatcher(other, owner: "b").sendDue()
        var rounds = try await [first, second]
        // Whatever the first two rounds left (one instance may wait on the other's rows), the next rounds take.
        while rounds.suffix(2).contains(where: { $0.claimed > 0 }) {
            async let first = rig.dispatcher(restarted, owner: "a").sendDue()
            async let second = rig.dispatcher(other, owner: "b").sendDue()
            rounds += try await [first, second]
        }
        #expect(rounds.map(\.claimed).reduce(0, +) == 60 && rounds.map(\.sent).reduce(0, +) == 60)
        let titles = rig.receiver.requests(to: "/").compactMap { $0.json["title"] as? String }
        #expect(titles.count == 60 && Set(titles).count == 60)
        #expect(rig.receiver.requests(to: "/hook").count == 60)
        #expect(try await rig.dispatcher(restarted).sendDue().claimed == 0)
        try await rig.receiver.stop()
    }

    /// The loop `serve` runs, on virtual time: a reminder due 25 s after the loop starts is sent within its 10 s rounds.
    @Test func theLoopSendsWithinThirtySecondsOfTheDueTime() async throws {
        let rig = try await Rig()
        let clock = TestClock()
        let origin = clock.now
        let now: @Sendable () -> Date = { Self.t0.addingTimeInterval(origin.duration(to: clock.now) / .seconds(1)) }
        _ = try await rig.remind(at: Self.t0.addingTimeInterval(25 + 15 * 60))
        let dispatcher = ReminderDispatcher(store: rig.store, senders: ReminderSenders(transport: TestHTTP.outbound), clock: clock,
                                            now: now)
        let rounds = Mutex(0)
        let loop = Task { await dispatcher.run { _ in rounds.withLock { $0 += 1 } } }
        defer { loop.cancel() }
        // Each 10 s step once the loop has finished its round (and gone to sleep on the clock).
        for step in 1...3 {
            for _ in 0..<500 where rounds.withLock({ $0 }) < step { try await Task.sleep(for: .milliseconds(10)) }
            try await clock.untilSomethingSleeps()
            await clock.advance(by: .seconds(10))
        }
        for _ in 0..<500 where rounds.withLock({ $0 }) < 4 { try await Task.sleep(for: .milliseconds(10)) }
        // The fourth round started the send; it runs on beside the loop.
        for _ in 0..<500 where try await rig.store.reminders(of: rig.profile.id, in: [.sent], limit: 1).isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        let sent = try await rig.store.reminders(of: rig.profile.id, in: [.sent], limit: 1)
        #expect(rig.receiver.requests(to: "/").count == 1)
        #expect(sent.first.flatMap(\.finished).map { $0.timeIntervalSince(Self.t0.addingTimeInterval(25)) } == 5)
        try await rig.receiver.stop()
    }

    @Test func channelsAreCheckedAndBoundedAndATestMessageIsLogged() async throws {
        let rig = try await Rig()
        #expect(ReminderSenders(transport: TestHTTP.outbound).problem(kind: .ntfy, target: "https://ntfy.sh/", secret: nil) != nil)
        #expect(ReminderSenders(transport: TestHTTP.outbound).problem(kind: .ntfy, target: "ftp://ntfy.sh/topic", secret: nil) != nil)
        #expect(ReminderSenders(transport: TestHTTP.outbound).problem(kind: .webhook, target: "https://example.org/hook?x=1", secret: nil) == nil)
        #expect(ReminderSenders(transport: TestHTTP.outbound).problem(kind: .email, target: "sam@example.org", secret: nil) != nil)
        for index in 2..<DeliveryChannel.mostPerProfile {
            _ = try await rig.store.addDeliveryChannel(NewDeliveryChannel(profile: rig.profile.id, kind: .webhook, name: "Hook \(index)",
                                                                          target: rig.receiver.url("/more"), secret: nil), at: Self.t0)
        }
        await #expect(throws: StoreError.self) {
            try await rig.store.addDeliveryChannel(NewDeliveryChannel(profile: rig.profile.id, kind: .webhook, name: "One too many",
                                                                      target: rig.receiver.url("/more"), secret: nil), at: Self.t0)
        }
        let phone = try #require(try await rig.store.deliveryChannels(of: rig.profile.id).first)
        #expect(try await rig.dispatcher().test(phone) == nil)
        #expect(rig.receiver.requests(to: "/").first?.json["title"] as? String == "tvguide test")
        let log = try await rig.store.deliveryLog(of: rig.profile.id, limit: 5)
        #expect(log.first?.title == "Test" && log.first?.reminder == nil && log.first?.error == nil)
        try await rig.store.removeDeliveryChannel(phone.id, of: rig.profile.id)
        #expect(try await rig.store.deliveryChannels(of: rig.profile.id).count == DeliveryChannel.mostPerProfile - 1)
        try await rig.receiver.stop()
    }
}
