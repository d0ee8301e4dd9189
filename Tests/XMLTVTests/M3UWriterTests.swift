import Foundation
import GuideCore
import Testing
import XMLTV

/// The M3U writer: what it writes, M3UReader reads back as it was given (the real Free-TV playlists' entries, with a
/// catch-up one); what a hostile source playlist holds stays inside its value.
@Suite struct M3UWriterTests {
    static func items(_ entries: [PlaylistEntry]) -> [M3UWriter.Item] {
        entries.enumerated().map { index, entry in
            M3UWriter.Item(guideID: entry.guideID ?? "channel\(index).tvguide", number: entry.number, name: entry.name,
                           logo: "https://guide.example/logos/\(index).png", entry: entry)
        }
    }

    @Test(arguments: ["m3u/free-tv-playlist_uk.m3u8", "m3u/free-tv-playlist_zz_news_en.m3u8"])
    func realPlaylistsReadBackAsTheyWere(file: String) throws {
        let entries = try M3UReader.read(Fixture.bytes(file)).entries
        let written = M3UWriter().playlist(Self.items(entries), guide: "https://guide.example/xmltv/abc.xml")
        let read = try M3UReader.read(Array(written.utf8))
        #expect(read.header?.guideURLs == ["https://guide.example/xmltv/abc.xml"])
        #expect(read.entries.count == entries.count && read.repairs == M3UReader.Repairs())
        for (index, (back, given)) in zip(read.entries, entries).enumerated() {
            var expected = given
            expected.guideID = given.guideID ?? "channel\(index).tvguide"
            expected.guideName = given.name
            expected.logo = "https://guide.example/logos/\(index).png"
            #expect(back == expected, "\(given.name)")
        }
    }

    @Test func catchUpShiftOptionsAndNumbersAreKept() throws {
        let entry = PlaylistEntry(name: "One HD", guideID: "one.example", number: "4.1", groups: ["News", "Local"], shiftHours: -1.5,
                                  catchup: .init(kind: "shift", days: 7, source: "?utc={utc}&lutc={lutc}"),
                                  playerOptions: ["http-user-agent": "Kodi/20"], stream: "http://tv.example/one.m3u8",
                                  attributes: ["tvg-country": "GB"])
        let written = M3UWriter().playlist([M3UWriter.Item(guideID: "one.example", number: "101", name: "One", logo: nil, entry: entry)],
                                           guide: nil)
        #expect(written == """
            #EXTM3U
            #EXTINF:-1 tvg-id="one.example" tvg-chno="101" tvg-name="One" group-title="News;Local" tvg-shift="-1.5" catchup="shift" \
            catchup-days="7" catchup-source="?utc={utc}&lutc={lutc}" tvg-country="GB",One
            #EXTVLCOPT:http-user-agent=Kodi/20
            http://tv.example/one.m3u8

            """)
        let back = try #require(try M3UReader.read(Array(written.utf8)).entries.first)
        #expect(back.catchup == entry.catchup && back.shiftHours == -1.5 && back.number == "101" && back.playerOptions == entry.playerOptions)
    }

    /// Line breaks and quotes in a source's names, addresses and attributes cannot add entries, lines or attributes.
    @Test func hostileValuesStayInsideTheirValue() throws {
        let entry = PlaylistEntry(name: "Evil\n#EXTINF:-1,Injected\nhttp://evil.example/", groups: ["A\" tvg-id=\"x"],
                                  playerOptions: ["http-referrer\nhttp://evil.example/opt": "x", "http-user-agent": "a\r\nhttp://evil.example/ua"],
                                  stream: "http://tv.example/one\nhttp://evil.example/stream",
                                  attributes: ["bad name": "1", "tvg-id": "shadowed", "x\"y": "2", "tvg-language": "en\"\ntvg-id=\"z"])
        let written = M3UWriter().playlist([M3UWriter.Item(guideID: "one.example", number: nil, name: entry.name, logo: "http://l.example/\"x\"",
                                                           entry: entry)], guide: "http://guide.example/\"\n#EXTINF")
        let lines = written.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5 && lines.filter { $0.hasPrefix("#EXTINF") }.count == 1, "\(written)")
        let read = try M3UReader.read(Array(written.utf8))
        let back = try #require(read.entries.first)
        #expect(read.entries.count == 1 && back.guideID == "one.example" && back.stream == "http://tv.example/one http://evil.example/stream")
        #expect(back.attributes["bad name"] == nil && back.attributes["x\"y"] == nil && back.attributes["tvg-language"] == "en' tvg-id='z")
        #expect(back.playerOptions.keys.sorted() == ["http-user-agent"])
    }
}
