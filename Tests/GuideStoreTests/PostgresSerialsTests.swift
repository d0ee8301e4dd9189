import Foundation
import GuideCore
import GuideStore
@testable import GuideStorePostgres
import StoreTestSupport
import Testing

/// PostgreSQL's import hands out its rows' ids itself from the tables' sequences (``PostgresImportSession/Serials``):
/// the next import goes on past them, and a sequence at the end of bigint refuses the import instead of trapping.
@Suite(.enabled(if: TestDatabase.postgres != nil)) struct PostgresSerialsTests {
    static func sequence(_ table: String, of store: PostgresListingStore) async throws -> Int64? {
        try await store.pool.withConnection { link in
            try await link.value("SELECT last_value FROM \(unescaped: table)_id_seq", as: Int64.self)
        }
    }

    @Test func theSequencesGoOnPastTheIdsAnImportHandedOut() async throws {
        let fixture = try await StoreFixture()
        let store = try #require(fixture.store as? PostgresListingStore)
        // Given an import of three programmes with two titles and two descriptions,
        try await fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "One"),
                                                      ("a", "20240101210000", "20240101220000", "Two"),
                                                      ("a", "20240101220000", "20240101230000", "One")]))
        let ids = try await store.pool.withConnection { link in
            try await link.query("SELECT max(id), (SELECT max(id) FROM title), (SELECT max(id) FROM body) FROM programme")
                .first?.decode((Int64, Int64, Int64).self)
        }
        // then each sequence stands at the highest id stored, for the next import to go on from.
        let (programme, title, body) = try #require(ids)
        #expect(try await Self.sequence("programme", of: store) == programme)
        #expect(try await Self.sequence("title", of: store) == title)
        #expect(try await Self.sequence("body", of: store) == body)
        #expect(title >= 2 && body >= 2)
    }

    @Test func anImportWhoseIdsWouldPassTheEndOfBigintIsRefusedAndChangesNothing() async throws {
        let fixture = try await StoreFixture()
        let store = try #require(fixture.store as? PostgresListingStore)
        try await fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "Kept")]))
        // Given a programme sequence 10 short of bigint's end,
        try await store.pool.withConnection { link in
            try await link.execute("SELECT setval('programme_id_seq', \(Int64.max - 10))")
        }
        // when a guide of 20 programmes is imported,
        let programmes = (0..<20).map { hour in
            ("a", "20240102\(hour / 10)\(hour % 10)0000", String?.none, "New \(hour)")
        }
        await #expect(throws: StoreError.self) { try await fixture.importXML(StoreFixture.xml(programmes)) }
        // then it is refused, and the guide is as it was.
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        #expect(try await fixture.store.programmes(on: ChannelID("a"), in: all).map(\.programme.title) == ["Kept"])
    }
}
