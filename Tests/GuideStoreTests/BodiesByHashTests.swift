import Foundation
import GRDB
import Testing
@testable import GuideStoreSQLite

/// An import finds stored bodies by hash, and reads all their hashes as it starts, through the index of the bodies
/// that keep their texts alone (v43): it read the whole body table as it started (0.5 M programmes: 0.04-0.10 s and
/// 31 MB of pages). PostgreSQL's index is the same (``OneSchemaTests``).
@Suite struct BodiesByHashTests {
    @Test func storedBodiesAreReadThroughTheirIndex() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-bodies-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let store = try SQLiteListingStore(path: folder + "/guide.sqlite", now: { Date() })
        let plans = try await store.pool.read { db in
            let reads: [(String, StatementArguments)] = [(SQLiteImportSession.storedBodiesRead, []),
                                                         (SQLiteImportSession.bodiesOfHash, [Int64(5)])]
            return try reads.map { sql, arguments in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                    .map { $0["detail"] as String }.joined(separator: "; ")
            }
        }
        #expect(plans == ["SCAN body USING INDEX body_by_hash", "SEARCH body USING INDEX body_by_hash (hash=?)"])
    }
}
