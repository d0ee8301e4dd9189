import Crypto
import Foundation
import GuideCore
import GuideHTTP
import GuideReminders
import GuideStore
import StoreTestSupport
import TestReceivers
import Testing

/// Web Push to a receiver that decrypts with the subscription's private key through an independent implementation
/// (PyPI's http-ece) and checks the VAPID signature with PyPI's cryptography.
@Suite(.enabled { await PushReceiver.isAvailable() }) struct PushDeliveryTests {
    @Test func aReminderIsPushedEncryptedAndSignedOnceAndAGoneSubscriptionIsRemoved() async throws {
        let receiver = try await PushReceiver()
        defer { receiver.stop() }
        let rig = try await ReminderDeliveryTests.Rig()
        let vapid = VAPIDKey(store: rig.store, subject: "mailto:admin@guide.example", now: rig.now)
        // The receiver is https, as push services are, with a certificate of its own that the admin trusts (outbound-ca).
        let transport = PolicedTransport(policy: OutboundPolicy(allowances: [.loopback]), trusting: try TrustedCertificates(pem: receiver.certificate))
        let senders = ReminderSenders(transport: transport, push: vapid)
        let keys = WebPush.Subscription(endpoint: receiver.url("/push/abc"), p256dh: receiver.p256dh, auth: receiver.auth).keysJSON
        #expect(senders.problem(kind: .webPush, target: receiver.url("/push/abc"), secret: keys) == nil)
        #expect(senders.problem(kind: .webPush, target: receiver.url("/push/abc"), secret: #"{"p256dh":"AAAA","auth":"x"}"#) != nil)
        let browser = try await rig.onlyChannel(.webPush, name: "Laptop", target: receiver.url("/push/abc"), secret: keys)
        let start = ReminderDeliveryTests.t0.addingTimeInterval(3600)
        let reminder = try await rig.remind("Film", at: start)
        rig.set(start.addingTimeInterval(-15 * 60))
        let dispatcher = rig.dispatcher(senders: senders)
        #expect(try await dispatcher.sendDue() == ReminderDispatcher.Round(claimed: 1, sent: 1))
        #expect(try await dispatcher.sendDue().claimed == 0)

        let message = try #require(receiver.messages.first)
        #expect(receiver.messages.count == 1)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: String])
        #expect(payload == ["title": "Film", "body": "09:00 on BBC One, in 15 minutes", "link": "http://guide.example/reminders",
                            "id": "tvguide-reminder-\(reminder.id.rawValue)-\(browser.id.rawValue)"])
        #expect(message.vapidValid && message.audience == "https://127.0.0.1:\(receiver.port)" && message.subject == "mailto:admin@guide.example")
        #expect(message.vapidKey == (try await vapid.publicKey()))
        #expect(message.headers["content-encoding"] == "aes128gcm" && message.headers["ttl"] == "3600" && message.headers["urgency"] == "high")
        // The key is kept: another instance (or a restart) signs with the same one.
        #expect(try await VAPIDKey(store: rig.store, subject: "x", now: { Date() }).publicKey() == (try await vapid.publicKey()))

        // A subscription the push service says is gone (410) is removed.
        let gone = try await rig.store.addDeliveryChannel(NewDeliveryChannel(profile: rig.profile.id, kind: .webPush, name: "Old phone",
                                                                             target: receiver.url("/gone"), secret: keys), at: ReminderDeliveryTests.t0)
        _ = try await rig.remind("Later", at: start)
        _ = try await dispatcher.sendDue()
        #expect(try await rig.store.deliveryChannels(of: rig.profile.id).map(\.id) == [browser.id] && gone.id != browser.id)
        #expect(receiver.messages.map(\.path) == ["/push/abc", "/push/abc", "/gone"] || receiver.messages.map(\.path) == ["/push/abc", "/gone", "/push/abc"])
    }

    /// RFC 8291's own example (section 5): the same keys, salt and server key give the same body, byte for byte.
    @Test func theRFCExampleEncryptsToTheRFCBody() throws {
        let subscription = WebPush.Subscription(endpoint: "https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV",
                                                p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                                                auth: "BTBZMqHH6r4Tts7J_aSIgg")
        let serverKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: try #require(WebPush.base64URLDecoded("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")))
        let salt: Data = try #require(WebPush.base64URLDecoded("DGv6ra1nlYgDCS1FRnbzlw"))
        let body = try WebPush.encrypt(Data("When I grow up, I want to be a watermelon".utf8), for: subscription, salt: salt, serverKey: serverKey)
        #expect(WebPush.base64URL(body) == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
    }
}
