import Foundation
import GRDB
import GuideCore
import GuideStore

/// SQLite's statements for the scripts both stores share. GRDB runs one closure at a time on its writer connection,
/// and a shared script's transaction spans many: ``SQLiteListingStore/transaction(_:)`` opens it in one closure,
/// each statement runs in another, and the store's one write slot (``SQLiteListingStore/writeSlot``) keeps every
/// other write out until it commits.
public struct SQLiteStatements: SQLStatements {
    let pool: DatabasePool
    let poolUse: StorePoolUse
    let readGate: ReadGate
    /// Inside a transaction on the writer connection; otherwise each statement reads on its own.
    let isWriting: Bool

    public func rows(_ sql: SQLText) async throws -> [SQLRow] {
        let (text, arguments) = Self.render(sql)
        let fetch: @Sendable (Database) throws -> [SQLRow] = { db in
            try Row.fetchAll(db, sql: text, arguments: arguments).map(Self.row)
        }
        guard !isWriting else { return try await pool.writeWithoutTransaction(fetch) }
        let asked = ContinuousClock.now
        await readGate.pass()
        return try await pool.read { [poolUse] db in try poolUse.lent(askedAt: asked) { try fetch(db) } }
    }

    public func execute(_ sql: SQLText) async throws -> Int {
        guard isWriting else { throw StoreError(.failed, "a statement that writes ran outside a transaction") }
        let (text, arguments) = Self.render(sql)
        return try await pool.writeWithoutTransaction { db in
            try db.execute(sql: text, arguments: arguments)
            return db.changesCount
        }
    }

    /// SQLite has one writer: the transaction already has every turn.
    public func takeTurn(_ turn: StoreTurn) async throws {}

    /// GRDB runs work on the writer connection that needs no transaction of its own (the import's inserts) inside
    /// the open one.
    func onWriter<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction(body)
    }

    /// The text with `?` for each value, and the values.
    static func render(_ sql: SQLText) -> (String, StatementArguments) {
        var text = ""
        var values: [(any DatabaseValueConvertible)?] = []
        for part in sql.parts {
            switch part {
            case .text(let piece):
                text += piece
            case .value(let value):
                text += "?"
                values.append(databaseValue(value))
            case .keys(let keys):
                text += "(SELECT value FROM json_each(?))"
                values.append("[" + keys.map(String.init).joined(separator: ",") + "]")
            case .texts(let texts):
                text += "(SELECT value FROM json_each(?))"
                values.append((try? JSONEncoder().encode(texts)).map { String(decoding: $0, as: UTF8.self) } ?? "[]")
            case .fragment(.lockRows), .fragment(.claimRows):
                break   // One writer: the transaction holds the whole database.
            case .fragment(.binaryOrder):
                text += " COLLATE BINARY"
            case .fragment(.hiddenProgrammes):
                text += " INDEXED BY programme_hidden"
            }
        }
        return (text, StatementArguments(values))
    }

    private static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        case .boolean(let value): value.databaseValue
        case .null: .null
        }
    }

    private static func row(_ row: Row) -> SQLRow {
        SQLRow(row.databaseValues.map { value in
            switch value.storage {
            case .null: .null
            case .int64(let value): .integer(value)
            case .double(let value): .real(value)
            case .string(let value): .text(value)
            case .blob(let data): .blob(data)
            }
        })
    }
}

extension SQLiteListingStore: SQLBackend {
    /// Runs `body` as one write transaction (``SQLiteStatements``), in the store's write slot.
    public func transaction<T: Sendable>(_ body: (SQLiteStatements) async throws -> T) async throws -> T {
        let asked = ContinuousClock.now
        return try await writeSlot.run {
            poolUse.borrowed(askedAt: asked)
            defer { poolUse.returned() }
            return try await mapErrors {
                try await pool.writeWithoutTransaction { try $0.beginTransaction(.immediate) }
                do {
                    let result = try await body(statements(isWriting: true))
                    try await pool.writeWithoutTransaction { try $0.commit() }
                    return result
                } catch {
                    await rollBack()
                    throw error
                }
            }
        }
    }

    public func reading<T: Sendable>(_ body: (SQLiteStatements) async throws -> T) async throws -> T {
        try await mapErrors { try await body(statements(isWriting: false)) }
    }

    private func statements(isWriting: Bool) -> SQLiteStatements {
        SQLiteStatements(pool: pool, poolUse: poolUse, readGate: readGate, isWriting: isWriting)
    }

    /// A write as one GRDB closure (in its own transaction), in the store's write slot.
    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        let asked = ContinuousClock.now
        return try await writeSlot.run {
            poolUse.borrowed(askedAt: asked)
            defer { poolUse.returned() }
            return try await mapErrors { try await pool.write(body) }
        }
    }

    /// Rolls back the open transaction, in a task of its own: GRDB refuses a cancelled task's access, and a
    /// transaction left open would take every later write with it.
    private func rollBack() async {
        let pool = self.pool
        await Task {
            try? await pool.writeWithoutTransaction { db in
                if db.isInsideTransaction { try db.rollback() }
            }
        }.value
    }
}
