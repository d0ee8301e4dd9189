import Foundation
import GuideCore
import GuideStore
import StoreTestSupport
import Testing
import XMLTV

/// Titles and descriptions no programme uses leave the store once a quarter of the programmes has gone since they
/// were last pruned (``TextPrune``), on both stores.
@Suite struct TextPruneTests {
    @Test func unusedTextsWaitUntilAQuarterOfTheProgrammesHasGone() async throws {
        // Given eight hours on channel a, each with its own title and description,
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml(Self.hours(8, on: "a", named: "Show")), source: "feed")
        let backend = try #require(fixture.store as? any SQLBackend)
        // when a second import of the same source replaces one of them (an eighth of the guide),
        try await fixture.importXML(StoreFixture.xml([("a", "20240101130000", "20240101140000", "New 3")]),
                                    source: "feed")
        // then the replaced title and description stay, unused, and no search reaches them;
        var (titles, bodies) = try await ImportTests.texts(backend)
        #expect(titles.contains("show 3") && bodies.contains("about show 3"))
        #expect(try await fixture.store.search(SearchQuery(["show", "3"], scope: .all)).isEmpty)
        #expect(try await fixture.store.search(SearchQuery(["new 3"], scope: .all)).map(\.programme.title) == ["New 3"])
        // and when a third replaces another (a quarter since the last prune), both go, with their trigrams.
        try await fixture.importXML(StoreFixture.xml([("a", "20240101150000", "20240101160000", "New 5")]),
                                    source: "feed")
        (titles, bodies) = try await ImportTests.texts(backend)
        #expect(titles == Set((0..<8).map { $0 == 3 || $0 == 5 ? "new \($0)" : "show \($0)" }))
        #expect(bodies == Set((0..<8).map { $0 == 3 || $0 == 5 ? "about new \($0)" : "about show \($0)" }))
        #expect(try await fixture.store.search(SearchQuery(["show", "5"], scope: .all)).isEmpty)
        try await ImportTests.expectSearchIndexesAgree(fixture)
    }

    @Test func aRemovedSourceCountsTowardsThePrune() async throws {
        // Given two sources of four hours each on their own channels,
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml(Self.hours(4, on: "a", named: "First")), source: "first")
        try await fixture.importXML(StoreFixture.xml(Self.hours(4, on: "b", named: "Second")), source: "second")
        // when the first is removed, its texts wait for an import that drops a programme,
        #expect(try await fixture.store.removeSource(SourceName("first")) == 4)
        let backend = try #require(fixture.store as? any SQLBackend)
        #expect(try await ImportTests.texts(backend).titles.contains("first 0"))
        // and go with it: four dropped and one more, against three stored.
        try await fixture.importXML(StoreFixture.xml([("b", "20240101100000", "20240101110000", "Again 0")]),
                                    source: "second")
        #expect(try await ImportTests.texts(backend).titles == ["again 0", "second 1", "second 2", "second 3"])
    }

    @Test func theStoredCountFollowsEveryImportAndRemoval() async throws {
        let fixture = try await StoreFixture()
        let backend = try #require(fixture.store as? any SQLBackend)
        func expectCounted(_ step: String) async throws {
            let (kept, counted, bySource) = try await backend.reading { sql in
                (try await sql.value("SELECT stored_programmes FROM guide_state", as: Int64.self),
                 try await sql.value("SELECT count(*) FROM programme", as: Int64.self),
                 try await sql.rows("""
                    SELECT s.stored_programmes, (SELECT count(*) FROM programme p WHERE p.source_id = s.id) FROM source s
                    """).map { [try $0.value(0, as: Int64.self), try $0.value(1, as: Int64.self)] })
            }
            #expect(kept == counted && counted ?? 0 > 0, "after \(step)")
            // Each source's own count too (v44).
            #expect(bySource.allSatisfy { $0[0] == $0[1] } && !bySource.isEmpty, "after \(step): \(bySource)")
        }
        // A guide of two channels with one programme in it twice,
        var rows = Self.hours(6, on: "a", named: "A") + Self.hours(6, on: "b", named: "B")
        rows.append(rows[2])
        let first = try await fixture.importXML(StoreFixture.xml(rows), source: "feed")
        #expect(first.programmes == 12)
        try await expectCounted("the first import")
        // three hours of it replaced by one,
        try await fixture.importXML(StoreFixture.xml([("a", "20240101120000", "20240101150000", "Long")]),
                                    source: "feed")
        try await expectCounted("a replacement")
        // channel b retired by an import that lists what it keeps,
        let retirement = try await fixture.store.importListings(from: SourceName("feed")) { sink in
            var reader = XMLTVReader()
            let emit: (XMLTVItem) throws -> Void = { item in
                if case .programme(let programme, let line) = item { sink.add(programme, line: line) }
            }
            try reader.feed(Array(StoreFixture.xml(Self.hours(2, on: "a", named: "Kept")).utf8), emit)
            try reader.finish(emit)
            sink.retire(allBut: [ChannelID("a")])
        }
        #expect(retirement.replaced >= 6)
        try await expectCounted("a retirement")
        // a second source on another channel, and then the first removed.
        try await fixture.importXML(StoreFixture.xml(Self.hours(3, on: "c", named: "C")), source: "other")
        try await expectCounted("a second source")
        #expect(try await fixture.store.removeSource(SourceName("feed")) > 0)
        try await expectCounted("a removal")
    }

    @Test func hostileCountsInTheStorePruneAndAreCountedAgain() async throws {
        // Counts written into guide_state by hand: PostgreSQL's bigint columns take integers only, SQLite's anything.
        func both(_ value: some SQLBindable) -> [SQLText] {
            ["UPDATE guide_state SET stored_programmes = \(value), dropped_since_prune = \(value)",
             "UPDATE source SET stored_programmes = \(value)"]
        }
        var updates: [(String, [SQLText])] = [(String(Int64.max), both(Int64.max)), ("-1", both(Int64(-1))),
                                            (String(Int64.min), both(Int64.min))]
        // (SQLite stores a NaN as NULL, which the columns refuse: no import could meet one.)
        if TestDatabase.postgres == nil {
            updates += [("1e308", both(1e308)), ("-1e308", both(-1e308)), ("'nan'", both("nan"))]
        }
        for (label, update) in updates {
            let fixture = try await StoreFixture()
            let backend = try #require(fixture.store as? any SQLBackend)
            try await fixture.importXML(StoreFixture.xml(Self.hours(4, on: "a", named: "Show")), source: "feed")
            try await backend.transaction { sql in for statement in update { try await sql.execute(statement) } }
            // An import that replaces one programme reads them without stopping, prunes, and counts again.
            try await fixture.importXML(StoreFixture.xml([("a", "20240101110000", "20240101120000", "New 1")]),
                                        source: "feed")
            let (kept, pending) = try await backend.reading { sql in
                (try await sql.value("SELECT stored_programmes FROM guide_state", as: Int64.self),
                 try await sql.value("SELECT dropped_since_prune FROM guide_state", as: Int64.self))
            }
            #expect(kept == 4 && pending == 0, "\(label)")
            // The source's count (v44), which no prune counts again, stays an integer within range, and the guide's
            // count is the guide's.
            let source = try await backend.reading { try await $0.value("SELECT stored_programmes FROM source", as: Int64.self) }
            #expect((0...(1 << 62) + 4).contains(source ?? -1), "\(label): \(String(describing: source))")
            #expect(try await fixture.store.counts().programmes == 4, "\(label)")
            #expect(!(try await ImportTests.texts(backend).titles.contains("show 1")), "\(label)")
        }
    }

    /// `count` hours on `channel` from 10:00 on 1 January 2024, titled `name` and the hour's number from 0.
    static func hours(_ count: Int, on channel: String, named name: String) -> [(String, String, String?, String)] {
        (0..<count).map { hour in (channel, "20240101\(10 + hour)0000", "20240101\(11 + hour)0000", "\(name) \(hour)") }
    }

    @Test func aPruneIsDueAtAQuarterAndCountsThatDoNotAddUpPruneAtOnce() {
        var counts = TextPrune(stored: 8, dropped: 0)
        var due = counts.count(change: 0, dropped: 1)
        #expect(!due && counts == TextPrune(stored: 8, dropped: 1))
        due = counts.count(change: 0, dropped: 1)
        #expect(due)
        counts.pruned(stored: 8)
        #expect(counts == TextPrune(stored: 8, dropped: 0))
        // Programmes added and none dropped: nothing to prune.
        due = counts.count(change: 5, dropped: 0)
        #expect(!due && counts.stored == 13)
        // Counts below 0 or past Int64, from a store that drifted or was edited by hand.
        let odd: [(Int64, Int64, Int, Int)] = [
            (.max, 0, 1, 0), (0, .max, 0, 1), (8, 0, -9, 1), (8, 0, 0, -1), (-8, 0, 0, 0), (8, -1, 0, 0),
            (.max, .max / 4, 0, 1), (.max, 0, .max, 0), (0, 0, .min, 0),
        ]
        for (stored, dropped, change, more) in odd {
            var counts = TextPrune(stored: stored, dropped: dropped)
            let due = counts.count(change: change, dropped: more)
            #expect(due, "\(stored) \(dropped) \(change) \(more)")
        }
        counts.pruned(stored: -3)
        #expect(counts == TextPrune(stored: 0, dropped: 0))
    }
}
