import Foundation
import GRDB
import Testing
@testable import GuideStoreSQLite

/// What a SQLite store sets up in its file and connections: the index of bodies by hash an import reads (v43), and
/// the WAL file's bound.
@Suite struct SQLiteFileTests {
    /// A new store in a scratch folder, for `body`; the folder goes afterwards.
    static func withStore<T>(_ body: (SQLiteListingStore) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        return try await body(try SQLiteListingStore(path: folder + "/guide.sqlite", now: { Date() }))
    }

    /// An import finds stored bodies by hash, and reads all their hashes as it starts, through the index of the bodies
    /// that keep their texts alone (v43): it read the whole body table as it started (0.5 M programmes: 0.04-0.10 s
    /// and 31 MB of pages). PostgreSQL's index is the same (``OneSchemaTests``).
    @Test func storedBodiesAreReadThroughTheirIndex() async throws {
        let plans = try await Self.withStore { store in
            try await store.pool.read { db in
                let reads: [(String, StatementArguments)] = [(SQLiteImportSession.storedBodiesRead, []),
                                                             (SQLiteImportSession.bodiesOfHash, [Int64(5)])]
                return try reads.map { sql, arguments in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                        .map { $0["detail"] as String }.joined(separator: "; ")
                }
            }
        }
        #expect(plans == ["SCAN body USING INDEX body_by_hash", "SEARCH body USING INDEX body_by_hash (hash=?)"])
    }

    /// The WAL file is cut back to ``SQLiteListingStore/walKept`` once written past it: with a connection open
    /// (serve's always are) it stayed at its largest, 138 MB after an import of 0.5 M programmes (64 MB after the next
    /// write with the limit, docs/performance.md). Every connection of the pool has it, the writer's and the readers'.
    @Test func everyConnectionCutsTheWALBack() async throws {
        let limit = "PRAGMA journal_size_limit"
        let (written, read) = try await Self.withStore { store in
            (try await store.pool.write { try Int.fetchOne($0, sql: limit) },
             try await store.pool.read { try Int.fetchOne($0, sql: limit) })
        }
        #expect(written == SQLiteListingStore.walKept && read == SQLiteListingStore.walKept)
    }
}
