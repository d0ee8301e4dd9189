import Foundation
import GuideCore
import Testing
import XMLTV

/// The M3U reader on real playlists (Free-TV/IPTV, Fixtures/m3u and ../shared/data/m3u) and on hostile ones. The
/// expected counts come from an independent reading of the same files (a few lines of Python with regular
/// expressions, run when the files were copied; see Fixtures/PROVENANCE.md).
@Suite struct M3UReaderTests {
    @Test func theUKPlaylist() throws {
        let (header, entries, repairs) = try M3UReader.read(Fixture.bytes("m3u/free-tv-playlist_uk.m3u8"))
        #expect(entries.count == 55 && repairs == M3UReader.Repairs())
        #expect(header?.guideURLs.count == 101)
        #expect(header?.guideURLs.first == "https://epgshare01.online/epgshare01/epg_ripper_AL1.xml.gz")
        #expect(entries.allSatisfy { $0.guideID != nil && $0.number != nil && $0.groups == ["UK"] && $0.logo != nil })
        let first = try #require(entries.first)
        #expect(first.name == "BBC One Ⓖ" && first.guideName == "BBC One" && first.guideID == "BBCOne.uk" && first.number == "1")
        #expect(first.stream == "https://vs-hls-pushb-uk-live.akamaized.net/x=4/i=urn:bbc:pips:service:bbc_one_yorks/iptv_hd_abr_v1.m3u8")
        #expect(first.attributes == ["tvg-country": "GB"])
        #expect(entries.last?.name == "BBC World Service" && entries.last?.number == "11")
    }

    @Test func theNewsPlaylistsGroups() throws {
        let entries = try M3UReader.read(Fixture.bytes("m3u/free-tv-playlist_zz_news_en.m3u8")).entries
        #expect(entries.count == 55)
        let groups = Dictionary(grouping: entries.flatMap(\.groups)) { $0 }.mapValues(\.count)
        #expect(groups == ["News": 40, "Business": 9, "Weather": 6])
    }

    @Test func theWholeFreeTVPlaylistReadInChunks() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../shared/data/m3u/free-tv-playlist.m3u8").standardized
        guard let bytes = try? [UInt8](Data(contentsOf: url)) else { return }  // A user's clone has no ../shared.
        var reader = M3UReader()
        var entries: [PlaylistEntry] = []
        var offset = 0
        while offset < bytes.count {   // 4 KB at a time, as a download arrives: lines cross the chunks
            reader.read(bytes[offset..<min(bytes.count, offset + 4096)]) { entries.append($0) }
            offset += 4096
        }
        try reader.finish { entries.append($0) }
        #expect(entries.count == 2059)
        #expect(entries.filter { $0.guideID != nil }.count == 1535)
        // 1,500 have a tvg-chno; 8 are placeholders ("-", "#") or longer than 16 characters.
        #expect(entries.filter { $0.number != nil }.count == 1492)
        #expect(entries.contains { $0.number == "CS363" })
        #expect(Set(entries.flatMap(\.groups)).count == 97)
        #expect(entries == (try M3UReader.read(bytes).entries))
    }

    @Test func namesMatchWithoutMarkersQualityOrBrackets() {
        let same = [("BBC One Ⓖ", "BBC One"), ("Channel 5 Ⓢ", "CHANNEL 5"), ("CNN International (720p) [Geo-blocked]", "CNN International"),
                    ("ARD HD", "ard"), ("Das Erste FHD Ⓨ", "Das Erste"), ("Télé-Québec", "tele quebec"), ("TF1 4K", "TF1")]
        for (playlist, guide) in same {
            #expect(PlaylistEntry.matchKey(playlist) == PlaylistEntry.matchKey(guide), "\(playlist)")
        }
        #expect(PlaylistEntry.matchKey("BBC One Ⓖ") == "bbcone")
        #expect(PlaylistEntry.matchKey("BBC Two") != PlaylistEntry.matchKey("BBC One"))
        #expect(PlaylistEntry.matchKey("5USA") == "5usa")
    }

    @Test func everyKindOfLineAndAttribute() throws {
        let text = """
            \u{FEFF}#EXTM3U url-tvg="http://a.example/guide.xml, http://b.example/guide.xml.gz" refresh="3600"\r
            #EXTINF:-1 tvg-id="one.example" tvg-name="One" tvg-chno=4.1 tvg-shift="-1.5" catchup="shift" catchup-days="7" catchup-source="?utc={utc}" group-title="News;Local",One HD\r
            #EXTGRP:Favourites\r
            #EXTVLCOPT:http-user-agent=Mozilla/5.0 (X11)\r
            #EXTVLCOPT:http-referrer=https://one.example/\r
            http://streams.example/one.m3u8\r
            #EXTINF:0 tvg-name="The "Best" Channel" tvg-logo="http://logos.example/best.png",The "Best" Channel, Live\r
            http://streams.example/best\r
            #EXTINF:-1,Bare Title\r
            rtmp://streams.example/bare\r
            """
        let (header, entries, repairs) = try M3UReader.read(Array(text.utf8))
        #expect(header?.guideURLs == ["http://a.example/guide.xml", "http://b.example/guide.xml.gz"])
        #expect(header?.attributes == ["refresh": "3600"])
        #expect(entries.count == 3 && repairs == M3UReader.Repairs())
        let one = entries[0]
        #expect(one.name == "One HD" && one.guideID == "one.example" && one.number == "4.1" && one.shiftHours == -1.5)
        #expect(one.groups == ["News", "Local", "Favourites"])
        #expect(one.catchup == PlaylistEntry.Catchup(kind: "shift", days: 7, source: "?utc={utc}"))
        #expect(one.playerOptions == ["http-user-agent": "Mozilla/5.0 (X11)", "http-referrer": "https://one.example/"])
        #expect(one.stream == "http://streams.example/one.m3u8")
        #expect(entries[1].guideName == #"The "Best" Channel"# && entries[1].logo == "http://logos.example/best.png")
        #expect(entries[1].name == #"The "Best" Channel, Live"#)
        #expect(entries[2].name == "Bare Title" && entries[2].stream == "rtmp://streams.example/bare" && entries[2].groups.isEmpty)
        // One byte at a time reads the same.
        var reader = M3UReader()
        var trickled: [PlaylistEntry] = []
        for byte in text.utf8 { reader.read([byte]) { trickled.append($0) } }
        try reader.finish { trickled.append($0) }
        #expect(trickled == entries)
    }

    @Test func hostilePlaylists() throws {
        // No #EXTM3U: read when it has entries (a documented repair); refused when it has none.
        let headless = try M3UReader.read(Array("#EXTINF:-1,One\nhttp://x.example/1\n".utf8))
        #expect(headless.entries.count == 1 && headless.repairs.missingHeader && headless.header == nil)
        #expect(throws: M3UReader.Failure.notAPlaylist) { try M3UReader.read(Array("<html><body>Not found</body></html>".utf8)) }
        #expect(throws: M3UReader.Failure.notAPlaylist) { try M3UReader.read([UInt8]()) }
        // A 1 MB line is skipped without being kept; the entries around it are read.
        var bytes = Array("#EXTM3U\n#EXTINF:-1,Before\nhttp://x.example/before\n#EXTINF:-1 tvg-logo=\"data:image/png;base64,".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "A"), count: 1 << 20)
        bytes += Array("\",Huge\nhttp://x.example/huge\n#EXTINF:-1,After\nhttp://x.example/after".utf8)
        let long = try M3UReader.read(bytes)
        #expect(long.entries.map(\.name) == ["Before", "After"])
        #expect(long.repairs.overlongLines == 1 && long.repairs.streamsWithoutInfo == 1)
        // Numbers out of range are left out and counted; the entry stays.
        let numbers = """
            #EXTM3U
            #EXTINF:-1 tvg-chno="99999999999999999999" tvg-shift="1e308" catchup-days="-1",A
            http://x.example/a
            #EXTINF:99999999999999999999999 tvg-chno="-" tvg-shift="nan" catchup-days="9223372036854775807",B
            http://x.example/b
            #EXTINF:-1 tvg-chno="7" tvg-shift="+2",C
            http://x.example/c
            """
        let read = try M3UReader.read(Array(numbers.utf8))
        #expect(read.entries.map(\.name) == ["A", "B", "C"])
        #expect(read.entries[0].number == nil && read.entries[0].shiftHours == nil && read.entries[0].catchup == nil)
        #expect(read.entries[2].number == "7" && read.entries[2].shiftHours == 2)
        #expect(read.repairs.numbersLeftOut == 6)
        // An entry whose stream never comes, streams with no entry, stray quotes and commas.
        let odd = """
            #EXTM3U
            http://x.example/orphan
            #EXTINF:-1 tvg-name="Unclosed,Name
            #EXTINF:-1 tvg-name=",",Comma
            http://x.example/comma
            #EXTINF:-1 tvg-id="no-title"
            http://x.example/untitled
            #EXTINF:-1 tvg-name="Last"
            """
        let strange = try M3UReader.read(Array(odd.utf8))
        #expect(strange.entries.map(\.name) == ["Comma", "no-title"])
        #expect(strange.entries[0].guideName == ",")
        #expect(strange.repairs.streamsWithoutInfo == 1 && strange.repairs.entriesWithoutStream == 2)
    }
}
