import GRDB
import GuideStore

extension SQLiteListingStore {
    /// Whether an import into this store starts with the file to itself: `readers` allows it, the store holds no
    /// programme yet and no other connection (another process, or this pool's readers) has the file open. Its writes
    /// then go through a rollback journal rather than the WAL, which journals only the pages the file had before
    /// (almost none), so that each new page is written once: through the WAL it is written there and again by the
    /// checkpoint that copies it into the file, 5 ms a MB on this machine (an import of 1.75 M programmes writes 381
    /// MB). The import is as atomic either way: a refused or cut file is rolled back from the journal, and after a
    /// crash by the next connection to open the file. ``giveBackAfterFirstImport()`` goes back to the WAL.
    func takeForFirstImport() async throws -> Bool {
        guard readers == .afterwards else { return false }
        return try await pool.writeWithoutTransaction { db in
            guard try db.holdsNoRow("programme") else { return false }
            // Another connection's hold is told at once rather than waited out: the import then goes through the WAL.
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(Self.busyWait * 1000))") }
            return (try? String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")) == "delete"
        }
    }

    /// Back to the WAL after an import ``takeForFirstImport()`` let take the file, whether it committed or not. If
    /// another connection opened the file meanwhile and holds it past the busy timeout, the file stays in the rollback
    /// journal's mode, which reads and writes as well with no one beside it, until the next pool to open it (serve's)
    /// sets the WAL again: the import stands either way.
    func giveBackAfterFirstImport() async {
        _ = try? await pool.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") }
    }
}

extension Database {
    /// Whether `table` holds no row: a first import, which finds the programmes, titles and trigram codes empty, takes
    /// the file for itself and adds what it has not met without looking for it first.
    func holdsNoRow(_ table: String) throws -> Bool {
        try Bool.fetchOne(self, sql: "SELECT NOT EXISTS (SELECT 1 FROM \(table))") ?? false
    }
}
