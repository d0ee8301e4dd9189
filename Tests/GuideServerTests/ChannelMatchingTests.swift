import Foundation
import GuideCore
import GuideIngest
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Issue 44 in the application: a playlist whose entries have no `tvg-id` is matched to the guide's channels at its
/// refresh. What the matcher is sure of is applied (a +1 to the +1, a Scotland feed to Scotland's, HD to the channel, a
/// call sign to its station); the rest waits on the source's page with ranked suggestions, where one press accepts or
/// corrects it; a person's choice survives the next refresh and match. On both stores.
@Suite struct ChannelMatchingTests {
    static let listings = """
        <tv><channel id="BBCOne.uk@London"><display-name>BBC One London</display-name></channel>
        <channel id="BBCOne.uk@Scotland"><display-name>BBC One Scotland</display-name></channel>
        <channel id="Channel5.uk"><display-name>Channel 5</display-name></channel>
        <channel id="Channel5Plus1.uk"><display-name>Channel 5 +1</display-name></channel>
        <channel id="WRICTV81.us"><display-name>WRIC-DT</display-name><display-name>ABC 8 Richmond</display-name></channel>
        <channel id="SkyNews.uk"><display-name>Sky News</display-name></channel>
        <channel id="SkySportsNews.uk"><display-name>Sky Sports News</display-name></channel>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="Channel5.uk"><title>Film</title></programme>
        </tv>
        """
    static let playlist = """
        #EXTM3U
        #EXTINF:-1 tvg-country="GB",BBC One Scotland HD
        https://streams.example/bbc1s.m3u8
        #EXTINF:-1 tvg-country="GB",Channel 5 +1
        https://streams.example/five1.m3u8
        #EXTINF:-1 tvg-country="GB",Channel 5 HD
        https://streams.example/five.m3u8
        #EXTINF:-1,ABC (WRIC) Richmond, VA HD
        https://streams.example/wric.m3u8
        #EXTINF:-1,Sky
        https://streams.example/sky.m3u8
        """

    static func server() async throws -> TestServer {
        let server = try await TestServer(listings: listings, now: PlaylistSourceTests.now)
        let path = server.folder + "/iptv.m3u"
        try FileManager.default.createDirectory(atPath: server.folder, withIntermediateDirectories: true)
        try playlist.write(toFile: path, atomically: true, encoding: .utf8)
        try await server.store.addSource(SourceDefinition(name: SourceName("iptv"), format: .m3u, location: path))
        return server
    }

    static func refresh(_ server: TestServer) async throws {
        let report = try #require(try await server.scheduler.refresh([SourceName("iptv")]).first)
        #expect(report.outcome == .imported || report.outcome == .unchanged, "\(report)")
    }

    static func channel(_ server: TestServer, _ id: String) async throws -> SourceChannel? {
        try await server.store.sourceChannels(of: SourceName("iptv")).first { $0.id == ChannelID(id) }
    }

    @Test func siblingsAreToldApartAndWhatIsSureIsApplied() async throws {
        let server = try await Self.server()
        try await Self.refresh(server)
        let entries = try await SourceMatching(store: server.store).match(SourceName("iptv"), apply: false)
        let by = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0) })
        // Regional, timeshift and quality siblings, and a call sign in a name.
        #expect(by["BBC One Scotland HD"]?.channel == "BBCOne.uk@Scotland" && by["BBC One Scotland HD"]?.applied == true, "\(entries)")
        #expect(by["Channel 5 +1"]?.channel == "Channel5Plus1.uk" && by["Channel 5 +1"]?.applied == true)
        #expect(by["Channel 5 HD"]?.channel == "Channel5.uk" && by["Channel 5 HD"]?.applied == true)
        #expect(by["ABC (WRIC) Richmond, VA HD"]?.channel == "WRICTV81.us", "\(String(describing: by["ABC (WRIC) Richmond, VA HD"]))")
        #expect(by["ABC (WRIC) Richmond, VA HD"]?.candidates.first?.why.contains("same call sign WRIC") == true)
        #expect(by["Channel 5 +1"]?.candidates.contains { $0.channel == "Channel5.uk" && $0.confidence >= SourceMatching.sureAt } == false)
        // "Sky" could be either Sky channel: it waits for a person, with both suggested.
        let sky = try #require(by["Sky"])
        #expect(sky.waitsForPerson && !sky.applied && sky.channel == nil)
        #expect(Set(sky.candidates.prefix(2).map(\.channel)) == ["SkyNews.uk", "SkySportsNews.uk"])
        // The playlist's entries describe the channels they were matched to: the stream of "Channel 5 HD" is Channel 5's.
        try await server.run { client in
            let found = try await TestServer.apiChannels(client)
            #expect(found["Channel5.uk"]?["stream"] as? String == "https://streams.example/five.m3u8")
            #expect(found["Channel5Plus1.uk"]?["stream"] as? String == "https://streams.example/five1.m3u8")
            #expect(found["BBCOne.uk@Scotland"]?["stream"] as? String == "https://streams.example/bbc1s.m3u8")
            #expect(found["BBCOne.uk@London"]?["stream"] == nil)
        }
    }

    @Test func theReviewQueueTakesOnePressAndAPersonsChoiceSurvives() async throws {
        let server = try await Self.server()
        try await Self.refresh(server)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let queue = String(buffer: try await admin.send(client, "/admin/source?name=iptv&show=review").body)
            #expect(queue.contains(#"data-channel="Sky""#) && !queue.contains(#"data-channel="Channel 5 HD""#), "\(queue)")
            #expect(queue.contains(#"name="pick.Sky" value="SkyNews.uk" class="link" autofocus"#) || queue.contains(#"name="pick.Sky" value="SkySportsNews.uk" class="link" autofocus"#))
            // One press: Sky is Sky News.
            let picked = try await admin.send(client, "/admin/source/channels", method: .post,
                                              form: ["name": "iptv", "show": "review", "pick.Sky": "SkyNews.uk"])
            #expect(String(buffer: picked.body).contains("Saved 1 channel."))
            #expect(!String(buffer: picked.body).contains(#"data-channel="Sky""#))
            let sky = try await Self.channel(server, "Sky")
            #expect(sky?.mappedTo == ChannelID("SkyNews.uk") && sky?.chosenBy == .person)

            // A person corrects what the matcher applied: "Channel 5 HD" is the +1 (say). A refresh and a match keep it.
            _ = try await admin.send(client, "/admin/source/channels", method: .post,
                                     form: ["name": "iptv", "id": "Channel 5 HD", "keep": "Channel 5 HD", "map.Channel 5 HD": "Channel5Plus1.uk"])
            try await Self.refresh(server)
            _ = try await SourceMatching(store: server.store).match(SourceName("iptv"), apply: true)
            #expect(try await Self.channel(server, "Channel 5 HD")?.mappedTo == ChannelID("Channel5Plus1.uk"))
            #expect(try await Self.channel(server, "Sky")?.mappedTo == ChannelID("SkyNews.uk"))
            // And the matcher's own mapping is still there.
            #expect(try await Self.channel(server, "Channel 5 +1")?.chosenBy == .matcher)
            // "None of these" takes an entry out of the queue and keeps it as itself.
            _ = try await admin.send(client, "/admin/source/channels", method: .post, form: ["name": "iptv", "pick.Sky": ""])
            let none = try await Self.channel(server, "Sky")
            #expect(none?.mappedTo == nil && none?.chosenBy == .person && none?.awaitsReview == false)
            // Hostile picks: a channel the guide does not have is refused; a source that is not there is not found.
            let refused = try await admin.send(client, "/admin/source/channels", method: .post, form: ["name": "iptv", "pick.Sky": "nowhere"])
            #expect(refused.status == .badRequest)
            #expect(try await admin.send(client, "/admin/source/channels", method: .post, form: ["name": "nothing", "match": "1"]).status.code < 500)
        }
    }

    /// A refresh matches only what was never matched (a big playlist is not matched again at every refresh); "Match
    /// again" looks at everything, and finds what a guide channel added since makes sure.
    @Test func aRefreshMatchesOnlyTheNewAndMatchAgainEverything() async throws {
        let server = try await Self.server()
        try await Self.refresh(server)
        #expect(try await Self.channel(server, "Sky")?.awaitsReview == true)
        try await server.importListings("""
            <tv><channel id="Sky.uk"><display-name>Sky</display-name></channel>
            <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="Sky.uk"><title>News</title></programme></tv>
            """, as: "more")
        try await Self.refresh(server)
        #expect(try await Self.channel(server, "Sky")?.candidates.contains { $0.channel == ChannelID("Sky.uk") } == false)
        let entries = try await SourceMatching(store: server.store).match(SourceName("iptv"), apply: true)
        #expect(entries.first { $0.name == "Sky" }?.candidates.first?.channel == "Sky.uk")
        #expect(try await Self.channel(server, "Sky")?.candidates.first?.channel == ChannelID("Sky.uk"))
    }

    /// What the guide already has mapped is evidence: a second playlist's "Sky" goes where a person put the first's.
    @Test func whatAPersonMappedElsewhereIsEvidence() async throws {
        let server = try await Self.server()
        try await Self.refresh(server)
        try await server.store.chooseSourceChannels([SourceChannel(id: ChannelID("Sky"), name: "Sky", keep: true, mappedTo: ChannelID("SkySportsNews.uk"),
                                                                   chosenBy: .person)], of: SourceName("iptv"))
        #expect(try await Self.channel(server, "Sky")?.chosenBy == .person)
        let path = server.folder + "/second.m3u"
        try "#EXTM3U\n#EXTINF:-1,SKY\nhttps://other.example/sky.m3u8\n#EXTINF:-1 group-title=\"United Kingdom\",Sky News HD\nhttps://other.example/news.m3u8\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        try await server.store.addSource(SourceDefinition(name: SourceName("second"), format: .m3u, location: path))
        _ = try await server.scheduler.refresh([SourceName("second")])
        let entries = try await SourceMatching(store: server.store).match(SourceName("second"), apply: false)
        let sky = try #require(entries.first { $0.name == "SKY" })
        #expect(sky.channel == "SkySportsNews.uk" && sky.applied, "\(sky)")
        #expect(sky.candidates.first?.why.hasPrefix("mapped by a person as “SKY” in another source") == true)
        // The rest is the matcher's as before; a group that is a country is the entry's country.
        let news = try #require(entries.first { $0.name == "Sky News HD" })
        #expect(news.candidates.first?.channel == "SkyNews.uk" && news.candidates.first?.why.contains("same country") == true, "\(news)")
    }

    /// A name that is no name: long, controls, direction overrides, emoji. Bounded, matched to nothing sure.
    @Test func badNamesAreBounded() async throws {
        let server = try await Self.server()
        let hostile = ["\u{202E}5 lennahC", String(repeating: "Zq", count: 5000), "\u{0000}\u{0007}\u{001B}[31m", "📺📺📺", ""]
        let body = "#EXTM3U\n" + hostile.enumerated().map { "#EXTINF:-1,\($0.element)\nhttps://streams.example/\($0.offset).m3u8" }
            .joined(separator: "\n")
        try body.write(toFile: server.folder + "/iptv.m3u", atomically: true, encoding: .utf8)
        try await Self.refresh(server)
        let entries = try await SourceMatching(store: server.store).match(SourceName("iptv"), apply: true)
        #expect(entries.allSatisfy { !$0.applied }, "\(entries.map { ($0.name.prefix(40), $0.channel ?? "-", $0.confidence) })")
    }
}
