import Foundation
import GuideCore
import GuideStore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The installable guide's server side: the manifest, the service worker's address, and the copy of the listings it
/// keeps (`/offline/listings`): which channels and days, panels the same as the server's, 304 when unchanged, and
/// bounded for a guest who asks again and again. (Browser tests: Tests/Browser/test_offline.py.)
@Suite struct OfflineGuideTests {
    static let now = Date(timeIntervalSince1970: 1_771_185_600)   // 2026-02-15 20:00 UTC

    /// 70 channels, four days from 05:00 on the 15th, a programme every two hours; "The Twice Show" on channel 0 at
    /// 21:00 on the 15th and the 16th.
    static var listings: String {
        var text = "<tv>"
        for channel in 0..<70 { text += #"<channel id="c\#(channel).tv"><display-name>Channel \#(channel)</display-name></channel>"# }
        let start = Date(timeIntervalSince1970: 1_771_131_600)   // 2026-02-15 05:00 UTC
        for channel in 0..<70 {
            for slot in 0..<48 {
                let begins = start.addingTimeInterval(Double(slot) * 7200)
                let title = channel == 0 && (slot == 8 || slot == 20) ? "The Twice Show" : "Programme \(channel)-\(slot)"
                text += #"<programme start="\#(Self.xmltv(begins))" stop="\#(Self.xmltv(begins.addingTimeInterval(7200)))" channel="c\#(channel).tv"><title>\#(title)</title><desc>About \#(title).</desc></programme>"#
            }
        }
        return text + "</tv>"
    }

    static func xmltv(_ date: Date) -> String {
        let c = CivilTime.components(Int64(date.timeIntervalSince1970))
        return String(format: "%04d%02d%02d%02d%02d%02d +0000", c.year, c.month, c.day, c.hour, c.minute, c.second)
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    struct Copy: Decodable {
        struct Day: Decodable {
            var day: String
            var start: Int64
            var page: String
            var rows: [Row]
        }

        /// A row as the grid's page has it: its markup.
        struct Row: Decodable {
            var index: Int
            var id: String
            var html: String

            /// The programmes the markup links to, with their titles.
            var cells: [Cell] {
                html.matches(of: /href="\/programmes\/(\d+)"[^>]*><span class="t" dir="auto">([^<]*)<\/span>/).compactMap { match in
                    Int64(match.output.1).map { Cell(id: $0, title: String(match.output.2)) }
                }
            }
        }

        struct Cell {
            var id: Int64
            var title: String
        }

        var format: Int
        var takenAt: Int64
        var viewer: String
        var channels: Int
        var days: [Day]
        var panels: [String: String]
        var panelsLeftOut: Int
        var pages: [String]
        var files: [String]
        var logos: [String]
    }

    @Test func aGuestsCopyIsTheFirst60ChannelsForThreeDaysWithTheServersPanels() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let jar = CookieJar()
            let answer = try await jar.send(client, "/offline/listings")
            #expect(answer.status == .ok)
            let tag = try #require(answer.headers[.eTag])
            let copy = try JSONDecoder().decode(Copy.self, from: Data(buffer: answer.body))
            #expect(copy.format == 2 && copy.viewer == "" && copy.takenAt == Int64(Self.now.timeIntervalSince1970))
            #expect(copy.channels == 60)
            #expect(copy.days.map(\.day) == ["2026-02-15", "2026-02-16", "2026-02-17"])
            #expect(copy.days.map(\.page) == copy.days.map { "/?day=\($0.day)&offline=1" })
            for day in copy.days {
                #expect(day.rows.map(\.id) == (0..<60).map { "c\($0).tv" })
                #expect(day.rows.allSatisfy { $0.cells.count == 12 || $0.cells.count == 13 })
            }
            let programmes = Set(copy.days.flatMap { $0.rows.flatMap { $0.cells.map(\.id) } })
            #expect(copy.panels.count == programmes.count && copy.panelsLeftOut == 0)
            #expect(copy.pages == ["/now", "/offline"] && copy.files.allSatisfy { $0.hasPrefix("/static/") })
            // A panel in the copy is the panel the server shows, other airings and all.
            let twice = try #require(copy.days[0].rows[0].cells.first { $0.title == "The Twice Show" })
            let panel = String(buffer: try await jar.send(client, "/programmes/\(twice.id)?part=panel").body)
            #expect(copy.panels["\(twice.id)"] == panel)
            #expect(panel.contains("Mon 16 Feb, 21:00"))
            // The worker's own copy is the worker's to answer.
            #expect(try await jar.send(client, "/offline/listings?kept").status == .notFound)
            // Unchanged: 304, nothing made.
            #expect(try await jar.send(client, "/offline/listings", headers: [.ifNoneMatch: tag]).status == .notModified)
            // The kept grid page has the kept channels.
            let page = String(buffer: try await jar.send(client, "/?day=2026-02-16&offline=1").body)
            #expect(page.contains(#"data-total="60""#))
            #expect(String(buffer: try await jar.send(client, "/?day=2026-02-16").body).contains(#"data-total="70""#))
            // A new import is a new copy.
            try await server.importListings(#"<tv><programme start="20260216100000 +0000" stop="20260216110000 +0000" channel="c1.tv"><title>Late change</title></programme></tv>"#, as: "late")
            #expect(try await jar.send(client, "/offline/listings", headers: [.ifNoneMatch: tag]).status == .ok)
            // The kept channels' logos are kept too, at tvguide's addresses.
            #expect(copy.logos.isEmpty)
            try await server.store.setChannelLogo("https://logos.example/c1.png", of: ChannelID("c1.tv"))
            let logos = try JSONDecoder().decode(Copy.self, from: Data(buffer: try await jar.send(client, "/offline/listings").body)).logos
            #expect(logos.count == 1 && logos[0].hasPrefix("/logo?c=c1.tv&v="))
        }
    }

    @Test func aProfilesCopyIsItsChosenChannelsAndItsOwn() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let guestTag = try await CookieJar().send(client, "/offline/listings").headers[.eTag]
            let admin = try await AccountTests.admin(client)
            let profile = try #require(try await server.store.profiles().first)
            try await server.store.setLineup(["c65.tv", "c3.tv", "c9.tv"].map { ChannelID($0) }, of: profile.id)
            let answer = try await admin.send(client, "/offline/listings")
            let copy = try JSONDecoder().decode(Copy.self, from: Data(buffer: answer.body))
            #expect(copy.viewer == "Ada" && copy.channels == 3)
            #expect(copy.days[1].rows.map(\.id) == ["c65.tv", "c3.tv", "c9.tv"])
            #expect(answer.headers[.eTag] != guestTag)
            #expect(copy.panels.values.contains { $0.contains("Remind me") })
        }
    }

    @Test func oneAddressMakesAtMost12CopiesIn10Minutes() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run(.live) { client in
            let jar = CookieJar()
            for _ in 0..<12 {
                #expect(try await jar.send(client, "/offline/listings", headers: [Self.forwardedFor: "203.0.113.5"]).status == .ok)
            }
            let refused = try await jar.send(client, "/offline/listings", headers: [Self.forwardedFor: "203.0.113.5"])
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] != nil)
            // Another address, and an unchanged copy, still get theirs.
            let other = try await jar.send(client, "/offline/listings", headers: [Self.forwardedFor: "203.0.113.6"])
            #expect(other.status == .ok)
            let tag = try #require(other.headers[.eTag])
            #expect(try await jar.send(client, "/offline/listings", headers: [Self.forwardedFor: "203.0.113.5", .ifNoneMatch: tag]).status == .notModified)
        }
    }

    @Test func theManifestAndTheServiceWorker() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let manifest = try await client.execute(uri: "/manifest.webmanifest", method: .get)
            #expect(manifest.headers[.contentType] == "application/manifest+json")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: manifest.body)) as? [String: Any])
            #expect(document["start_url"] as? String == "/now" && document["display"] as? String == "standalone")
            let icons = try #require(document["icons"] as? [[String: String]])
            for icon in icons {
                let answer = try await client.execute(uri: try #require(icon["src"]), method: .get)
                #expect(answer.status == .ok && answer.headers[.contentType] == "image/png")
                let bytes = [UInt8](Data(buffer: answer.body))
                let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
                #expect("\(width)x\(width)" == icon["sizes"])
            }
            let worker = try await client.execute(uri: "/sw.js", method: .get)
            #expect(worker.status == .ok && worker.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(worker.headers[.cacheControl] == "no-cache")
            #expect(String(buffer: worker.body).contains(#"const COPY = "/offline/listings";"#))
            let layout = String(buffer: try await client.execute(uri: "/now", method: .get).body)
            #expect(layout.contains(#"<link rel="manifest" href="/manifest.webmanifest">"#))
        }
    }
}
