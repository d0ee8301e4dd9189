import Foundation
import GuideCore
import GuideHTTP
import GuideReminders
import GuideStore
import StoreTestSupport
import TestReceivers
import Testing

/// A receiver that answers its head and then trickles its body holds only its own reminder, and only for the send's
/// deadline (head and body together): another profile's reminder falling due meanwhile goes out at its next round
/// (issue 27, point 3).
@Suite struct DeliveryBoundsTests {
    typealias Rig = ReminderDeliveryTests.Rig

    @Test func aTricklingReceiverDelaysNoOtherProfilesReminder() async throws {
        let rig = try await Rig()
        // Given Sam's only channel trickles its answer, and Kim's answers at once,
        rig.receiver.trickle("/slow")
        _ = try await rig.onlyChannel(.webhook, name: "Slow", target: rig.receiver.url("/slow"), secret: nil)
        let kim = try await rig.store.createProfile(name: "Kim", role: .viewer, secretKind: .pin, secretHash: "x", onlyIfFirst: false)
        _ = try await rig.store.addDeliveryChannel(NewDeliveryChannel(profile: kim.id, kind: .webhook, name: "Fast", target: rig.receiver.url("/fast"),
                                                                      secret: nil), at: rig.now())
        let deadline = 8
        let dispatcher = ReminderDispatcher(store: rig.store, senders: ReminderSenders(transport: TestHTTP.outbound, timeout: .seconds(deadline)),
                                            clock: ContinuousClock(), now: rig.now, owner: "a", interval: .seconds(1))
        #expect(dispatcher.longestSend < dispatcher.lease, "a claim outlives any send")
        let samsReminder = try await rig.remind("Sam's film", at: rig.now().addingTimeInterval(15 * 60))
        let loop = Task { await dispatcher.run() }
        defer { loop.cancel() }
        // When Sam's send has begun (the receiver holds it), Kim's reminder falls due,
        try await Self.waitUntil { !rig.receiver.requests(to: "/slow").isEmpty }
        _ = try await rig.store.addReminder(NewReminder(profile: kim.id, kind: .programme, channel: ChannelID("bbc1.uk"), channelName: "BBC One",
                                                        title: "Kim's film", start: rig.now().addingTimeInterval(15 * 60),
                                                        stop: rig.now().addingTimeInterval(75 * 60), leadMinutes: 15), at: rig.now())
        // Then Kim's goes out while Sam's is still held,
        try await Self.waitUntil { try await !rig.store.reminders(of: kim.id, in: [.sent], limit: 1).isEmpty }
        #expect(rig.receiver.requests(to: "/fast").count == 1)
        #expect(try await rig.store.deliveryLog(of: rig.profile.id, limit: 5).isEmpty, "Sam's send is still within its deadline")
        // and Sam's is given up at its deadline, the viewer told only that it could not be delivered.
        try await Self.waitUntil { try await !rig.store.deliveryLog(of: rig.profile.id, limit: 5).isEmpty }
        #expect(try await rig.store.deliveryLog(of: rig.profile.id, limit: 5).first?.error == DeliveryFailure.undelivered)
        #expect(try await rig.store.reminders(of: rig.profile.id, in: [.pending], limit: 1).first?.id == samsReminder.id, "retried later")
        try await rig.receiver.stop()
    }

    /// Polls `condition` every 50 ms for at most 30 s (a hang guard, not a timing).
    static func waitUntil(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<600 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the condition did not come true within 30 s")
    }
}
