import Foundation
import GRDB
import Testing
@testable import GuideStoreSQLite

/// The WAL file is cut back to ``SQLiteListingStore/walKept`` once written past it: with a connection open (serve's
/// always are) it stayed at its largest, 138 MB after an import of 0.5 M programmes (64 MB after the next write with
/// the limit, docs/performance.md). Every connection of the pool has it, the writer's and the readers'.
@Suite struct SQLiteWALTests {
    @Test func everyConnectionCutsTheWALBack() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-wal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let store = try SQLiteListingStore(path: folder + "/guide.sqlite", now: { Date() })
        let limit = "PRAGMA journal_size_limit"
        #expect(try await store.pool.write { try Int.fetchOne($0, sql: limit) } == SQLiteListingStore.walKept)
        #expect(try await store.pool.read { try Int.fetchOne($0, sql: limit) } == SQLiteListingStore.walKept)
    }
}
