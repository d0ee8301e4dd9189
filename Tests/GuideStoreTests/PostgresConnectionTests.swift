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
