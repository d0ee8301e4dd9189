import GRDB
import GuideStore
import GuideThreads

extension SQLiteListingStore {
    /// Whether an import into this store starts with the file to itself: `readers` allows it, the store holds no
    /// programme yet and no other connection (another process; this pool's readers are closed first) has the file
    /// open. Its writes then go through a rollback journal rather than the WAL, which journals only the pages the file
    /// had before (almost none), so that each new page is written once: through the WAL it is written there and again
    /// by the checkpoint that copies it into the file, 5 ms a MB on this machine (an import of 1.75 M programmes writes
    /// 381 MB). The import is as atomic either way: a refused or cut file is rolled back from the journal, and after a
    /// crash by the next connection to open the file. The store's reads meanwhile wait at its ``ReadGate``.
    /// ``giveBackAfterFirstImport()`` goes back to the WAL.
    func takeForFirstImport() async throws -> Bool {
        guard readers == .afterwards, try await read({ try $0.holdsNoRow("programme") }) else { return false }
        // The pool's readers keep the file open between reads: they are closed (after any read under way), and the
        // reads after them wait at the gate until the file is back in the WAL.
        readGate.close()
        do {
            let pool = self.pool
            try await BlockingWork.run("sqlite readers") { pool.releaseMemory() }
            let taken = try await pool.writeWithoutTransaction { db in
                guard try db.holdsNoRow("programme") else { return false }
                // Another connection's hold is told at once rather than waited out: the import then goes through the
                // WAL.
                try db.execute(sql: "PRAGMA busy_timeout = 0")
                defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(Self.busyWait * 1000))") }
                return (try? String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")) == "delete"
            }
            if !taken { readGate.open() }
            return taken
        } catch {
            readGate.open()
            throw error
        }
    }

    /// Back to the WAL after an import ``takeForFirstImport()`` let take the file, whether it committed or not, and the
    /// reads waiting let go on. If another connection opened the file meanwhile and holds it past the busy timeout, the
    /// file stays in the rollback journal's mode, which reads and writes as well with no one beside it, until the next
    /// pool to open it (serve's) sets the WAL again: the import stands either way.
    func giveBackAfterFirstImport() async {
        _ = try? await pool.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") }
        readGate.open()
    }
}

extension Database {
    /// Whether `table` holds no row: a first import, which finds the programmes, titles and trigram codes empty, takes
    /// the file for itself and adds what it has not met without looking for it first.
    func holdsNoRow(_ table: String) throws -> Bool {
        try Bool.fetchOne(self, sql: "SELECT NOT EXISTS (SELECT 1 FROM \(table))") ?? false
    }
}
