import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import GuideStoreSQLite

/// ``DirectBinding/withBlob(_:_:_:)``: a blob bound where it lies, for one step.
@Suite struct DirectBindingTests {
    /// A blob past SQLite's length limit (here lowered to 100 bytes for the one step, as a hostile listing's text would be past the
    /// real one) is an error thrown, not a trap, and stores nothing; one within it, and an empty one, are stored as
    /// they were, and the binding is cleared after its step.
    @Test func aBlobPastTheLimitIsAnErrorAndOthersGoInAsTheyWere() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (b BLOB)")
            let insert = DirectBinding(try db.makeStatement(sql: "INSERT INTO t (b) VALUES (?)"))
            for bytes in [[UInt8](repeating: 1, count: 100), []] {
                insert.reset()
                try insert.withBlob(1, bytes) { try insert.step(db) }
            }
            // Stepped again without its bindings cleared, the statement stores NULL: no pointer left behind.
            insert.reset()
            try insert.withBlob(1, [9, 9]) { try insert.step(db) }
            sqlite3_reset(insert.statement.sqliteStatement)
            try insert.step(db)
            let stored = try String.fetchAll(db, sql: "SELECT typeof(b) || ' ' || hex(b) FROM t ORDER BY rowid")
            #expect(stored == ["blob " + String(repeating: "01", count: 100), "blob ", "blob 0909", "null "])
        }
        let limited = try DatabaseQueue()
        try limited.write { db in
            try db.execute(sql: "CREATE TABLE t (b BLOB)")
            let insert = DirectBinding(try db.makeStatement(sql: "INSERT INTO t (b) VALUES (?)"))
            sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 100)
            #expect(throws: DatabaseError.self) {
                try insert.withBlob(1, [UInt8](repeating: 7, count: 101)) { try insert.step(db) }
            }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 0)
        }
    }
}
