import BoxesReplay
import Foundation
import GuideApplication
import GuideCore
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import StoreTestSupport
import Testing

/// Recording from the pages, against the Tvheadend stand-in: an admin sets the recorder up, its channels suggested by
/// name, and lets a viewer record; "Record" on the details schedules it, the details and the grid's rows mark it, the
/// recordings page lists it, Cancel removes it there and on the recorder. Who may record is the route group's: a guest
/// is sent to sign in, a viewer not allowed gets 403. Hostile numbers refused. On both stores.
@Suite struct RecordingPagesTests {
    @Test func anAdminSetsUpTheRecorderAndAViewerRecords() async throws {
        let server = try await TestServer(listings: RecordingDeskTests.listings, now: RecordingDeskTests.now)
        let standIn = try await RecordingDeskTests.tvheadend()
        defer { Task { try? await standIn.stop() } }
        try await server.run(.live) { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/profiles", method: .post, form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            let kid = CookieJar()
            #expect(try await kid.send(client, "/signin", method: .post, form: ["name": "Kid", "secret": "2468"]).status == .seeOther)
            let who = try await RecordingDeskTests.programme(server, "bbc1.uk", at: RecordingDeskTests.evening)

            // Not allowed yet: no Record on the details, and the routes refuse.
            #expect(!String(buffer: try await kid.send(client, "/programmes/\(who.id.rawValue)?part=panel").body).contains("Record series"))
            #expect(try await kid.send(client, "/recordings").status == .forbidden)
            #expect(try await kid.send(client, "/recordings", method: .post, form: ["programme": "\(who.id.rawValue)", "series": "0"]).status == .forbidden)
            #expect(try await CookieJar().send(client, "/recordings").status == .seeOther)

            // The admin sets up Tvheadend; its channels are offered, matched by name ("BBC One HD" to BBC One).
            let setUp = try await admin.send(client, "/admin/recorder", method: .post,
                                             form: ["kind": "tvheadend", "address": "http://127.0.0.1:\(standIn.port)", "username": "tvguide",
                                                    "secret": "hunter2 & more"])
            let page = String(buffer: setUp.body)
            #expect(setUp.status == .ok && page.contains("Saved."), "\(page.prefix(500))")
            #expect(page.contains(#"<option value="\#(RecordingDeskTests.bbc)" selected>101 BBC One HD</option>"#), "\(page)")
            #expect(!page.contains("hunter2"))
            _ = try await admin.send(client, "/admin/recorder/channels", method: .post, form: [:],
                                     repeated: [("channel", "bbc1.uk"), ("recorder", RecordingDeskTests.bbc), ("channel", "five.uk"), ("recorder", "")])
            #expect(try await server.store.recorderChannels() == [ChannelID("bbc1.uk"): RecordingDeskTests.bbc])
            let kidID = try #require(try await server.store.profiles().first { $0.name == "Kid" }?.id)
            _ = try await admin.send(client, "/admin/recorder/profiles", method: .post, form: [:], repeated: [("may", "\(kidID.rawValue)")])

            // Search results offer Record on matched channels only.
            let found = String(buffer: try await kid.send(client, "/search?q=who").body)
            #expect(found.contains("record-quick") && found.contains(#"aria-label="Record Doctor Who""#), "\(found)")
            #expect(!String(buffer: try await kid.send(client, "/search?q=quiz").body).contains("record-quick"))

            // Now the kid records from the details.
            let panel = String(buffer: try await kid.send(client, "/programmes/\(who.id.rawValue)?part=panel").body)
            #expect(panel.contains("Record series") && panel.contains(#"action="/recordings""#))
            let recorded = try await kid.send(client, "/recordings", method: .post,
                                              form: ["programme": "\(who.id.rawValue)", "series": "0", "next": "/programmes/\(who.id.rawValue)"])
            #expect(recorded.status == .seeOther && recorded.headers[.location]?.hasPrefix("/programmes/\(who.id.rawValue)?done=") == true)
            try await Self.settle(server)
            #expect(standIn.recordingCount == 1)
            let marked = String(buffer: try await kid.send(client, "/programmes/\(who.id.rawValue)?part=panel").body)
            #expect(marked.contains("recording-state rec-scheduled") && marked.contains("Scheduled: Scheduled for recording"))
            #expect(String(buffer: try await kid.send(client, "/search?q=who").body).contains("rec-dot"))
            let rows = String(buffer: try await kid.send(client, "/grid/rows?day=2026-02-15&from=0&count=10").body)
            #expect(rows.contains(#" rec\" href=\"/programmes/"#))
            // A channel not matched to the recorder's: not offered, and refused with why.
            let quiz = try await RecordingDeskTests.programme(server, "five.uk", at: RecordingDeskTests.evening)
            #expect(!String(buffer: try await kid.send(client, "/programmes/\(quiz.id.rawValue)?part=panel").body).contains("Record series"))
            let unmatched = try await kid.send(client, "/recordings", method: .post, form: ["programme": "\(quiz.id.rawValue)", "series": "0"])
            #expect(unmatched.status == .badRequest && String(buffer: unmatched.body).contains("not matched"))

            // The recordings page lists it; Cancel removes it here and on the recorder.
            let list = String(buffer: try await kid.send(client, "/recordings").body)
            #expect(list.contains("Doctor Who") && list.contains("rec-scheduled"))
            let entry = try #require(try await server.store.recordings(limit: 10).first)
            #expect(try await kid.send(client, "/recordings/\(entry.id)/cancel", method: .post, form: [:]).status == .seeOther)
            let left = try await server.store.recordings(limit: 10)
            #expect(standIn.recordingCount == 0 && left.isEmpty)

            // A saved search that records what it finds: the match on a matched channel is asked of the recorder, once.
            let saved = try await kid.send(client, "/reminders/searches", method: .post, form: ["words": "who", "channels": "", "lead": "5", "records": "1"])
            #expect(saved.status == .seeOther)
            try await Self.settle(server)
            #expect(standIn.recordingCount == 1)
            #expect(String(buffer: try await kid.send(client, "/reminders").body).contains("and recorded"))
            let desk = RecordingDesk(store: server.store, transport: TestHTTP.transport, now: { RecordingDeskTests.now })
            #expect(try await desk.recordSavedSearches(at: RecordingDeskTests.now) == 0)
            #expect(standIn.recordingCount == 1)

            // Hostile numbers: refused, never a crash.
            for number in ["0", "-1", "9223372036854775807", "9223372036854775808", "1e9", "nan", String(repeating: "9", count: 40)] {
                #expect(try await kid.send(client, "/recordings", method: .post, form: ["programme": number, "series": "0"]).status.code < 500, "\(number)")
                #expect(try await kid.send(client, "/recordings/\(number)/cancel", method: .post, form: [:]).status.code < 500, "\(number)")
            }
            #expect(try await kid.send(client, "/recordings", method: .post, form: ["programme": "\(who.id.rawValue)", "series": "2"]).status == .badRequest)
            // A recorder address that is not one is refused.
            for address in ["ftp://x", "javascript:alert(1)", "http://user:pw@host", ""] {
                #expect(try await admin.send(client, "/admin/recorder", method: .post, form: ["kind": "tvheadend", "address": address]).status == .badRequest)
            }
        }
    }

    /// A page waits ``RecordingDesk/pageDeadline`` (3 s) for the recorder; on a loaded machine the stand-in can take
    /// longer, and then the request waits for the next sync, as it would for a slow recorder. That sync, run here: the
    /// recorder is asked again, and Tvheadend's client asks first whether it already has the recording, so it is made once.
    static func settle(_ server: TestServer) async throws {
        guard try await server.store.recordings(limit: 10).contains(where: { $0.state == .requested }) else { return }
        try await RecordingDesk(store: server.store, transport: TestHTTP.transport, now: { RecordingDeskTests.now }).sync()
    }
}
