import AsyncHTTPClient
import Foundation
import GuideCore
import GuideIngest
import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import Testing

/// The admin's source pages and routes: only admins reach them, forms need their token, a source added on the web
/// is fetched and merged, its channels chosen and mapped, health shows each channel, and the live progress arrives
/// as server-sent events from a real server.
@Suite struct SourcePagesTests {
    /// A second feed for the guide of WebTests: "One" under another id (to be mapped onto one.uk), and a new channel.
    static let feed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <tv>
          <channel id="1.other"><display-name>ONE</display-name></channel>
          <channel id="three.other"><display-name>Three</display-name></channel>
          <programme channel="1.other" start="20240101190000 +0000" stop="20240101200000 +0000"><title>Evening News</title></programme>
          <programme channel="1.other" start="20240101200000 +0000" stop="20240101210000 +0000"><title>Late Film</title></programme>
          <programme channel="three.other" start="20240101180000 +0000" stop="20240101230000 +0000"><title>Quiz Night</title></programme>
        </tv>
        """

    static func server() async throws -> (TestServer, String) {
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        let path = server.folder + "/other.xml"
        try Data(feed.utf8).write(to: URL(fileURLWithPath: path))
        return (server, path)
    }

    /// Waits for the refresh running now to end.
    static func settle(_ server: TestServer) async throws {
        for _ in 0..<400 {
            // Progress reads finished a moment before the refresher lets go of the source: wait for both.
            if let latest = server.scheduler.latest, latest.isFinished, try await server.scheduler.refreshing().isEmpty { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("the refresh did not finish within 10 s")
    }

    @Test func onlyAdminsReachSourcesAndFormsNeedTheirToken() async throws {
        let (server, path) = try await Self.server()
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/profiles", method: .post, form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            let kid = CookieJar()
            _ = try await kid.send(client, "/signin", method: .post, form: ["name": "Kid", "secret": "2468"])
            let guest = CookieJar()
            for page in ["/admin/sources", "/admin/source?name=other", "/admin/health", "/admin/refresh/events"] {
                #expect(try await guest.send(client, page).status == .seeOther, "\(page) sends a guest to sign in")
                #expect(try await kid.send(client, page).status == .forbidden, "\(page) refuses a viewer")
            }
            for (path, form) in [("/admin/sources", ["name": "evil", "location": path]), ("/admin/refresh", [:]),
                                 ("/admin/source/remove", ["name": "test"])] {
                #expect(try await kid.send(client, path, method: .post, form: form).status == .forbidden)
                // An admin's own browser, led by another site without the form token, is refused too.
                #expect(try await admin.send(client, path, method: .post, form: form, withToken: false).status == .forbidden)
            }
            #expect(try await server.store.sources().isEmpty)
            // The API: reading needs an admin; refreshing needs an admin's token, not a cookie.
            #expect(try await guest.send(client, "/api/sources").status == .unauthorized)
            #expect(try await kid.send(client, "/api/health").status == .forbidden)
            #expect(try await admin.send(client, "/api/sources").status == .ok)
            #expect(try await admin.send(client, "/api/refresh", method: .post).status == .unauthorized)
        }
    }

    @Test func anAdminAddsASourceMapsItsChannelsAndSeesHealth() async throws {
        let (server, path) = try await Self.server()
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let bad = try await admin.send(client, "/admin/sources", method: .post,
                                           form: ["name": "ftp", "format": "xmltv", "location": "ftp://example.org/guide.xml"])
            #expect(bad.status == .badRequest)
            #expect(String(buffer: bad.body).contains("only http, https and file locations can be fetched, not ftp"))

            let added = try await admin.send(client, "/admin/sources", method: .post,
                                             form: ["name": "other", "format": "xmltv", "location": path, "priority": "5",
                                                    "interval": "6", "refresh": "1"])
            #expect(added.status == .ok)
            #expect(String(buffer: added.body).contains("Added other; fetching its listings now"))
            try await Self.settle(server)
            let list = String(buffer: try await admin.send(client, "/admin/sources").body)
            #expect(list.contains("every 6 h"))
            #expect(list.contains(": 3 programmes, 0.0 MB, 0 repairs"))

            // Its channels: "ONE" is One by name, sure enough for the matcher to map it at the refresh, so its listings
            // went to one.uk already, where they win over the lower-priority "test" listings.
            let page = String(buffer: try await admin.send(client, "/admin/source?name=other").body)
            #expect(page.contains("2 channels offered, 2 kept; the matcher mapped 1, 0 wait for review."), "\(page)")
            #expect(page.contains(#"<input name="map.1.other" value="one.uk""#) && page.contains("sure: same name"))
            let one = try #require(try await server.store.sourceChannels(of: SourceName("other")).first { $0.id == ChannelID("1.other") })
            #expect(one.mappedTo == ChannelID("one.uk") && one.chosenBy == .matcher)
            let window = TimeWindow(start: WebTests.evening, end: WebTests.evening.addingTimeInterval(3 * 3600))
            func titles() async throws -> [String]? {
                try await server.store.guide(in: window, channels: [ChannelID("one.uk")], detail: .summary).first?.programmes.map(\.programme.title)
            }
            #expect(try await titles() == ["Doctor Who", "Evening News", "Late Film"])

            // A person who says it is its own channel is heard, and matching again does not undo it; mapping it back is
            // theirs too.
            func save(_ target: String) async throws -> String {
                String(buffer: try await admin.send(client, "/admin/source/channels", method: .post,
                                                    form: ["name": "other", "id": "1.other", "keep": "1.other", "map.1.other": target]).body)
            }
            #expect(try await save("").contains("Saved 1 channel."))
            let again = String(buffer: try await admin.send(client, "/admin/source/channels", method: .post, form: ["name": "other", "match": "1"]).body)
            #expect(again.contains("Matched 2 channels: 0 applied, 0 to review."), "\(again)")
            let kept = try await server.store.sourceChannels(of: SourceName("other")).first { $0.id == ChannelID("1.other") }
            #expect(kept?.mappedTo == nil && kept?.chosenBy == .person)
            #expect(try await save("one.uk").contains("Saved 1 channel."))
            #expect(try await server.store.sourceChannels(of: SourceName("other")).first { $0.id == ChannelID("1.other") }?.chosenBy == .person)
            let refused = try await admin.send(client, "/admin/source/channels", method: .post,
                                               form: ["name": "other", "id": "three.other", "keep": "three.other", "map.three.other": "nowhere"])
            #expect(refused.status == .badRequest)
            #expect(String(buffer: refused.body).contains("nowhere is not a guide channel"))

            // Refreshing again keeps them there.
            let refresh = try await admin.send(client, "/admin/refresh", method: .post, form: ["name": "other"])
            #expect(String(buffer: refresh.body).contains("Refreshing other; progress below."))
            try await Self.settle(server)
            #expect(try await titles() == ["Doctor Who", "Evening News", "Late Film"])

            // Health: per source and per channel, channels needing a look first.
            let health = String(buffer: try await admin.send(client, "/admin/health?all=1").body)
            #expect(health.contains(#"<tr data-source="other">"#))
            #expect(health.contains(#"<tr data-channel="three.other">"#))
            #expect(health.contains("ends in 4 h"))
            let json = try await admin.send(client, "/api/health")
            let document = try JSONSerialization.jsonObject(with: Data(buffer: json.body)) as? [String: Any]
            #expect((document?["sources"] as? [[String: Any]])?.first?["lastOutcome"] as? String == "imported")

            // Edits are checked; removal takes its listings away and the guide shows what was below again.
            let zone = try await admin.send(client, "/admin/source", method: .post,
                                            form: ["name": "other", "location": path, "priority": "5", "interval": "6", "zone": "Mars/Olympus"])
            #expect(zone.status == .badRequest && String(buffer: zone.body).contains("Mars/Olympus is not a time zone"))
            let removed = try await admin.send(client, "/admin/source/remove", method: .post, form: ["name": "other"])
            #expect(String(buffer: removed.body).contains("Removed other and its 3 programmes"))
            #expect(try await server.store.guide(in: window, channels: [ChannelID("one.uk")], detail: .summary).first?.programmes.map(\.programme.title) == ["Doctor Who"])
        }
    }

    /// A failed refresh is kept as what went wrong, and worded for whoever reads it: German and French on the health
    /// page, English in the JSON API.
    @Test func aFailedRefreshIsWordedInTheReadersLanguage() async throws {
        let (server, path) = try await Self.server()
        let missing = path + ".gone"
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/sources", method: .post,
                                     form: ["name": "gone", "format": "xmltv", "location": missing, "refresh": "1"])
            try await Self.settle(server)
            let german = String(buffer: try await admin.send(client, "/admin/health", headers: [.acceptLanguage: "de-DE"]).body)
            #expect(german.contains("keine Datei unter \(missing): den Pfad prüfen"), "\(german)")
            let french = String(buffer: try await admin.send(client, "/admin/sources", headers: [.acceptLanguage: "fr-FR"]).body)
            #expect(french.contains("aucun fichier à \(missing) : vérifiez le chemin"), "\(french)")
            let json = String(buffer: try await admin.send(client, "/api/health").body)
            #expect(json.contains("no file at \(missing): check the path"), "\(json)")
        }
    }

    @Test func progressArrivesLiveAsServerSentEvents() async throws {
        let (server, path) = try await Self.server()
        try await server.store.addSource(SourceDefinition(name: SourceName("other"), format: .xmltv, location: path))
        try await server.run(.live) { client in
            let admin = try await AccountTests.admin(client)
            let port = try #require(client.port)
            let token = String(buffer: try await admin.send(client, "/admin/tokens", method: .post, form: ["name": "bench", "scope": "refresh"]).body)
                .firstMatch(of: /<code id="new-token">([^<]+)<\/code>/).map { String($0.1) }
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/admin/refresh/events")
            request.headers.add(name: "Cookie", value: "tvguide_session=\(admin["tvguide_session"] ?? "")")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "content-type") == "text/event-stream; charset=utf-8")

            // Started through the API with the admin's token: 202 and the sources it started.
            var start = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/refresh")
            start.method = .POST
            start.headers.add(name: "Authorization", value: "Bearer \(try #require(token))")
            start.body = .bytes(ByteBuffer(string: #"{"sources": ["other"]}"#))
            let started = try await HTTPClient.shared.execute(start, timeout: .seconds(30))
            #expect(started.status == .accepted)
            #expect(String(buffer: try await started.body.collect(upTo: 1 << 16)).contains(#""started":["other"]"#))

            // Events until the refresh is reported finished: it was seen running first, then imported with its count.
            var text = ""
            var events: [[String: Any]] = []
            reading: for try await chunk in response.body {
                text += String(buffer: chunk)
                while let end = text.range(of: "\n\n") {
                    let block = String(text[..<end.lowerBound])
                    text.removeSubrange(..<end.upperBound)
                    guard block.hasPrefix("event: progress\ndata: ") else { continue }
                    let json = Data(block.dropFirst("event: progress\ndata: ".count).utf8)
                    let event = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
                    events.append(event)
                    if event["running"] as? Bool == false, !events.dropLast().isEmpty { break reading }
                }
            }
            #expect(events.first?["running"] as? Bool == true)
            let last = try #require(events.last?["sources"] as? [[String: Any]])
            #expect(last.first?["name"] as? String == "other")
            #expect(last.first?["phase"] as? String == "imported")
            let feeds = try #require(last.first?["feeds"] as? [[String: Any]])
            #expect(feeds.first?["bytes"] as? Int == Self.feed.utf8.count)
            #expect(feeds.first?["percent"] as? Int == 100)
        }
    }

    @Test func progressWatchersAreCappedPerClient() async throws {
        let (server, _) = try await Self.server()
        try await server.run(.live) { client in
            let admin = try await AccountTests.admin(client)
            let port = try #require(client.port)
            func watch(from address: String) async throws -> HTTPClientResponse {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/admin/refresh/events")
                request.headers.add(name: "Cookie", value: "tvguide_session=\(admin["tvguide_session"] ?? "")")
                request.headers.add(name: "X-Forwarded-For", value: address)
                return try await SignInAttackTests.http.execute(request, timeout: .seconds(30))
            }
            var open: [HTTPClientResponse] = []
            for _ in 0..<4 { open.append(try await watch(from: "192.0.2.10")) }
            #expect(open.allSatisfy { $0.status == .ok })
            let fifth = try await watch(from: "192.0.2.10")
            #expect(fifth.status == .tooManyRequests && fifth.headers.first(name: "retry-after") == "10")
            #expect(try await watch(from: "192.0.2.11").status == .ok, "another client still gets one")
        }
    }
}
