import Foundation
import GuideCore
import StoreTestSupport
import Testing
@testable import GuideStore

/// A programme's descriptions are kept once, with its body, for all the programmes that share them (v36,
/// ``DetailsCodec`` version 2), on both stores; rows stored before keep theirs inline and read as they did.
@Suite struct BodyTextsTests {
    static let news = "Nightly news from the capital."

    static func programme(_ channel: String, _ hour: Int, _ title: String, _ inner: String) -> String {
        let start = String(format: "202401011%d0000 +0000", hour)
        let stop = String(format: "202401011%d0000 +0000", hour + 1)
        return "<programme channel=\"\(channel)\" start=\"\(start)\" stop=\"\(stop)\"><title>\(title)</title>\(inner)"
            + "</programme>\n"
    }

    /// Two programmes with the same description in English, one with it in French, one whose description folds to
    /// nothing (a lone combining mark), and one with only a sub-title.
    static let guide = "<tv>\n"
        + programme("a", 0, "News", "<desc lang=\"en\">\(news)</desc>")
        + programme("b", 0, "News", "<desc lang=\"en\">\(news)</desc>")
        + programme("a", 1, "Nouvelles", "<desc lang=\"fr\">\(news)</desc>")
        + programme("b", 1, "Accent", "<desc>&#x301;</desc>")
        + programme("a", 2, "Parts", "<sub-title>Part one</sub-title>")
        + "</tv>\n"

    static let day = TimeWindow(start: StoreFixture.date("20240101000000"), end: StoreFixture.date("20240102000000"))

    /// Each programme's title, channel and descriptions, read in full.
    static func read(_ store: any GuideDatabase) async throws -> [String: [LocalizedText]] {
        var read: [String: [LocalizedText]] = [:]
        for listings in try await store.guide(in: day, channels: nil) {
            for stored in listings.programmes {
                let programme = stored.programme
                read["\(programme.title) on \(programme.channel.rawValue)"] = programme.descriptions
            }
        }
        return read
    }

    /// The first byte of each programme's details (its version), by title and channel.
    static func versions(_ backend: some SQLBackend) async throws -> [String: Data] {
        try await backend.reading { sql in
            var versions: [String: Data] = [:]
            for row in try await sql.rows("""
                SELECT p.title, c.id, substr(p.details, 1, 1) FROM programme p JOIN channel c ON c.key = p.channel_key
                """) {
                let key = "\(try row.value(0, as: String.self)) on \(try row.value(1, as: String.self))"
                versions[key] = try row.value(2, as: Data.self)
            }
            return versions
        }
    }

    @Test func aDescriptionIsKeptOnceForTheProgrammesThatShareIt() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importXML(Self.guide, source: "feed")
        let backend = try #require(fixture.store as? any SQLBackend)
        // Every programme reads back as it was given,
        let english = [LocalizedText(Self.news, language: "en")]
        let expected: [String: [LocalizedText]] = [
            "News on a": english, "News on b": english, "Nouvelles on a": [LocalizedText(Self.news, language: "fr")],
            "Accent on b": [LocalizedText("\u{301}")], "Parts on a": [],
        ]
        #expect(try await Self.read(fixture.store) == expected)
        // the two English ones from one body, which keeps the description, and the French one from another: the same
        // folded text, kept apart by what the body keeps;
        let bodies = try await backend.reading { sql in
            try await sql.rows("SELECT folded, texts FROM body ORDER BY id").map {
                (try $0.value(0, as: String.self), try $0.value(1, as: Data?.self))
            }
        }
        let folded = SearchText.fold(Self.news)
        #expect(bodies.filter { $0.0 == folded }.count == 2)
        #expect(bodies.allSatisfy { $0.1 != nil } && bodies.count == 3, "\(bodies)")
        #expect(try await backend.reading { sql in
            try await sql.value("SELECT count(DISTINCT body_id) FROM programme WHERE title = 'News'", as: Int64.self)
        } == 1)
        // their details leave the descriptions out (version 2), but not the one whose description folds to nothing,
        // which has no body to keep it.
        let versions = try await Self.versions(backend)
        #expect(versions["Accent on b"] == Data([1]))
        let apart = ["News on a", "News on b", "Nouvelles on a", "Parts on a"]
        #expect(apart.allSatisfy { versions[$0] == Data([2]) }, "\(versions)")
        // A summary (the grid's) reads no description, and keeps the sub-title.
        let at = StoreFixture.date("20240101123000")
        let summary = try await fixture.store.nowNext(at: at, channels: [ChannelID("a")], detail: .summary)
        #expect(summary.first?.now?.programme.subTitles == [LocalizedText("Part one")])
        #expect(summary.first?.now?.programme.descriptions == [])
    }

    @Test func rowsStoredBeforeKeepTheirDescriptionsInline() async throws {
        // Given a guide whose English news rows are as v35 stored them: descriptions inline, their body keeping none,
        let fixture = try await StoreFixture()
        try await fixture.importXML(Self.guide, source: "feed")
        let backend = try #require(fixture.store as? any SQLBackend)
        var stored = Programme(channel: ChannelID("a"), start: Date(), titles: [LocalizedText("News")])
        stored.descriptions = [LocalizedText(Self.news, language: "en")]
        let old = Data(DetailsCodec.encode(stored))
        try await backend.transaction { sql in
            _ = try await sql.execute("UPDATE programme SET details = \(old) WHERE title = 'News'")
            _ = try await sql.execute("""
                UPDATE body SET texts = NULL WHERE id IN (SELECT body_id FROM programme WHERE title = 'News')
                """)
        }
        // when another source brings the same description,
        let again = Self.programme("c", 0, "News", "<desc lang=\"en\">\(Self.news)</desc>")
        try await fixture.importXML("<tv>\n" + again + "</tv>\n", source: "other")
        // it gets a body of its own that keeps it, and every programme reads as it was given.
        let english = [LocalizedText(Self.news, language: "en")]
        let read = try await Self.read(fixture.store)
        #expect(read["News on a"] == english && read["News on b"] == english && read["News on c"] == english, "\(read)")
        #expect(try await Self.versions(backend)["News on c"] == Data([2]))
        #expect(try await backend.reading { sql in
            try await sql.value("SELECT count(DISTINCT body_id) FROM programme WHERE title = 'News'", as: Int64.self)
        } == 2)
    }

    @Test func aStoredBodyIsFoundByItsTextNotByItsKeyAlone() async throws {
        // Given a guide, and a second stored body under the English news body's key (its hash) with other texts: two
        // bodies that share a key, as a collision of the 64-bit hash would make them,
        let fixture = try await StoreFixture()
        try await fixture.importXML(Self.guide, source: "feed")
        let backend = try #require(fixture.store as? any SQLBackend)
        let decoy = Data(DetailsCodec.descriptions([LocalizedText("Decoy", language: "en")]))
        // (PostgreSQL's bodies keep their trigrams' codes as well: the decoy's are none, as it is never searched.)
        let insert: SQLText = fixture.location.hasPrefix("postgres") ? """
            INSERT INTO body (hash, folded, texts, trigrams) SELECT hash, 'decoy', \(decoy), '{}' FROM body
            WHERE id = (SELECT max(body_id) FROM programme WHERE title = 'News')
            """ : """
            INSERT INTO body (hash, folded, texts) SELECT hash, 'decoy', \(decoy) FROM body
            WHERE id = (SELECT max(body_id) FROM programme WHERE title = 'News')
            """
        try await backend.transaction { sql in _ = try await sql.execute(insert) }
        // when another source brings the same description (PostgreSQL's import starts from the stored bodies' keys),
        let again = Self.programme("c", 0, "News", "<desc lang=\"en\">\(Self.news)</desc>")
        try await fixture.importXML("<tv>\n" + again + "</tv>\n", source: "other")
        // it shares the news body, not the decoy that has its key.
        let read = try await Self.read(fixture.store)
        #expect(read["News on c"] == [LocalizedText(Self.news, language: "en")], "\(read)")
        #expect(try await backend.reading { sql in
            try await sql.value("SELECT count(DISTINCT body_id) FROM programme WHERE title = 'News'", as: Int64.self)
        } == 1)
    }

    @Test func aRefreshStartsFromTheStoredBodies() async throws {
        // Given a guide, when another source brings the stored news description and a new one on two programmes,
        let fixture = try await StoreFixture()
        try await fixture.importXML(Self.guide, source: "feed")
        let backend = try #require(fixture.store as? any SQLBackend)
        let count = {
            try await backend.reading { try await $0.value("SELECT count(*) FROM body", as: Int64.self) ?? 0 }
        }
        let before = try await count()
        let weather = "Rain later, clearing by the evening."
        let other = "<tv>\n" + Self.programme("c", 0, "News", "<desc lang=\"en\">\(Self.news)</desc>")
            + Self.programme("c", 1, "Weather", "<desc lang=\"en\">\(weather)</desc>")
            + Self.programme("d", 1, "Weather", "<desc lang=\"en\">\(weather)</desc>") + "</tv>\n"
        try await fixture.importXML(other, source: "other")
        // the news shares the stored body, and the new description gets one body, kept once for both.
        #expect(try await count() == before + 1)
        let read = try await Self.read(fixture.store)
        #expect(read["News on c"] == [LocalizedText(Self.news, language: "en")], "\(read)")
        #expect(read["Weather on c"] == [LocalizedText(weather, language: "en")], "\(read)")
        #expect(try await backend.reading { sql in
            try await sql.value("SELECT count(DISTINCT body_id) FROM programme WHERE title = 'News'", as: Int64.self)
        } == 1)
        // The same file again adds none.
        try await fixture.importXML(other, source: "other")
        #expect(try await count() == before + 1)
    }

    @Test func knownBodiesLeaveOutSharedKeysAndForgetPastTheirLimit() {
        var known = KnownBodies()
        known.know(stored: [(1, 10), (2, 20), (2, 21)])
        // A key one stored body has is known; one two share is not, and not new either: the store tells them apart.
        #expect(known[1] == 10 && known[2] == nil && !known.isNew(2))
        // Every stored body was given, so a key none has is new, until it is remembered.
        #expect(known.isNew(3))
        known.remember(30, for: 3)
        #expect(known[3] == 30 && !known.isNew(3))
        // Past the limit what was known goes, and with it the knowledge that an unknown key is new.
        for hash in 100..<Int64(100 + KnownBodies.limit) { known.remember(hash, for: hash) }
        #expect(known[1] == nil && !known.isNew(4) && !known.isNew(2))
        // Given as many stored bodies as it takes, it cannot know there were no more.
        var full = KnownBodies()
        full.know(stored: (0..<Int64(KnownBodies.mostStored)).map { ($0, $0) })
        #expect(!full.isNew(-1) && full[5] == 5)
    }

    @Test func detailsOfEitherVersionDecode() throws {
        let start = Date(unixSeconds: 1_700_000_000)
        var programme = Programme(channel: ChannelID("a"), start: start, titles: [LocalizedText("Film")])
        programme.descriptions = [LocalizedText("A long one.", language: "en")]
        programme.subTitles = [LocalizedText("Director's cut")]
        programme.categories = [LocalizedText("Drama")]
        programme.episodeNumbers = [EpisodeNumber(system: "xmltv_ns", value: "0.1.")]
        let inline = DetailsCodec.encode(programme), apart = DetailsCodec.encode(programme, descriptionsApart: true)
        let texts = DetailsCodec.descriptions(programme.descriptions)
        #expect(inline.first == 1 && apart.first == 2 && apart.count < inline.count)
        func decoded(_ details: [UInt8], _ descriptions: [UInt8]?, _ detail: ProgrammeDetail = .full) -> Programme? {
            details.withUnsafeBytes { details in
                guard let descriptions else {
                    return DetailsCodec.decode(details, channel: ChannelID("a"), start: start, stop: nil,
                                               detail: detail)
                }
                return descriptions.withUnsafeBytes {
                    DetailsCodec.decode(details, descriptions: $0, channel: ChannelID("a"), start: start, stop: nil,
                                        detail: detail)
                }
            }
        }
        #expect(decoded(inline, nil) == programme)
        #expect(decoded(apart, texts) == programme)
        // Version 1 ignores any descriptions given apart; version 2 without them has none.
        #expect(decoded(inline, DetailsCodec.descriptions([LocalizedText("Other")])) == programme)
        #expect(decoded(apart, nil)?.descriptions == [] && decoded(apart, [])?.categories == programme.categories)
        // A summary of either reads the same fields.
        let summary = decoded(inline, nil, .summary)
        #expect(summary != nil && summary == decoded(apart, nil, .summary))
        #expect(summary?.episodeNumbers == programme.episodeNumbers)
        // Damaged descriptions make the programme unreadable rather than wrong; an unknown version is unreadable.
        #expect(decoded(apart, Array(texts.dropLast())) == nil)
        #expect(decoded([3] + apart.dropFirst(), texts) == nil)
        // Counts past what the bytes hold, however large (LEB128 of 2^63 - 1, and of 10^9 texts), are refused.
        let hostile: [[UInt8]] = [[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
                                  [0x80, 0x94, 0xEB, 0xDC, 0x03, 1, 65]]
        for bytes in hostile { #expect(decoded(apart, bytes) == nil, "\(bytes)") }
    }
}
