import Foundation
import GuideCore
import GuideStore
import NIOCore
import PostgresNIO

/// PostgreSQL's statements for the scripts both stores share: a borrowed connection, `$n` for each value.
public struct PostgresStatements: SQLStatements {
    let link: PostgresLink
    let locks: PostgresLocks

    public func rows(_ sql: SQLText) async throws -> [SQLRow] {
        try await link.query(try Self.render(sql)).map(Self.row)
    }

    public func execute(_ sql: SQLText) async throws -> Int {
        try await link.execute(try Self.render(sql))
    }

    /// An advisory lock held until the transaction ends (``PostgresLocks``).
    public func takeTurn(_ turn: StoreTurn) async throws {
        switch turn {
        case .listings: try await link.execute(locks.imports)
        case .accounts: try await link.execute(locks.accounts)
        }
    }

    static func render(_ sql: SQLText) throws -> PostgresQuery {
        var text = ""
        var binds = PostgresBindings()
        for part in sql.parts {
            switch part {
            case .text(let piece):
                text += piece
            case .value(let value):
                switch value {
                case .integer(let value): binds.append(value)
                case .real(let value): binds.append(value)
                case .text(let value): binds.append(value)
                case .boolean(let value): binds.append(value)
                case .blob(let value): binds.append(ByteBuffer(bytes: value))
                case .null: binds.appendNull()
                }
                text += "$\(binds.count)"
            case .keys(let keys):
                binds.append(PostgresArray(keys))
                text += "(SELECT unnest($\(binds.count)::bigint[]))"
            case .texts(let texts):
                binds.append(PostgresArray(texts))
                text += "(SELECT unnest($\(binds.count)::text[]))"
            case .fragment(.lockRows):
                text += " FOR UPDATE"
            case .fragment(.claimRows):
                text += " FOR UPDATE SKIP LOCKED"
            case .fragment(.binaryOrder):
                text += " COLLATE \"C\""
            case .fragment(.hiddenProgrammes):
                break   // The planner's statistics find the index.
            }
        }
        return PostgresQuery(unsafeSQL: text, binds: binds)
    }

    static func row(_ row: PostgresRow) throws -> SQLRow {
        SQLRow(try row.map { cell -> SQLValue in
            guard cell.bytes != nil else { return .null }
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .bool: return .boolean(try cell.decode(Bool.self))
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .bytea: return .blob(Data(try cell.decode(ByteBuffer.self).readableBytesView))
            default: return .text(try cell.decode(String.self))
            }
        })
    }
}

extension PostgresListingStore: SQLBackend {
    /// A write transaction that notes the generation it committed (``writing(_:)``).
    public func transaction<T: Sendable>(_ body: (PostgresStatements) async throws -> T) async throws -> T {
        try await writing { link in try await body(PostgresStatements(link: link, locks: locks)) }
    }

    public func reading<T: Sendable>(_ body: (PostgresStatements) async throws -> T) async throws -> T {
        try await pool.withConnection { link in try await body(PostgresStatements(link: link, locks: locks)) }
    }
}
