import Foundation
import GuideStore
@testable import GuideStorePostgres
import NIOCore
import StoreTestSupport
import Testing

/// PostgreSQL's trigram index (``PostgresTrigramIndex``) adds rows without a conflict check only into an empty table;
/// its later writes append to the rows there. These run only on PostgreSQL.
@Suite(.enabled(if: TestDatabase.postgres != nil)) struct PostgresTrigramIndexTests {
    @Test func aWriteAfterTheFirstIntoAnEmptyTableAppendsToItsRows() async throws {
        let store = try #require(try await TestDatabase.open(in: TestScratch.folder("tvguide-postings"))
                                     as? PostgresListingStore)
        let (startsEmpty, runs) = try await store.pool.withConnection { link in
            var index = PostgresTrigramIndex(of: "body")
            index.holdsNoRow = try await link.value("SELECT NOT EXISTS (SELECT 1 FROM body_postings)", as: Bool.self)
                ?? false
            let startsEmpty = index.holdsNoRow
            // Two writes in one import, the second holding codes the first wrote ("new", "ews").
            try await index.add("news at ten", id: 1, on: link)
            try await index.write(on: link)
            try await index.add("news at nine", id: 2, on: link)
            try await index.write(on: link)
            let code = WordTrigrams.codes(of: "new")
            let runs = try await link.query("SELECT ids FROM body_postings WHERE code = ANY(\(code)::int4[])").map {
                try $0.decode(ByteBuffer.self).withUnsafeReadableBytes(TrigramPostings.ids(in:))
            }
            return (startsEmpty, runs)
        }
        #expect(startsEmpty && runs == [[1, 2]])
    }
}
