import Foundation
import GuideCore
import GuideIngest
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import Testing
import XMLTV

/// An M3U playlist as a source: refreshed like any other, its entries kept (a failed refresh keeps the last ones),
/// matched to the guide's channels by tvg-id, then by name, or as an admin maps them, and shown by the API. On both
/// stores.
@Suite struct PlaylistSourceTests {
    static let now = Date(timeIntervalSince1970: 1_771_185_600)   // 2026-02-15 20:00 UTC
    static let listings = """
        <tv><channel id="bbc1.uk"><display-name>BBC One</display-name></channel>
        <channel id="itv1.uk"><display-name>ITV1</display-name></channel>
        <channel id="five.uk"><display-name>5</display-name><display-name>Channel 5</display-name></channel>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="bbc1.uk"><title>News</title></programme>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="itv1.uk"><title>Soap</title></programme>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="five.uk"><title>Film</title></programme>
        </tv>
        """
    static let playlist = """
        #EXTM3U x-tvg-url="https://guide.example/epg.xml.gz"
        #EXTINF:-1 tvg-id="bbc1.uk" tvg-name="BBC One" tvg-logo="https://logos.example/bbc1.png" tvg-chno="101" group-title="UK;Favourites",BBC One HD Ⓖ
        https://streams.example/bbc1.m3u8
        #EXTINF:-1 tvg-logo="https://logos.example/five.png" tvg-chno="105" group-title="UK",Channel 5 (720p)
        https://streams.example/five.m3u8
        #EXTINF:-1 tvg-chno="999",Mystery TV
        https://streams.example/mystery.m3u8
        #EXTINF:-1 tvg-id="evil.tv",Evil
        javascript:alert(1)//
        """

    /// A server with the listings and `playlist` as the source "iptv" (not refreshed yet), and the playlist's path.
    static func serverWithPlaylist() async throws -> (TestServer, String) {
        let server = try await TestServer(listings: listings, now: now)
        let path = server.folder + "/iptv.m3u"
        try FileManager.default.createDirectory(atPath: server.folder, withIntermediateDirectories: true)
        try playlist.write(toFile: path, atomically: true, encoding: .utf8)
        try await server.store.addSource(SourceDefinition(name: SourceName("iptv"), format: .m3u, location: path))
        return (server, path)
    }

    func refresh(_ server: TestServer) async throws -> SourceReport {
        try #require(try await server.scheduler.refresh([SourceName("iptv")]).first)
    }

    @Test func aPlaylistNumbersGroupsAndStreamsTheGuidesChannels() async throws {
        let (server, path) = try await Self.serverWithPlaylist()
        let generation = try await server.store.version().generation
        let report = try await refresh(server)
        #expect(report.outcome == .imported && report.channels == 4, "\(report)")
        #expect(try await server.store.version().generation > generation)
        #expect(try await server.store.playlistHeader(of: SourceName("iptv"))?.guideURLs == ["https://guide.example/epg.xml.gz"])
        // Offered on the source's channel page like any source's channels, by tvg-id, else by name.
        #expect(Set(try await server.store.sourceChannels(of: SourceName("iptv")).map(\.id.rawValue)) == ["bbc1.uk", "Channel 5 (720p)", "Mystery TV", "evil.tv"])

        try await server.run { client in
            var found = try await TestServer.apiChannels(client)
            // By tvg-id: the playlist's number, logo, groups and stream.
            #expect(found["bbc1.uk"]?["number"] as? String == "101" && found["bbc1.uk"]?["icon"] as? String == "https://logos.example/bbc1.png")
            #expect(found["bbc1.uk"]?["groups"] as? [String] == ["UK", "Favourites"])
            #expect(found["bbc1.uk"]?["stream"] as? String == "https://streams.example/bbc1.m3u8")
            // By name: "Channel 5 (720p)" is the guide's "Channel 5".
            #expect(found["five.uk"]?["number"] as? String == "105" && found["five.uk"]?["stream"] as? String == "https://streams.example/five.m3u8")
            #expect(found["itv1.uk"]?["stream"] == nil && found["itv1.uk"]?["groups"] as? [String] == [])
            // "Watch" on the now page and a programme's details opens the stream in the viewer's player.
            let watch = #"<a class="watch" href="https://streams.example/bbc1.m3u8" rel="noreferrer">Watch</a>"#
            #expect(String(buffer: try await client.execute(uri: "/now", method: .get).body).contains(watch))
            let news = try #require(try await server.store.search(SearchQuery(["news"])).first)
            #expect(String(buffer: try await client.execute(uri: "/programmes/\(news.id.rawValue)", method: .get).body).contains(watch))

            // Its groups switch the now page and the grid to their channels (the script's rows too), in the address.
            let now = String(buffer: try await client.execute(uri: "/now", method: .get).body)
            #expect(now.contains(#"<a href="/now?group=Favourites" class="chip">Favourites</a>"#) && now.contains(">All channels</a>"))
            let favourites = String(buffer: try await client.execute(uri: "/now?group=Favourites", method: .get).body)
            #expect(favourites.contains("BBC One") && !favourites.contains("Channel 5") && !favourites.contains("ITV1"))
            let grid = String(buffer: try await client.execute(uri: "/?day=2026-02-15&group=UK&genre=news", method: .get).body)
            #expect(grid.contains(#"data-total="2""#) && grid.contains(#"data-group="UK""#) && grid.contains("&amp;genre=news&amp;group=UK"))
            let rows = try await client.execute(uri: "/grid/rows?day=2026-02-15&from=0&count=40&group=UK", method: .get)
            let rowIDs = ((try JSONSerialization.jsonObject(with: Data(buffer: rows.body)) as? [String: Any])?["rows"] as? [[String: Any]])?
                .compactMap { $0["id"] as? String }
            #expect(rowIDs == ["bbc1.uk", "five.uk"])
            // An admin maps the one nothing matched; it describes ITV1 at once.
            try await server.store.chooseSourceChannels([SourceChannel(id: ChannelID("Mystery TV"), name: "Mystery TV", keep: true,
                                                                       mappedTo: ChannelID("itv1.uk"))], of: SourceName("iptv"))
            found = try await TestServer.apiChannels(client)
            #expect(found["itv1.uk"]?["number"] as? String == "999" && found["itv1.uk"]?["stream"] as? String == "https://streams.example/mystery.m3u8")
            // Dropping one takes its description away.
            try await server.store.chooseSourceChannels([SourceChannel(id: ChannelID("bbc1.uk"), name: "BBC One HD Ⓖ", keep: false)],
                                                        of: SourceName("iptv"))
            #expect(try await TestServer.apiChannels(client)["bbc1.uk"]?["stream"] == nil)
        }

        // The guides its header names are offered as XMLTV sources on its page; one added says so.
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let page = String(buffer: try await admin.send(client, "/admin/source?name=iptv").body)
            #expect(page.contains("<code>https://guide.example/epg.xml.gz</code>") && page.contains("Add as an XMLTV source"))
            let added = try await admin.send(client, "/admin/sources", method: .post,
                                             form: ["name": "guide.example/epg.xml.gz", "format": "xmltv", "location": "https://guide.example/epg.xml.gz"])
            #expect(added.status == .ok)
            #expect(try await server.store.sources().contains { $0.definition.location == "https://guide.example/epg.xml.gz" && $0.definition.format == .xmltv })
            let after = String(buffer: try await admin.send(client, "/admin/source?name=iptv").body)
            #expect(after.contains(#"<span class="muted">added</span>"#) && !after.contains("Add as an XMLTV source"))
        }

        // A refresh that fails (the playlist is now a web page) keeps the entries there were.
        try "<html><body>Gone</body></html>".write(toFile: path, atomically: true, encoding: .utf8)
        let failed = try await refresh(server)
        #expect(failed.outcome == .failed && failed.error?.contains("not an M3U playlist") == true, "\(failed)")
        #expect(try await server.store.playlistCandidates().count == 4)
    }

    /// A feed's playlist (issue 30): the feed's channels that have a stream, each named as the feed's XMLTV names it, with
    /// the source's number, groups and stream, tvguide's logo, and the feed as its guide; what M3UReader reads back.
    @Test func aFeedIsAlsoAPlaylistNamingItsGuide() async throws {
        let (server, _) = try await Self.serverWithPlaylist()
        _ = try await refresh(server)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let page = String(buffer: try await admin.send(client, "/admin/feeds", method: .post,
                                                           form: ["name": "Kodi", "channels": "group:UK", "days": "7", "shape": "xmltv"]).body)
            let address = try #require(page.components(separatedBy: "IPTV Simple, TiviMate, Jellyfin's M3U tuner), with this guide named in it: <code>")
                .dropFirst().first?.components(separatedBy: "</code>").first)
            let response = try await client.execute(uri: try #require(URL(string: address)?.path), method: .get)
            #expect(response.status == .ok && response.headers[.contentType] == "audio/x-mpegurl; charset=utf-8")
            let text = String(buffer: response.body)
            let read = try M3UReader.read(Array(text.utf8))
            let guide = address.replacingOccurrences(of: ".m3u", with: ".xml")
            #expect(read.header?.guideURLs == [guide])
            #expect(read.entries.map(\.guideID) == ["bbc1.uk", "five.uk"] && read.entries.map(\.number) == ["101", "105"], "\(text)")
            #expect(read.entries.map(\.stream) == ["https://streams.example/bbc1.m3u8", "https://streams.example/five.m3u8"])
            #expect(read.entries.first?.groups == ["UK", "Favourites"] && read.entries.first?.guideName == "BBC One")
            // Logos from tvguide's cache, at the address the playlist was asked at.
            let base = try #require(address.range(of: "/xmltv/")).lowerBound
            #expect(read.entries.allSatisfy { $0.logo?.hasPrefix(address[..<base] + "/logo?") == true }, "\(text)")
            // The same channels, by the same ids, as the feed's XMLTV.
            let xmltv = String(buffer: try await client.execute(uri: try #require(URL(string: guide)?.path), method: .get).body)
            #expect(xmltv.contains(#"<channel id="bbc1.uk">"#) && xmltv.contains(#"<channel id="five.uk">"#))
            #expect(try await client.execute(uri: "/xmltv/" + String(repeating: "0", count: 43) + ".m3u", method: .get).status == .notFound)
        }
    }

    @Test func onlyStreamsAPlayerOpensAreLinked() {
        for good in ["https://s.example/a.m3u8", "http://s.example/a", "rtmp://s.example/live", "RTSP://s.example/1", "udp://@239.0.0.1:1234"] {
            #expect(GridRow.safeStream(good) == good)
        }
        for bad in ["javascript:alert(1)//", "javascript://%0aalert(1)", "data:text/html,<script>", "file:///etc/passwd", "vbscript://x", "//s.example/a", "", "stream"] {
            #expect(GridRow.safeStream(bad) == nil, "\(bad)")
        }
    }

    @Test func aPlaylistIsNotImportedAsListings() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        await #expect(throws: IngestError.self) { try await server.importListings(Self.playlist, as: "wrong") }
        #expect(try await server.store.channels().count == 3)
    }

    @Test func aHundredThousandEntriesInBatchesAndAFailureHalfWayKeepsTheOld() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.store.addSource(SourceDefinition(name: SourceName("big"), format: .m3u, location: "/nowhere.m3u"))
        let entry = { (index: Int) in PlaylistEntry(name: "Channel \(index)", guideID: "c\(index).tv", number: "\(index)", groups: ["All"],
                                                     stream: "http://streams.example/\(index)") }
        var batch = 0
        let stored = try await server.store.replacePlaylist(of: SourceName("big"), next: {
            defer { batch += 1 }
            return batch < 100 ? (0..<1000).map { entry(batch * 1000 + $0) } : nil
        }, header: { nil })
        #expect(stored == 100_000)
        let candidates = try await server.store.playlistCandidates()
        #expect(candidates.count == 100_000 && candidates[99_999].offeredID == ChannelID("c99999.tv") && candidates[99_999].matchKey == PlaylistEntry.matchKey("Channel 99999"))
        let last = try await server.store.playlistEntries([candidates[99_999].key, candidates[0].key])
        #expect(last[candidates[99_999].key] == entry(99_999) && last[candidates[0].key] == entry(0))
        struct Broken: Error {}
        batch = 0
        await #expect(throws: Broken.self) {
            try await server.store.replacePlaylist(of: SourceName("big"), next: {
                defer { batch += 1 }
                if batch == 3 { throw Broken() }
                return [entry(-1)]
            }, header: { nil })
        }
        #expect(try await server.store.playlistCandidates().count == 100_000)
    }

    /// `tvg-shift`: an entry an hour later than the channel its tvg-id names is a timeshift channel of its own, with
    /// the entry's name, number and stream; gone when the playlist no longer has it.
    @Test func aShiftedEntryIsATimeshiftChannel() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        let path = server.folder + "/iptv.m3u"
        try FileManager.default.createDirectory(atPath: server.folder, withIntermediateDirectories: true)
        try """
            #EXTM3U
            #EXTINF:-1 tvg-id="bbc1.uk" tvg-chno="101",BBC One
            https://streams.example/bbc1.m3u8
            #EXTINF:-1 tvg-id="bbc1.uk" tvg-shift="1" tvg-chno="801" group-title="Plus one",BBC One +1
            https://streams.example/bbc1plus1.m3u8
            """.write(toFile: path, atomically: true, encoding: .utf8)
        try await server.store.addSource(SourceDefinition(name: SourceName("iptv"), format: .m3u, location: path))
        _ = try await refresh(server)
        let plusOne = ChannelID("bbc1.uk+1")
        let day = TimeWindow(start: Self.now, end: Self.now + 86_400)
        let shifted = try await server.store.programmes(on: plusOne, in: day)
        #expect(shifted.map(\.programme.title) == ["News"] && shifted.first?.programme.start == Self.now + 3600)
        try await server.run { client in
            let found = try await TestServer.apiChannels(client)
            #expect(found["bbc1.uk+1"]?["name"] as? String == "BBC One +1" && found["bbc1.uk+1"]?["number"] as? String == "801")
            #expect(found["bbc1.uk+1"]?["stream"] as? String == "https://streams.example/bbc1plus1.m3u8")
            #expect(found["bbc1.uk+1"]?["groups"] as? [String] == ["Plus one"])
            #expect(found["bbc1.uk"]?["number"] as? String == "101" && found["bbc1.uk"]?["stream"] as? String == "https://streams.example/bbc1.m3u8")
        }
        // The playlist drops it: so does the guide.
        try """
            #EXTM3U
            #EXTINF:-1 tvg-id="bbc1.uk" tvg-chno="101",BBC One
            https://streams.example/bbc1.m3u8
            """.write(toFile: path, atomically: true, encoding: .utf8)
        _ = try await refresh(server)
        #expect(try await server.store.programmes(on: plusOne, in: day).isEmpty)
        #expect(try await server.store.guideSetting("timeshift_channels") == nil)
    }
}
