import Foundation
import GuideCore
import GuideStore
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing
import TVMaze
import TVMazeReplay

/// Issue 44, point 4: a followed show's airings in the listings, by its own title and its other titles in the
/// viewer's languages, each linked to its episode, on the upcoming list, the show's page and in its reminders.
@Suite struct ListingAiringsTests {
    /// 2013-06-24 20:00 UTC, six hours before Under the Dome's pilot on CBS (02:00 UTC on the 25th).
    static let now = SeriesPagesTests.now
    /// The pilot in Hungarian on M1 (its sub-title says which), the second episode on BBC Two a week before CBS
    /// shows it (its numbering says which); neither channel is CBS.
    static let listings = """
        <tv><channel id="m1.hu"><display-name>M1</display-name></channel><channel id="bbctwo.uk"><display-name>BBC Two</display-name></channel>
        <programme start="20130625190000 +0000" stop="20130625200000 +0000" channel="m1.hu"><title lang="hu">A búra alatt</title><sub-title lang="hu">Pilot</sub-title></programme>
        <programme start="20130625210000 +0000" stop="20130625220000 +0000" channel="bbctwo.uk"><title>Under the Dome</title><episode-num system="xmltv_ns">0.1.</episode-num></programme>
        </tv>
        """

    @Test func airingsByTheShowsTitlesLinkedToEpisodesOnPagesAndInReminders() async throws {
        try await Self.following(Self.listings) { server, client, jar in
                let english = String(buffer: try await jar.send(client, "/upcoming", headers: [.acceptLanguage: "en-GB"]).body)
                #expect(english.contains("S01E02 The Fire airs on BBC Two, Tue 25 Jun 21:00"), "\(english)")
                #expect(!english.contains("M1"))
                // A Hungarian reader's listings carry the show by its Hungarian title (TVmaze's aka).
                let hungarian = String(buffer: try await jar.send(client, "/upcoming", headers: [.acceptLanguage: "hu-HU"]).body)
                #expect(hungarian.contains("S01E01 Pilot") && hungarian.contains("M1"), "\(hungarian)")
                #expect(hungarian.contains("S01E02 The Fire") && hungarian.contains("BBC Two"))

                // The show's page says the same.
                let page = String(buffer: try await jar.send(client, "/shows/1", headers: [.acceptLanguage: "en-GB"]).body)
                #expect(page.contains("In your listings") && page.contains("S01E02 The Fire airs on BBC Two, Tue 25 Jun 21:00"), "\(page)")

                // Reminders: the second episode at its first airing in the listings, on BBC Two (not CBS's a week
                // later); the pilot, which this profile's listings (English) do not carry, at CBS's airing.
                let profile = try #require(try await server.store.profiles().first)
                let reminders = EpisodeReminders(store: server.store, defaultZone: TimeZone(identifier: "Europe/London")!)
                try await reminders.sync(profile, at: Self.now)
                let pending = try await server.store.reminders(of: profile.id, in: [.pending], limit: 10).map(\.what).sorted { $0.start < $1.start }
                #expect(pending.map(\.title) == ["Under the Dome S01E01 Pilot", "Under the Dome S01E02 The Fire"])
                #expect(pending.map(\.channelName) == ["CBS", "BBC Two"] && pending.last?.channel == ChannelID("bbctwo.uk"))
                #expect(pending.last?.start == Date(timeIntervalSince1970: 1_372_194_000))

                // Watched already, its airing is a repeat: no reminder.
                #expect(try await jar.send(client, "/shows/1/watched", method: .post, form: ["scope": "episode", "episode": "2", "watched": "1"]).status == .seeOther)
                #expect(try await reminders.sync(profile, at: Self.now) == EpisodeReminders.Changes(dropped: 1))
                let after = try await server.store.reminders(of: profile.id, in: [.pending], limit: 10)
                #expect(after.map(\.what.title) == ["Under the Dome S01E01 Pilot"])
                let repeated = String(buffer: try await jar.send(client, "/shows/1", headers: [.acceptLanguage: "en-GB"]).body)
                #expect(repeated.contains("watched: a repeat"))
        }
    }

    /// A server on `listings` with TVmaze replayed, its admin following Under the Dome (TVmaze's show 1).
    static func following(_ listings: String, _ body: @Sendable (TestServer, any TestClientProtocol, CookieJar) async throws -> Void) async throws {
        let replay = try await ReplayServer()
        let server = try await TestServer(listings: listings, now: Self.now, tvmazeURL: replay.base)
        do {
            try await server.run { client in
                let jar = try await AccountTests.admin(client)
                #expect(try await jar.send(client, "/shows/1/follow", method: .post, form: ["next": "/upcoming"]).status == .seeOther)
                try await body(server, client, jar)
            }
        } catch {
            try await replay.stop()
            throw error
        }
        try await replay.stop()
    }

    /// A title aired more often before now than a search returns (1,100 hourly airings before 20:00) still has its
    /// coming airings found: on the upcoming list, and among a programme's other airings.
    @Test func manyPastAiringsHideNoComingOne() async throws {
        let hour = 3600.0
        let first = Self.now.timeIntervalSince1970 - 1_100 * hour
        let stamp = { (seconds: Double) -> String in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMddHHmmss"
            return formatter.string(from: Date(timeIntervalSince1970: seconds)) + " +0000"
        }
        let past = (0..<1_100).map { index in
            #"<programme start="\#(stamp(first + Double(index) * hour))" stop="\#(stamp(first + Double(index + 1) * hour))" channel="dome.us"><title>Under the Dome</title></programme>"#
        }.joined(separator: "\n")
        let listings = Self.listings.replacingOccurrences(of: "<tv>", with: #"<tv><channel id="dome.us"><display-name>Dome</display-name></channel>"#)
            .replacingOccurrences(of: "</tv>", with: past + "</tv>")
        try await Self.following(listings) { server, client, jar in
                let upcoming = String(buffer: try await jar.send(client, "/upcoming", headers: [.acceptLanguage: "en-GB"]).body)
                #expect(upcoming.contains("S01E02 The Fire airs on BBC Two, Tue 25 Jun 21:00"), "\(upcoming.prefix(2000))")
                // The first of the past airings: its other airings begin with the one to come.
                let earliest = try #require(try await server.store.search(SearchQuery(["Under the Dome"], limit: 1)).first)
                #expect(earliest.programme.channel == ChannelID("dome.us"))
                let page = String(buffer: try await jar.send(client, "/programmes/\(earliest.id.rawValue)", headers: [.acceptLanguage: "en-GB"]).body)
                #expect(page.contains("BBC Two"), "\(page.prefix(3000))")
        }
    }
}
