import Foundation
@testable import GuideCore
import Testing

@Suite struct GuideCoreTests {
    @Test(arguments: [
        ("2.9.0/1", XMLTVNSNumber(season: 3, episode: 10, part: 1, partCount: 1), "S3 E10"),
        ("1.4/8.", XMLTVNSNumber(season: 2, episode: 5, episodeCount: 8), "S2 E5 of 8"),
        (" . 11 . ", XMLTVNSNumber(episode: 12), "E12"),
        ("0/3.0.", XMLTVNSNumber(season: 1, seasonCount: 3, episode: 1), "S1 E1"),
    ])
    func parsesXMLTVNS(value: String, number: XMLTVNSNumber, label: String) {
        #expect(XMLTVNSNumber(parsing: value) == number)
        #expect(number.label == label)
        #expect(XMLTVNSNumber(parsing: number.xmltvValue) == number)
    }

    @Test func rejectsUnreadableXMLTVNS() {
        #expect(XMLTVNSNumber(parsing: "S01E02") == nil)
        #expect(XMLTVNSNumber(parsing: "..") == nil)
    }

    @Test func foldsCaseAndDiacritics() {
        #expect(SearchText.fold("Café CRÈME Ñandú") == "cafe creme nandu")
        #expect(SearchText.fold("ABC def") == "abc def")
        #expect(SearchQuery(["Doctor  Who", "who"]).terms == ["doctor", "who"])
        // A word that folds to nothing (lone combining marks; scripts/fuzz found one) is no term:
        // an empty one would match every programme.
        #expect(SearchQuery(["\u{301}", "\u{301}\u{308}", "news"]).terms == ["news"])
    }

    /// The byte-wise fold agrees with folding each character on its own (the definition) on every script the
    /// fixtures hold and on the edges of UTF-8: 2-, 3- and 4-byte characters, text ending in one, combining marks,
    /// characters whose folded form is longer.
    @Test func byteWiseFoldingAgreesWithFoldingEachCharacter() throws {
        func reference(_ text: String) -> String {
            text.unicodeScalars.map { $0.value < 0x80 ? String($0).lowercased() : SearchText.foldSlowly($0) }.joined()
        }
        var samples = ["", "plain", "ÀB", "Ωmega Ü", "İstanbul", "ﬃ ligature ﬁ", "e\u{301}\u{301}", "ẞ straße", "日本語のテレビ",
                       "😀 emoji 🇩🇪", "ends in ü", "ü", "\u{FDFA}", "MIXED ascii Then Ѐ Cyrillic", "\u{10FFFF}\u{E000}"]
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("XMLTVTests/Fixtures/peer-fixtures")
        for name in ["iptv-org-epg/epg.iptvx.one.content.xml", "iptv-org-epg/vantagetv.ee.content.xml", "node-xmltv/eu_listings.xml"] {
            let text = try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
            samples.append(contentsOf: text.split(separator: "\n").map(String.init))
        }
        for sample in samples {
            #expect(SearchText.fold(sample) == reference(sample), "\(sample)")
        }
    }

    @Test func resolvesLocalTimesAroundClockChanges() throws {
        let london = try #require(TimeZone(identifier: "Europe/London"))
        func local(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ min: Int) -> Int64 {
            Int64(CivilTime.days(year: y, month: m, day: d)) * 86_400 + Int64(h * 3600 + min * 60)
        }
        let ambiguous = local(2024, 10, 27, 1, 30)
        #expect(ZonedTime.utc(localSeconds: ambiguous, in: london, prefer: .earlier) == ambiguous - 3600)
        #expect(ZonedTime.utc(localSeconds: ambiguous, in: london, prefer: .later) == ambiguous)
        let summer = local(2024, 7, 1, 20, 0)
        #expect(ZonedTime.utc(localSeconds: summer, in: london) == summer - 3600)
        let gap = local(2024, 3, 31, 1, 30)
        #expect(ZonedTime.utc(localSeconds: gap, in: london) == gap)
    }

    @Test func gridColumnsAreProportionalAndClipped() {
        let start = Date(timeIntervalSince1970: 0)
        let window = TimeWindow(start: start, end: start.addingTimeInterval(3 * 3600))
        let airings = [(start.addingTimeInterval(-1800), start.addingTimeInterval(1800)),
                       (start.addingTimeInterval(1800), start.addingTimeInterval(5400)),
                       (start.addingTimeInterval(5400), start.addingTimeInterval(4 * 3600))]
        #expect(GridLayout.columns(for: airings, in: window, width: 180) == [0..<30, 30..<90, 90..<180])
    }

    @Test func formatsAndParsesISO8601() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(CivilTime.iso8601(date) == "2023-11-14T22:13:20Z")
        #expect(CivilTime.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(CivilTime.iso8601(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(CivilTime.iso8601(Date(timeIntervalSince1970: -30_610_224_000)) == "1000-01-01T00:00:00Z")
        #expect(CivilTime.iso8601(Date(timeIntervalSince1970: -30_610_224_001)) == "0999-12-31T23:59:59Z")
        // Instants are pinned to the years a guide can hold (0001-9999): nothing from outside converts past them.
        #expect(CivilTime.iso8601(Date(timeIntervalSince1970: 253_402_300_800)) == "9999-12-31T23:59:59Z")
        #expect(CivilTime.parseISO8601("2023-11-14T22:13:20Z") == date)
        #expect(CivilTime.parseISO8601("2023-11-14T23:13:20+01:00") == date)
        #expect(CivilTime.parseISO8601("2023-11-14T22:13Z") == date.addingTimeInterval(-20))
        #expect(CivilTime.parseISO8601("2023-11-14T23:13:20+0100") == date)
        #expect(CivilTime.parseISO8601("2023-11-14T17:13:20.250-05:00") == date)
        #expect(CivilTime.parseISO8601("2023-11-14T22:13:20z") == date)
        for bad in ["yesterday", "", "2023-11-14", "2023-11-14T22:13:20", "2023-13-14T22:13:20Z", "2023-02-29T00:00Z",
                    "2023-11-14T24:00:00Z", "2023-11-14T22:13:20Zjunk", "2023-11-14T22:13:20.Z", "2023-11-14T22:13:20+1"] {
            #expect(CivilTime.parseISO8601(bad) == nil, "\(bad)")
        }
    }
}
