import Foundation
import GRDB
import GRDBSQLite
import GuideStore

/// Binds, steps and reads a GRDB statement through the SQLite C API.
///
/// Used only where a statement runs hundreds of thousands of times or returns that many rows (the import's
/// INSERT, the repair walk, now/next's schedule and rows): GRDB's per-value handling (boxing every value, nested
/// closures per argument) cost more than SQLite's own work there. The statement still belongs to GRDB and runs
/// inside GRDB's transaction.
struct DirectBinding {
    let statement: Statement
    private var handle: OpaquePointer { statement.sqliteStatement }
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ statement: Statement) {
        self.statement = statement
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: Int?) {
        if let value { sqlite3_bind_int64(handle, index, Int64(value)) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { utf8 in
            // An empty buffer may have no address; SQLite needs one for an empty (not NULL) text.
            guard let base = utf8.baseAddress else {
                sqlite3_bind_text(handle, index, "", 0, Self.transient)
                return
            }
            base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                _ = sqlite3_bind_text(handle, index, $0, Int32(utf8.count), Self.transient)
            }
        }
    }

    /// Runs `body` (which steps the statement) with `bytes` bound at `index` where they lie, not copied: SQLite reads
    /// a bound value only while it steps, and the statement is reset and the binding cleared before the bytes may
    /// move. None is an empty blob.
    /// For the blobs an import writes by the hundred thousand (each programme's details, each code's run), where
    /// SQLite's copy of each was an allocation, a copy and a free on the writer's thread. The length goes to SQLite
    /// as 64 bits (never narrowed): a blob past SQLite's length limit is an error thrown, not a trap.
    func withBlob<Result>(_ index: Int32, _ bytes: [UInt8], _ body: () throws -> Result) throws -> Result {
        guard !bytes.isEmpty else {
            _ = sqlite3_bind_zeroblob(handle, index, 0)
            return try body()
        }
        return try bytes.withUnsafeBytes { raw in
            let code = sqlite3_bind_blob64(handle, index, raw.baseAddress, sqlite3_uint64(raw.count), nil)
            guard code == SQLITE_OK else { throw error(code, sqlite3_db_handle(handle)) }
            // Unbound after the step, which needs the statement reset first (bound while stepped, SQLite refuses, and
            // the pointer would stay until the next reset).
            defer {
                sqlite3_reset(handle)
                sqlite3_bind_null(handle, index)
            }
            return try body()
        }
    }

    /// Steps through the statement's rows, handing `body` the C statement to read the current row's columns from.
    func forEachRow(_ db: Database, _ body: (OpaquePointer) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw error(code, db) }
            try body(handle)
        }
    }

    /// A text column of the current row; nil for NULL.
    static func text(_ row: OpaquePointer, _ column: Int32) -> String? {
        guard let text = sqlite3_column_text(row, column) else { return nil }
        return String(cString: text)
    }

    /// Whether a text column of the current row holds exactly `text`'s bytes, without making a string of it (a body
    /// looked up by its hash was read into a new string to compare).
    static func text(_ row: OpaquePointer, _ column: Int32, is text: String) -> Bool {
        guard let stored = sqlite3_column_text(row, column) else { return false }
        let count = Int(sqlite3_column_bytes(row, column))
        var text = text
        return text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return count == 0 }
            return utf8.count == count && memcmp(stored, base, count) == 0
        }
    }

    /// Whether a blob column of the current row holds exactly `bytes` (never when it is NULL).
    static func blob(_ row: OpaquePointer, _ column: Int32, is bytes: [UInt8]) -> Bool {
        guard sqlite3_column_type(row, column) != SQLITE_NULL else { return false }
        let stored = sqlite3_column_blob(row, column), count = Int(sqlite3_column_bytes(row, column))
        guard count == bytes.count else { return false }
        guard count > 0, let stored else { return true }
        return bytes.withUnsafeBytes { given in given.baseAddress.map { memcmp(stored, $0, count) == 0 } ?? false }
    }

    /// Runs the statement, which must return no rows.
    func step(_ db: Database) throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else { throw error(code, db) }
    }

    private func error(_ code: Int32, _ db: Database) -> DatabaseError {
        error(code, db.sqliteConnection)
    }

    private func error(_ code: Int32, _ connection: OpaquePointer?) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)),
                      sql: statement.sql)
    }
}
