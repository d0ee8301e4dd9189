import GRDB
import GRDBSQLite

/// Binds and steps a GRDB statement through the SQLite C API.
///
/// Used only for the import's per-programme INSERT: GRDB's argument handling (boxing every value, nested
/// closures per argument, per-statement observers) cost more than SQLite's own work there. The statement still
/// belongs to GRDB and runs inside GRDB's transaction.
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

    func bind(_ index: Int32, bytes: [UInt8]) {
        bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), Self.transient) }
    }

    /// Runs the statement, which must return no rows.
    func step(_ db: Database) throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                                sql: statement.sql)
        }
    }
}
