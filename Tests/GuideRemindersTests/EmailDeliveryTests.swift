import Foundation
import GuideCore
import GuideHTTP
import GuideReminders
import GuideStore
import StoreTestSupport
import TestReceivers
import Testing

/// Reminders by e-mail to a real SMTP server on loopback (aiosmtpd): STARTTLS required, AUTH PLAIN, the message read
/// back by Python's email parser.
@Suite(.enabled { await SMTPReceiver.isAvailable() }) struct EmailDeliveryTests {
    @Test func aReminderArrivesOnceByMailOverTLS() async throws {
        let receiver = try await SMTPReceiver()
        defer { receiver.stop() }
        let rig = try await ReminderDeliveryTests.Rig()
        var settings = SMTPSettings(host: "127.0.0.1", port: receiver.port, security: .startTLS, username: "sam", password: "pw",
                                    from: "tvguide@guide.example", trustedCertificates: receiver.certificate)
        let senders = ReminderSenders(transport: TestHTTP.outbound, mail: SMTPClient(settings: settings))
        #expect(senders.problem(kind: .email, target: "sam@example.org", secret: nil) == nil)
        #expect(senders.problem(kind: .email, target: "sam@example.org>\r\nRCPT TO:<x@y.z", secret: nil) != nil)
        #expect(ReminderSenders(transport: TestHTTP.outbound).problem(kind: .email, target: "sam@example.org", secret: nil) != nil)
        let mailbox = try await rig.onlyChannel(.email, name: "Mail", target: "sam@example.org", secret: nil)
        let start = ReminderDeliveryTests.t0.addingTimeInterval(3600)
        let reminder = try await rig.remind("Café Society", at: start)
        rig.set(start.addingTimeInterval(-15 * 60))
        let dispatcher = rig.dispatcher(senders: senders)
        #expect(try await dispatcher.sendDue() == ReminderDispatcher.Round(claimed: 1, sent: 1))
        #expect(try await dispatcher.sendDue().claimed == 0)
        let messages = receiver.messages
        #expect(messages.count == 1)
        let message = try #require(messages.first)
        #expect(message.overTLS && message.login == "sam")
        #expect(message.from == "tvguide@guide.example" && message.to == ["sam@example.org"])
        #expect(message.subject == "Café Society")
        #expect(message.body.hasPrefix("09:00 on BBC One, in 15 minutes\n\nhttp://guide.example/reminders"))
        #expect(message.messageID == "<tvguide-reminder-\(reminder.id.rawValue)-\(mailbox.id.rawValue)@guide.example>")

        // A wrong password is the server's 535: given up, not retried.
        settings.password = "wrong"
        let refused = rig.dispatcher(senders: ReminderSenders(transport: TestHTTP.outbound, mail: SMTPClient(settings: settings)))
        _ = try await rig.remind("Later", at: start)
        #expect(try await refused.sendDue() == ReminderDispatcher.Round(claimed: 1, failed: 1))
        #expect(try await rig.store.reminders(of: rig.profile.id, in: [.failed], limit: 1).first?.note?.description.contains("535") == true)
        #expect(receiver.messages.count == 1)
    }

    @Test func smtpAddressesAreRead() throws {
        let startTLS = try SMTPSettings.parse("smtp://sam%40home@mail.example.org", from: "tv@example.org", password: "x").get()
        #expect(startTLS.port == 587 && startTLS.security == .startTLS && startTLS.username == "sam@home" && startTLS.password == "x")
        #expect(try SMTPSettings.parse("smtps://mail.example.org", from: "tv@example.org", password: nil).get().port == 465)
        #expect(try SMTPSettings.parse("smtp+plain://127.0.0.1:25", from: "tv@example.org", password: nil).get().security == .none)
        #expect(throws: SMTPFailure.self) { try SMTPSettings.parse("smtp+plain://mail.example.org", from: "tv@example.org", password: nil).get() }
        #expect(throws: SMTPFailure.self) { try SMTPSettings.parse("http://mail.example.org", from: "tv@example.org", password: nil).get() }
        #expect(throws: SMTPFailure.self) { try SMTPSettings.parse("smtp://mail.example.org:70000", from: "tv@example.org", password: nil).get() }
        #expect(throws: SMTPFailure.self) { try SMTPSettings.parse("smtp://mail.example.org", from: "not an address", password: nil).get() }
    }
}
