import Foundation
import GuideCore
import StoreTestSupport
import Testing
@testable import GuideStore

/// A programme's descriptions, credits and the rest an episode's airings share are kept once, with its body, for all
/// the programmes that share them (``DetailsCodec`` version 3; version 2 kept only the descriptions, from v36), on
/// both stores; rows stored before keep theirs as they were and read as they did.
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

    /// The condition on a programme's row that it is titled "News" (rows keep their titles only in their details: v40).
    static let isNews: StaticString = "title_id = (SELECT id FROM title WHERE folded = 'news')"

    /// How many bodies the programmes titled "News" share among them.
    static func newsBodies(_ backend: some SQLBackend) async throws -> Int64? {
        try await backend.reading { sql in
            try await sql.value("SELECT count(DISTINCT body_id) FROM programme WHERE \(raw: Self.isNews)",
                                as: Int64.self)
        }
    }

    /// The first byte of each programme's details (its version), by title and channel.
    static func versions(_ backend: some SQLBackend) async throws -> [String: Data] {
        try await backend.reading { sql in
            var versions: [String: Data] = [:]
            for row in try await sql.rows("""
                SELECT p.details, c.id FROM programme p JOIN channel c ON c.key = p.channel_key
                """) {
                let details = try row.value(0, as: Data.self)
                let title = details.withUnsafeBytes(DetailsCodec.title(of:)) ?? "?"
                versions["\(title) on \(try row.value(1, as: String.self))"] = details.prefix(1)
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
        #expect(try await Self.newsBodies(backend) == 1)
        // their details leave the descriptions out (version 3), but not the one whose description folds to nothing,
        // which has no body to keep it.
        let versions = try await Self.versions(backend)
        #expect(versions["Accent on b"] == Data([1]))
        let apart = ["News on a", "News on b", "Nouvelles on a", "Parts on a"]
        #expect(apart.allSatisfy { versions[$0] == Data([3]) }, "\(versions)")
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
            _ = try await sql.execute("UPDATE programme SET details = \(old) WHERE \(raw: Self.isNews)")
            _ = try await sql.execute("""
                UPDATE body SET texts = NULL WHERE id IN (SELECT body_id FROM programme WHERE \(raw: Self.isNews))
                """)
        }
        // when another source brings the same description,
        let again = Self.programme("c", 0, "News", "<desc lang=\"en\">\(Self.news)</desc>")
        try await fixture.importXML("<tv>\n" + again + "</tv>\n", source: "other")
        // it gets a body of its own that keeps it, and every programme reads as it was given.
        let english = [LocalizedText(Self.news, language: "en")]
        let read = try await Self.read(fixture.store)
        #expect(read["News on a"] == english && read["News on b"] == english && read["News on c"] == english, "\(read)")
        #expect(try await Self.versions(backend)["News on c"] == Data([3]))
        #expect(try await Self.newsBodies(backend) == 2)
    }

    /// Two airings of the news with the same credits and date, and one with the same description and others.
    static let credited: String = {
        let description = "<desc lang=\"en\">\(news)</desc>"
        let same = "<credits><director>Ann Lee</director><actor role=\"Cal\">Bo Ray</actor></credits><date>1999</date>"
        return "<tv>\n" + programme("a", 0, "News", description + same) + programme("b", 0, "News", description + same)
            + programme("a", 1, "News", description + "<credits><presenter>Di Fox</presenter></credits>") + "</tv>\n"
    }()

    /// Each programme's credits and date (or "-"), by channel and hour.
    static func credits(_ store: any GuideDatabase) async throws -> [String: [String]] {
        var read: [String: [String]] = [:]
        for listings in try await store.guide(in: day, channels: nil) {
            for stored in listings.programmes {
                let programme = stored.programme, hour = programme.start.unixSeconds % 86_400 / 3_600  // 10 and 11
                read["\(programme.channel.rawValue) \(hour)"] = programme.credits.map(\.name) + [programme.date ?? "-"]
            }
        }
        return read
    }

    @Test func creditsAreKeptWithTheBody() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importXML(Self.credited, source: "feed")
        let backend = try #require(fixture.store as? any SQLBackend)
        // Each reads back its own, the two alike from one body and the other from its own.
        let read = try await Self.credits(fixture.store), alike = ["Ann Lee", "Bo Ray", "1999"]
        #expect(read == ["a 10": alike, "b 10": alike, "a 11": ["Di Fox", "-"]], "\(read)")
        #expect(try await Self.newsBodies(backend) == 2)
    }

    @Test func rowsOfVersionTwoReadAsTheyDid() async throws {
        // Given rows as v36-v38 stored them: the descriptions with the body, the credits in the row (version 2),
        let fixture = try await StoreFixture()
        try await fixture.importXML(Self.credited, source: "feed")
        let backend = try #require(fixture.store as? any SQLBackend)
        var stored = Programme(channel: ChannelID("a"), start: Date(), titles: [LocalizedText("News")])
        stored.descriptions = [LocalizedText(Self.news, language: "en")]
        stored.credits = [Credit(role: .actor, name: "Ed Old")]
        let details = Data(DetailsCodec.encode(stored, layout: .descriptionsApart))
        let texts = Data(DetailsCodec.descriptions(stored.descriptions))
        try await backend.transaction { sql in
            _ = try await sql.execute("UPDATE programme SET details = \(details) WHERE \(raw: Self.isNews)")
            _ = try await sql.execute("""
                UPDATE body SET texts = \(texts) WHERE id IN (SELECT body_id FROM programme WHERE \(raw: Self.isNews))
                """)
        }
        // they read as they did.
        let read = try await Self.credits(fixture.store)
        #expect(read == ["a 10": ["Ed Old", "-"], "b 10": ["Ed Old", "-"], "a 11": ["Ed Old", "-"]], "\(read)")
        #expect(try await Self.read(fixture.store)["News on b"] == stored.descriptions)
    }

    @Test func aStoredBodyIsFoundByItsTextNotByItsKeyAlone() async throws {
        // Given a guide, and a second stored body under the English news body's key (its hash) with other texts: two
        // bodies that share a key, as a collision of the 64-bit hash would make them,
        let fixture = try await StoreFixture()
        try await fixture.importXML(Self.guide, source: "feed")
        let backend = try #require(fixture.store as? any SQLBackend)
        let decoy = Data(DetailsCodec.descriptions([LocalizedText("Decoy", language: "en")]))
        let insert: SQLText = """
            INSERT INTO body (hash, folded, texts) SELECT hash, 'decoy', \(decoy) FROM body
            WHERE id = (SELECT max(body_id) FROM programme WHERE \(raw: Self.isNews))
            """
        try await backend.transaction { sql in _ = try await sql.execute(insert) }
        // when another source brings the same description (PostgreSQL's import starts from the stored bodies' keys),
        let again = Self.programme("c", 0, "News", "<desc lang=\"en\">\(Self.news)</desc>")
        try await fixture.importXML("<tv>\n" + again + "</tv>\n", source: "other")
        // it shares the news body, not the decoy that has its key.
        let read = try await Self.read(fixture.store)
        #expect(read["News on c"] == [LocalizedText(Self.news, language: "en")], "\(read)")
        #expect(try await Self.newsBodies(backend) == 1)
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
        #expect(try await Self.newsBodies(backend) == 1)
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

    /// A programme with something in every field.
    static var everything: Programme {
        var programme = Programme(channel: ChannelID("a"), start: Date(unixSeconds: 1_700_000_000),
                                  titles: [LocalizedText("Film"), LocalizedText("Le film", language: "fr")])
        programme.descriptions = [LocalizedText("A long one.", language: "en")]
        programme.subTitles = [LocalizedText("Director's cut")]
        programme.credits = [Credit(role: .director, name: "Ann Lee"),
                             Credit(role: .actor, name: "Bo Ray", character: "Cal", isGuest: true, images: ["i.png"],
                                    urls: ["https://example.com/bo"])]
        programme.date = "1999"
        programme.categories = [LocalizedText("Drama")]
        programme.keywords = [LocalizedText("heist")]
        programme.language = LocalizedText("English")
        programme.originalLanguage = LocalizedText("French")
        programme.length = 5400
        programme.icons = [Icon(src: "https://example.com/film.png", width: 100, height: 50)]
        programme.urls = ["https://example.com/film"]
        programme.countries = [LocalizedText("FR")]
        programme.episodeNumbers = [EpisodeNumber(system: "xmltv_ns", value: "0.1.")]
        programme.video = Video(isPresent: true, isColour: false, aspect: "16:9", quality: "HDTV")
        programme.audio = Audio(isPresent: true, stereo: "stereo")
        programme.previouslyShown = PreviouslyShown(start: "19990101000000", channel: "b")
        programme.premiere = LocalizedText("First showing")
        programme.lastChance = LocalizedText("Last chance")
        programme.isNew = true
        programme.subtitles = [Subtitles(type: "teletext", language: LocalizedText("en"))]
        programme.ratings = [Rating(system: "BBFC", value: "15")]
        programme.starRatings = [Rating(value: "4/5")]
        programme.clumpIndex = "0/2"
        return programme
    }

    /// A programme started over (as the XMLTV reader makes each in the one before it) is a new one, whatever it
    /// held; one another copy shares is left as it is.
    @Test func aProgrammeStartedOverIsNew() {
        let start = Date(unixSeconds: 1_700_000_000), stop = Date(unixSeconds: 1_700_003_600)
        var used = Self.everything
        let shared = used
        let startedShared = used.startOver(channel: ChannelID("b"), start: stop, stop: nil)
        #expect(!startedShared)
        #expect(used == shared && used.title == "Film" && used.isNew)
        var unique = Self.everything
        let startedUnique = unique.startOver(channel: ChannelID("b"), start: start, stop: stop)
        #expect(startedUnique)
        #expect(unique == Programme(channel: ChannelID("b"), start: start, stop: stop, titles: []))
    }

    @Test func detailsOfEveryVersionDecode() throws {
        let programme = Self.everything
        let inline = DetailsCodec.encode(programme), apart = DetailsCodec.encode(programme, layout: .descriptionsApart)
        let airing = DetailsCodec.encode(programme, layout: .sharedApart)
        let texts = DetailsCodec.descriptions(programme.descriptions), kept = DetailsCodec.shared(programme)
        #expect(inline.first == 1 && apart.first == 2 && airing.first == 3)
        #expect(airing.count < apart.count && apart.count < inline.count)
        func decoded(_ details: [UInt8], _ kept: [UInt8]?, _ detail: ProgrammeDetail = .full) -> Programme? {
            details.withUnsafeBytes { details in
                guard let kept else {
                    return DetailsCodec.decode(details, channel: programme.channel, start: programme.start, stop: nil,
                                               detail: detail)
                }
                return kept.withUnsafeBytes {
                    DetailsCodec.decode(details, descriptions: $0, channel: programme.channel, start: programme.start,
                                        stop: nil, detail: detail)
                }
            }
        }
        #expect(decoded(inline, nil) == programme)
        #expect(decoded(apart, texts) == programme)
        #expect(decoded(airing, kept) == programme)
        // Version 1 ignores anything given apart; versions 2 and 3 without it have none of what the body keeps.
        #expect(decoded(inline, DetailsCodec.descriptions([LocalizedText("Other")])) == programme)
        #expect(decoded(apart, nil)?.descriptions == [] && decoded(apart, [])?.categories == programme.categories)
        let alone = decoded(airing, nil)
        #expect(alone?.descriptions == [] && alone?.credits == [] && alone?.date == nil)
        #expect(alone?.icons == programme.icons && alone?.episodeNumbers == programme.episodeNumbers)
        #expect(alone?.ratings == programme.ratings && alone?.clumpIndex == programme.clumpIndex)
        // A summary of every version reads the same fields.
        let summary = decoded(inline, nil, .summary)
        #expect(summary != nil && summary == decoded(apart, nil, .summary) && summary == decoded(airing, nil, .summary))
        #expect(summary?.episodeNumbers == programme.episodeNumbers && summary?.subTitles == programme.subTitles)
        #expect(summary?.categories == programme.categories && summary?.isNew == true && summary?.credits == [])
        // What a body keeps for one version is never taken for the other's: version 3's begins with 0, which no
        // version 2 descriptions do; each refuses the other's.
        #expect(kept.first == 0 && texts.first != 0)
        #expect(decoded(airing, texts) == nil && decoded(apart, kept) == nil)
        // Damaged texts make the programme unreadable rather than wrong; an unknown version is unreadable.
        #expect(decoded(apart, Array(texts.dropLast())) == nil && decoded(airing, Array(kept.dropLast())) == nil)
        #expect(decoded([4] + airing.dropFirst(), kept) == nil)
        // Counts past what the bytes hold, however large (LEB128 of 2^63 - 1, and of 10^9 texts), are refused.
        let hostile: [[UInt8]] = [[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
                                  [0x80, 0x94, 0xEB, 0xDC, 0x03, 1, 65]]
        for bytes in hostile {
            #expect(decoded(apart, bytes) == nil && decoded(airing, [0] + bytes) == nil, "\(bytes)")
        }
        // The title alone (what an import's repairs read back since v40), of every version; none of damaged bytes.
        for details in [inline, apart, airing] {
            #expect(details.withUnsafeBytes(DetailsCodec.title(of:)) == programme.title)
        }
        for damaged in [[], [4] + airing.dropFirst(), Array(airing.prefix(4))] + hostile.map({ [3] + $0 }) {
            #expect(damaged.withUnsafeBytes(DetailsCodec.title(of:)) == nil, "\(damaged)")
        }
    }

    /// Details and bodies longer than the room their writer starts with on the stack (``BinaryWriter/stackRoom``) move
    /// to the heap whole: a description of 3,000 characters, and 200 credits, read back as they were.
    @Test func detailsPastTheirWritersFirstRoomDecode() throws {
        var programme = Self.everything
        programme.descriptions = [LocalizedText(String(repeating: "Über ", count: 600), language: "de")]
        programme.credits = (0..<200).map { Credit(role: .actor, name: "Actor \($0)", character: "Part \($0)") }
        let inline = DetailsCodec.encode(programme), airing = DetailsCodec.encode(programme, layout: .sharedApart)
        let kept = DetailsCodec.shared(programme)
        #expect(inline.count > 3 * BinaryWriter.stackRoom && kept.count > 3 * BinaryWriter.stackRoom)
        let alone = inline.withUnsafeBytes {
            DetailsCodec.decode($0, channel: programme.channel, start: programme.start, stop: nil)
        }
        let apart = airing.withUnsafeBytes { details in
            kept.withUnsafeBytes {
                DetailsCodec.decode(details, descriptions: $0, channel: programme.channel, start: programme.start,
                                    stop: nil)
            }
        }
        #expect(alone == programme && apart == programme)
    }
}
