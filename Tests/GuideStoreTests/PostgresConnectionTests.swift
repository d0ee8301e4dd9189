import Foundation
import GuideCore
import GuideStore
@testable import GuideStorePostgres
import StoreTestSupport
import Testing
import XMLTV

/// TLS to PostgreSQL and passwords kept off the command line. The throwaway server of `scripts/test` offers TLS with
/// a self-signed certificate for 127.0.0.1 (TVGUIDE_TEST_POSTGRES_CA); these run only on PostgreSQL.
@Suite(.enabled(if: TestDatabase.postgres != nil)) struct PostgresConnectionTests {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-tls").path

    @Test func addressesReadTheirTLSModeAndKeepPasswordsOutOfMessages() throws {
        let location = try PostgresLocation(url: "postgres://tv%40guide:s%3Acret@db.example:6543/guide?schema=g&sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(location.user == "tv@guide" && location.password == "s:cret")
        #expect(location.tls == .verifyFull && location.rootCertificate == "/etc/ca.pem")
        #expect(location.description == "postgres://tv@guide@db.example:6543/guide?schema=g&sslmode=verify-full")
        #expect(throws: StoreError.self) { try PostgresLocation(url: "postgres://u@h/db?sslmode=prefer") }
    }

    /// Every connection leaves out JIT compilation (the import's statements paid 0.2-0.3 s each for it) and keeps to
    /// its own schema.
    @Test func connectionsCompileNoQueries() async throws {
        let store = try #require(try await TestDatabase.open(in: Self.folder) as? PostgresListingStore)
        let (jit, path) = try await store.pool.withConnection { link in
            (try await link.value("SHOW jit", as: String.self), try await link.value("SHOW search_path", as: String.self))
        }
        #expect(jit == "off")
        #expect(path?.hasPrefix("t_") == true, "\(path ?? "none")")
    }

    /// A search of titles and descriptions asks their trigram indexes even where PostgreSQL would read the whole
    /// table (a guide this small, or one just imported whose indexes hold new entries in their pending lists): read
    /// whole, the 0.1 M guide's descriptions took 33-43 ms a word. The server counts each index's scans; a backend
    /// reports its counts within about ten seconds of going idle.
    @Test func textSearchesAskTheTrigramIndexes() async throws {
        let fixture = try await QueryTests.guide()
        let store = try #require(fixture.store as? PostgresListingStore)
        #expect(try await store.search(SearchQuery(["about", "film"], scope: .all)).map(\.programme.title) == ["The Big Film"])
        var scans: [String: Int64] = [:]
        for _ in 0..<60 where scans.count < 2 || scans.values.contains(0) {
            try await Task.sleep(for: .milliseconds(500))
            scans = try await store.pool.withConnection { link in
                var scans: [String: Int64] = [:]
                for row in try await link.query("""
                    SELECT indexrelname::text, idx_scan FROM pg_stat_user_indexes
                    WHERE schemaname = current_schema() AND indexrelname IN ('title_search', 'body_search')
                    """) {
                    let (name, count) = try row.decode((String, Int64).self)
                    scans[name] = count
                }
                return scans
            }
        }
        #expect(scans["title_search"] ?? 0 > 0 && scans["body_search"] ?? 0 > 0, "\(scans)")
    }

    /// The first import into a guide with no programmes builds the trigram indexes once at its end; later imports
    /// add to them. Each index is as its migration made it, and searches of titles and descriptions ask them.
    @Test func aFirstImportBuildsTheSearchIndexesAtItsEnd() async throws {
        let fixture = try await StoreFixture()
        let store = try #require(fixture.store as? PostgresListingStore)
        let indexes = { () async throws -> [String: (oid: Int64, definition: String)] in
            try await store.pool.withConnection { link in
                var found: [String: (oid: Int64, definition: String)] = [:]
                for row in try await link.query("""
                    SELECT c.relname, c.oid::bigint, pg_get_indexdef(c.oid) FROM pg_class c
                    WHERE c.relname IN ('title_search', 'body_search')
                      AND c.relnamespace = current_schema()::regnamespace
                    """) {
                    let (name, oid, definition) = try row.decode((String, Int64, String).self)
                    found[name] = (oid, definition)
                }
                return found
            }
        }
        let migrated = try await indexes()
        #expect(migrated.count == 2)
        try await fixture.importXML(StoreFixture.xml([("a", "20240101180000", "20240101183000", "Früh News"),
                                                      ("a", "20240101183000", "20240101190000", "Doctor Who")], channels: ["a"]))
        let first = try await indexes()
        for (name, made) in migrated {
            let built = try #require(first[name])
            #expect(built.oid != made.oid && built.definition == made.definition, "\(name): \(built) \(made)")
        }
        #expect(try await store.search(SearchQuery(["about", "doctor"], scope: .all)).map(\.programme.title) == ["Doctor Who"])
        #expect(try await store.search(SearchQuery(["octo"])).map(\.programme.title) == ["Doctor Who"])
        try await fixture.importXML(StoreFixture.xml([("b", "20240101180000", "20240101190000", "Weather Report")], channels: ["b"]),
                                    source: "other")
        #expect(try await indexes().mapValues(\.oid) == first.mapValues(\.oid))   // Added to, not built again.
        #expect(try await store.search(SearchQuery(["about weather"], scope: .all)).map(\.programme.title) == ["Weather Report"])
        // A later import's batch, probing stored bodies, never asks the trigram index for a whole description,
        // whatever the planner's costs say (after a first import built it, it did: 4-7 s a batch). Without the
        // hashes' index and told to take any index it can, the planner finds none for the probe.
        var batch = PostgresImportSession.Batch()
        (batch.wantedHashes, batch.wantedBodies) = ([1, 2], ["about doctor who", "about weather report"])
        var explain = batch.query(sourceID: 1, importID: 1)
        explain.sql = "EXPLAIN " + explain.sql
        let plan = try await store.pool.withConnection { link in
            try await link.execute("BEGIN")
            try await link.execute("DROP INDEX body_by_hash")
            try await link.execute("SET LOCAL enable_seqscan = off")
            let plan = try await link.query(explain).map { try $0.decode(String.self) }.joined(separator: "\n")
            try await link.execute("ROLLBACK")
            return plan
        }
        #expect(!plan.contains("body_search"), "\(plan)")
    }

    /// An import leaves nothing in the trigram indexes' pending lists, which every search reads through (at 0.1 M,
    /// 7.8 ms a term before they were emptied): emptying them again finds no page.
    @Test func anImportLeavesTheSearchIndexesNothingPending() async throws {
        let fixture = try await StoreFixture()
        let store = try #require(fixture.store as? PostgresListingStore)
        let pending = { (index: String) async throws -> Int64 in
            try await store.pool.withConnection { link in
                try await link.value("SELECT gin_clean_pending_list(\(index)::regclass)::bigint", as: Int64.self) ?? -1
            }
        }
        for (source, channel) in [("first", "a"), ("second", "b")] {
            let xml = StoreFixture.xml([(channel, "20240101180000", "20240101190000", "Weather \(source)")],
                                       channels: [channel])
            try await fixture.importXML(xml, source: source)
            #expect(try await pending("title_search") == 0, "after the \(source) import")
            #expect(try await pending("body_search") == 0, "after the \(source) import")
        }
    }

    /// A word of a trigram or less is looked for in the titles and descriptions packed in memory, or, when they are
    /// too many to keep, by the trigram indexes or (shorter) in the descriptions' table read in two halves at once:
    /// what both halves hold is found, here a word in every seventh of 400 descriptions over more than two pages.
    /// After an import the packed texts are read again.
    @Test func aShortWordIsFoundInEveryPartOfTheDescriptions() async throws {
        let fixture = try await StoreFixture()
        let store = try #require(fixture.store as? PostgresListingStore)
        var xml = "<tv><channel id=\"a\"><display-name>A</display-name></channel>\n"
        let start = StoreFixture.date("20240101000000")
        let stamp = { (date: Date) in XMLTVTimestamp.format(date) }
        for index in 0..<400 {
            let from = start.addingTimeInterval(Double(index) * 1800)
            let word = index % 7 == 0 ? "今日新闻" : "weather", more = String(repeating: "and more ", count: 15)
            xml += "<programme start=\"\(stamp(from))\" stop=\"\(stamp(from.addingTimeInterval(1800)))\" channel=\"a\">"
                + "<title>Show \(index)</title><desc>Item \(index): \(word) \(more)</desc>"
                + "</programme>\n"
        }
        try await fixture.importXML(xml + "</tv>\n")
        let pages = try await store.pool.withConnection { link in
            try await link.value("SELECT pg_relation_size('body') / current_setting('block_size')::bigint",
                                 as: Int64.self)
        }
        #expect(pages ?? 0 > 2)
        let search = { (term: String) in
            try await store.search(SearchQuery([term], scope: .all, limit: 1_000)).map(\.programme.title)
        }
        let expected = stride(from: 0, to: 400, by: 7).map { "Show \($0)" }
        // A word of one trigram ("wea"): the rest of the 400.
        let others = (0..<400).filter { $0 % 7 != 0 }.map { "Show \($0)" }
        // Read by the server (the titles and bodies too many to keep in memory), then from memory.
        store.shortTermLimit.store(0, ordering: .relaxed)
        #expect(try await search("新闻") == expected)
        #expect(try await search("wea") == others)
        #expect(try await store.shortTerms.withLock { $0?.task }?.value == nil)
        store.shortTermLimit.store(PostgresShortTerms.byteLimit, ordering: .relaxed)
        store.shortTerms.withLock { $0 = nil }
        #expect(try await search("wea") == others)
        #expect(try await store.shortTerms.withLock { $0?.task }?.value?.bodies.count == 400)
        #expect(try await search("新闻") == expected)
        // An import moves the guide on: what it added is found, from memory again.
        try await fixture.importXML("""
            <tv><channel id="b"><display-name>B</display-name></channel>
            <programme start="20240110000000 +0000" stop="20240110010000 +0000" channel="b">
            <title>Late</title><desc>新闻 at night</desc></programme></tv>
            """, source: "other")
        #expect(try await search("新闻") == expected + ["Late"])
        #expect(try await store.shortTerms.withLock { $0?.task }?.value?.bodies.count == 401)
    }

    /// While a first import holds the descriptions' table (it drops their index to build it at its end), a search of
    /// the empty guide answers at once: it asks the store nothing. Here another connection holds the same lock.
    @Test func aSearchOfAnEmptyGuideWaitsForNoImport() async throws {
        let store = try #require(try await StoreFixture().store as? PostgresListingStore)
        let found = try await store.pool.withConnection { link in
            try await link.execute("BEGIN")
            try await link.execute("DROP INDEX body_search")
            let first = try await withThrowingTaskGroup(of: [StoredProgramme]?.self) { group in
                group.addTask { try await store.search(SearchQuery(["news"], scope: .all)) }
                group.addTask { try await Task.sleep(for: .seconds(20)); return nil }
                let first = try await group.next() ?? nil
                group.cancelAll()
                try await link.execute("ROLLBACK")   // A search that did wait goes on, so the group can end.
                return first
            }
            return first
        }
        #expect(found?.isEmpty == true, "the search waited for the lock")
    }

    @Test func requireEncryptsAndVerifyFullChecksTheCertificate() async throws {
        let base = TestDatabase.location(in: Self.folder)
        // Encrypted, certificate not checked.
        let required = try await TestDatabase.open(base + "&sslmode=require")
        #expect(try await required.channels().isEmpty)
        // Checked against the system's authorities: a self-signed certificate is refused, saying why.
        do {
            _ = try await TestDatabase.open(base + "&sslmode=verify-full").channels()
            Issue.record("a self-signed certificate was accepted")
        } catch {
            #expect("\(error)".lowercased().contains("certificate"), "\(error)")
        }
        // Checked against the server's own certificate as the authority: accepted.
        if let ca = ProcessInfo.processInfo.environment["TVGUIDE_TEST_POSTGRES_CA"] {
            let verified = try await TestDatabase.open(base + "&sslmode=verify-full&sslrootcert=\(ca)")
            #expect(try await verified.channels().isEmpty)
        }
        await #expect(throws: StoreError.self) { try await TestDatabase.open(base + "&sslmode=verify-full&sslrootcert=/nonexistent.pem") }
    }
}
