import Foundation
import GuideCore
import GuideReminders
import GuideStore
import Hummingbird
import HummingbirdTesting
import StoreTestSupport
import TestReceivers
import Testing

/// "Remind me" and /reminders on the web: signed in and with the form token only; a reminder made from a programme,
/// a webhook channel added, its test arriving at a real receiver, cancelling.
@Suite struct RemindersPagesTests {
    static let now = Date(timeIntervalSince1970: 1_771_185_600)   // 2026-02-15 20:00 UTC
    static let listings = """
        <tv><channel id="bbc1.uk"><display-name>BBC One</display-name></channel>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="bbc1.uk"><title>News</title></programme>
        <programme start="20260215210000 +0000" stop="20260215223000 +0000" channel="bbc1.uk"><title>The Film</title></programme>
        <programme start="20260215223000 +0000" stop="20260215233000 +0000" channel="bbc1.uk"><title>Téléfilm 电影</title></programme>
        </tv>
        """

    @Test func remindMeNeedsASignedInProfileAndTheFormToken() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let film = try #require(try await server.store.search(SearchQuery(["film"])).first)
            let guest = CookieJar()
            let anonymous = try await guest.send(client, "/reminders", method: .post, form: ["programme": String(film.id.rawValue)])
            #expect(anonymous.status == .seeOther && anonymous.headers[.location]?.hasPrefix("/signin") == true)
            #expect(try await guest.send(client, "/reminders").status == .seeOther)
            let admin = try await AccountTests.admin(client)
            let forged = try await admin.send(client, "/reminders", method: .post, form: ["programme": String(film.id.rawValue)], withToken: false)
            #expect(forged.status == .forbidden)
            let profile = try #require(try await server.store.profiles().first)
            #expect(try await server.store.reminders(of: profile.id, in: Set(Reminder.State.allCases), limit: 10).isEmpty)
        }
    }

    @Test func remindMeThenATestToAWebhookThenCancel() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        let receiver = try await Receiver()
        try await server.run { client in
            let jar = try await AccountTests.admin(client)
            let film = try #require(try await server.store.search(SearchQuery(["film"])).first)
            // The details offer "Remind me" to a signed-in viewer, for a programme that has not ended.
            let panel = String(buffer: try await jar.send(client, "/programmes/\(film.id.rawValue)").body)
            #expect(panel.contains(#"<form action="/reminders" method="post" class="remind inline">"#))
            #expect(!String(buffer: try await CookieJar().send(client, "/programmes/\(film.id.rawValue)").body).contains("Remind me"))
            // The now page offers it on what is next, search results on what has not ended; neither to a guest.
            #expect(String(buffer: try await jar.send(client, "/now").body).contains(#"aria-label="Remind me of The Film""#))
            #expect(String(buffer: try await jar.send(client, "/search?q=film").body).contains(#"aria-label="Remind me of The Film""#))
            #expect(!String(buffer: try await CookieJar().send(client, "/search?q=film").body).contains("Remind me"))

            for hostile in ["9223372036854775807", "-1", "nan"] {
                #expect(try await jar.send(client, "/reminders", method: .post, form: ["programme": hostile]).status == .notFound)
            }
            let added = try await jar.send(client, "/reminders", method: .post, form: ["programme": String(film.id.rawValue), "lead": "30"])
            #expect(added.status == .seeOther && added.headers[.location]?.hasPrefix("/reminders?done=You%20will%20be%20reminded%20of%20The%20Film") == true)
            let page = String(buffer: try await jar.send(client, try #require(added.headers[.location])).body)
            #expect(page.contains("You will be reminded of The Film (Sun 15 Feb 21:00)."))
            #expect(page.contains("<strong dir=\"auto\">The Film</strong> <span class=\"when\">Sun 15 Feb 21:00</span> on <bdi>BBC One</bdi>, 30 min before"))
            // A title beyond ASCII comes back in an ASCII Location and reads the same on the page.
            let accented = try #require(try await server.store.search(SearchQuery(["telefilm"])).first).id.rawValue
            let other = try await jar.send(client, "/reminders", method: .post, form: ["programme": String(accented)])
            #expect(other.headers[.location]?.allSatisfy(\.isASCII) == true)
            #expect(String(buffer: try await jar.send(client, try #require(other.headers[.location])).body).contains("reminded of Téléfilm 电影"))
            let profile = try #require(try await server.store.profiles().first)
            try await server.store.cancelReminder(try #require(try await server.store.reminders(of: profile.id, in: [.pending], limit: 2).last).id,
                                                  of: profile.id, at: Self.now)
            let reminder = try #require(try await server.store.reminders(of: profile.id, in: [.pending], limit: 1).first)
            #expect(reminder.what.due == Self.now.addingTimeInterval(30 * 60) && reminder.what.stop == Self.now.addingTimeInterval(9000))

            // A channel that cannot work is refused; a webhook is added, and its test arrives, signed.
            let bad = try await jar.send(client, "/reminders/channels", method: .post,
                                         form: ["kind": "ntfy", "name": "Phone", "target": "https://ntfy.sh/"])
            #expect(bad.status == .badRequest)
            let hook = try await jar.send(client, "/reminders/channels", method: .post,
                                          form: ["kind": "webhook", "name": "Home", "target": receiver.url("/hook"), "secret": "k"])
            #expect(hook.status == .seeOther)
            let channel = try #require(try await server.store.deliveryChannels(of: profile.id).first)
            let tested = try await jar.send(client, "/reminders/channels/\(channel.id.rawValue)/test", method: .post, form: [:])
            #expect(tested.headers[.location] == "/reminders?done=Test%20sent%20to%20Home.")
            #expect(receiver.requests(to: "/hook").count == 1 && receiver.requests(to: "/hook").first?.json["event"] as? String == "test")
            #expect(receiver.requests(to: "/hook").first?.headers["x-tvguide-signature"]?.hasPrefix("sha256=") == true)
            #expect(String(buffer: try await jar.send(client, "/reminders").body).contains("<bdi>Home</bdi>: <bdi>Test</bdi> delivered"))

            // Cancelled once; a second time finds nothing waiting.
            let cancelled = try await jar.send(client, "/reminders/\(reminder.id.rawValue)/cancel", method: .post, form: [:])
            #expect(cancelled.status == .seeOther)
            #expect(try await server.store.reminders(of: profile.id, in: [.cancelled], limit: 5).contains { $0.id == reminder.id })
            #expect(try await jar.send(client, "/reminders/\(reminder.id.rawValue)/cancel", method: .post, form: [:]).status == .notFound)
        }
        try await receiver.stop()
    }

    /// The API: reading with any token, changing with an admin-scope token only; a programme reminded twice is one
    /// reminder; channels never show their secret.
    @Test func theAPIRemindsCancelsAndManagesChannels() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        let receiver = try await Receiver()
        try await server.run { client in
            let api = try await TokenCalls(client)
            let film = try #require(try await server.store.search(SearchQuery(["film"])).first).id.rawValue
            #expect(try await api.call("read", .post, "/api/reminders", #"{"programme": \#(film)}"#).0 == .forbidden)
            #expect(try await api.call("admin", .post, "/api/reminders", #"{"programme": \#(film), "leadMinutes": 1441}"#).0 == .badRequest)
            #expect(try await api.call("admin", .post, "/api/reminders", #"{"programme": 999999}"#).0 == .notFound)
            // Hostile numbers: answered 4xx, nothing stored.
            for body in [#"{"programme": 9223372036854775807}"#, #"{"programme": -1}"#, #"{"programme": 1e308}"#,
                         #"{"programme": 9223372036854775808}"#, #"{"programme": \#(film), "leadMinutes": -1}"#,
                         #"{"programme": \#(film), "leadMinutes": 9223372036854775807}"#, #"{"programme": \#(film), "leadMinutes": 1e308}"#,
                         #"{"programme": \#(film), "leadMinutes": NaN}"#] {
                let status = try await api.call("admin", .post, "/api/reminders", body).0
                #expect((400..<500).contains(Int(status.code)), "\(body): \(status)")
            }
            for path in ["/api/reminders/9223372036854775807", "/api/reminders/-1", "/api/reminders/1e308", "/api/delivery-channels/nan/test"] {
                let method: HTTPRequest.Method = path.hasSuffix("/test") ? .post : .delete
                #expect(try await api.call("admin", method, path).0 == .notFound, "\(path)")
            }
            #expect(try await api.call("read", .get, "/api/reminders").1["reminders"] as? [Any] != nil)
            #expect((try await api.call("read", .get, "/api/reminders").1["reminders"] as? [Any])?.isEmpty == true)
            let (status, reminder) = try await api.call("admin", .post, "/api/reminders", #"{"programme": \#(film), "leadMinutes": 5}"#)
            #expect(status == .created && reminder["title"] as? String == "The Film" && reminder["due"] as? String == "2026-02-15T20:55:00Z")
            #expect(try await api.call("admin", .post, "/api/reminders", #"{"programme": \#(film)}"#).1["id"] as? Int == reminder["id"] as? Int)
            let listed = try await api.call("read", .get, "/api/reminders").1["reminders"] as? [[String: Any]]
            #expect(listed?.count == 1 && listed?.first?["state"] as? String == "pending")

            let hook = #"{"kind": "webhook", "name": "Home", "target": "\#(receiver.url("/hook"))", "secret": "k"}"#
            #expect(try await api.call("read", .post, "/api/delivery-channels", hook).0 == .forbidden)
            #expect(try await api.call("admin", .post, "/api/delivery-channels", #"{"kind": "email", "name": "x", "target": "a@b.c"}"#).0 == .badRequest)
            let (added, channel) = try await api.call("admin", .post, "/api/delivery-channels", hook)
            #expect(added == .created && channel["hasSecret"] as? Bool == true && channel["secret"] == nil)
            let id = try #require(channel["id"] as? Int)
            #expect(try await api.call("admin", .post, "/api/delivery-channels/\(id)/test").1["delivered"] as? Bool == true)
            #expect(receiver.requests(to: "/hook").count == 1)
            #expect(try await api.call("admin", .delete, "/api/delivery-channels/\(id)").0 == .noContent)
            #expect(try await api.call("admin", .delete, "/api/delivery-channels/\(id)").0 == .notFound)
            #expect(try await api.call("admin", .delete, "/api/reminders/\(reminder["id"] as? Int ?? 0)").0 == .noContent)
            #expect(try await api.call("admin", .delete, "/api/reminders/\(reminder["id"] as? Int ?? 0)").0 == .notFound)
        }
        try await receiver.stop()
    }

    /// "Add to calendar" gives one event an independent reader reads: the airing's times, its channel, an alarm 15
    /// minutes before, and a UID of the channel and start that a refresh does not change.
    @Test(.enabled { await ICalendarPeer.isAvailable() }) func aProgrammeAddsToACalendar() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let film = try #require(try await server.store.search(SearchQuery(["film"])).first).id.rawValue
            let response = try await CookieJar().send(client, "/programmes/\(film)/calendar.ics")
            #expect(response.status == .ok && response.headers[.contentType] == "text/calendar; charset=utf-8")
            let text = String(buffer: response.body)
            let events = try await ICalendarPeer.read(text).events
            #expect(events.count == 1)
            #expect(events.first?.uid == "programme-1771189200-bbc1.uk@tvguide")
            #expect(events.first?.start == "2026-02-15T21:00:00+00:00" && events.first?.end == "2026-02-15T22:30:00+00:00")
            #expect(events.first?.summary == "The Film" && events.first?.location == "BBC One")
            #expect(events.first?.alarms == ["2026-02-15T20:45:00+00:00"])
            #expect(try await CookieJar().send(client, "/programmes/999999/calendar.ics").status == .notFound)
        }
    }

    /// "Tell me when a programme appears": what matches now is reminded at once, what a later import brings when
    /// it is checked, each once; channels are named by name or id; the words and channels are checked.
    @Test func savedSearchesRemindOfWhatMatches() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let jar = try await AccountTests.admin(client)
            let profile = try #require(try await server.store.profiles().first)
            #expect(try await jar.send(client, "/reminders/searches", method: .post, form: ["words": "film", "channels": "ITV"]).status == .badRequest)
            #expect(try await jar.send(client, "/reminders/searches", method: .post, form: ["words": "  "]).status == .badRequest)
            let saved = try await jar.send(client, "/reminders/searches", method: .post, form: ["words": "Film", "channels": "BBC One", "lead": "5"])
            #expect(saved.headers[.location] == "/reminders?done=Saved.%202%20programmes%20in%20the%20listings%20match%20it%20now.")
            let titles = { try await server.store.reminders(of: profile.id, in: [.pending], limit: 10).map(\.what.title) }
            #expect(try await titles() == ["The Film", "Téléfilm 电影"])
            #expect(try await server.store.reminders(of: profile.id, in: [.pending], limit: 1).first?.what.kind == .search)
            #expect(String(buffer: try await jar.send(client, "/reminders").body).contains("<strong dir=\"auto\">Film</strong> on bbc1.uk, 5 min before"))

            // A later import brings another; checking again reminds of it alone.
            try await server.importListings("""
                <tv><programme start="20260216210000 +0000" stop="20260216220000 +0000" channel="bbc1.uk"><title>Film Night</title></programme></tv>
                """, as: "more")
            #expect(try await SavedSearchReminders(store: server.store).run(at: Self.now) == 1)
            #expect(try await SavedSearchReminders(store: server.store).run(at: Self.now) == 0)
            #expect(try await titles() == ["The Film", "Téléfilm 电影", "Film Night"])
            let id = try #require(try await server.store.savedSearches(of: profile.id).first?.id)
            #expect(try await jar.send(client, "/reminders/searches/\(id)/remove", method: .post, form: [:]).status == .seeOther)
            #expect(try await server.store.savedSearches(of: profile.id).isEmpty)
        }
    }

    @Test func theAPISavesListsAndRemovesSearches() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let api = try await TokenCalls(client)
            #expect(try await api.call("read", .post, "/api/saved-searches", #"{"words": "film"}"#).0 == .forbidden)
            for bad in [#"{"words": " "}"#, #"{"words": "film", "channels": ["ITV"]}"#, #"{"words": "film", "leadMinutes": 1441}"#,
                        #"{"words": "film", "leadMinutes": -1}"#, #"{"words": "film", "leadMinutes": 1e308}"#,
                        #"{"words": "film", "leadMinutes": 9223372036854775808}"#, #"{"words": "\#(String(repeating: "a", count: 201))"}"#,
                        #"{"words": "film", "channels": [\#(Array(repeating: #""bbc1.uk""#, count: 51).joined(separator: ","))]}"#] {
                #expect(try await api.call("admin", .post, "/api/saved-searches", bad).0 == .badRequest, "\(bad.prefix(80))")
            }
            let (status, saved) = try await api.call("admin", .post, "/api/saved-searches", #"{"words": "Film", "channels": ["BBC One"], "leadMinutes": 5}"#)
            #expect(status == .created && saved["matched"] as? Int == 2 && saved["channels"] as? [String] == ["bbc1.uk"])
            let listed = try #require(try await api.call("read", .get, "/api/saved-searches").1["searches"] as? [[String: Any]])
            #expect(listed.count == 1 && listed[0]["words"] as? String == "Film" && listed[0]["leadMinutes"] as? Int == 5 && listed[0]["matched"] == nil)
            let reminders = try #require(try await api.call("read", .get, "/api/reminders").1["reminders"] as? [[String: Any]])
            #expect(reminders.map { $0["kind"] as? String } == ["search", "search"])
            let id = try #require(saved["id"] as? Int)
            for path in ["/api/saved-searches/9223372036854775807", "/api/saved-searches/-1", "/api/saved-searches/1e308"] {
                #expect([.badRequest, .notFound].contains(try await api.call("admin", .delete, path).0))
            }
            #expect(try await api.call("read", .delete, "/api/saved-searches/\(id)").0 == .forbidden)
            #expect(try await api.call("admin", .delete, "/api/saved-searches/\(id)").0 == .noContent)
            #expect(try await api.call("admin", .delete, "/api/saved-searches/\(id)").0 == .notFound)
            #expect((try await api.call("read", .get, "/api/saved-searches").1["searches"] as? [Any])?.isEmpty == true)
        }
    }
}

/// The API as a program calls it: an admin signs in and makes a token of each scope, read and admin.
struct TokenCalls {
    let client: any TestClientProtocol
    var tokens: [String: String] = [:]

    init(_ client: any TestClientProtocol) async throws {
        self.client = client
        let admin = try await AccountTests.admin(client)
        for scope in ["read", "admin"] {
            let created = String(buffer: try await admin.send(client, "/admin/tokens", method: .post, form: ["name": scope, "scope": scope]).body)
            tokens[scope] = try #require(created.firstMatch(of: /<code id="new-token">(tvg_[0-9a-f]{64})<\/code>/)).output.1.description
        }
    }

    /// `method` on `uri` with the token of `scope` and a JSON `body`: the status and the JSON object answered.
    func call(_ scope: String, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
        let response = try await client.execute(uri: uri, method: method,
                                                headers: [.authorization: "Bearer \(tokens[scope] ?? "")", .contentType: "application/json"],
                                                body: body.map { ByteBuffer(string: $0) })
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:])
    }
}
