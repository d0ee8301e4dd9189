import Foundation

/// What a backend supplies so that the transaction scripts both stores share are written once: statements run on
/// one connection, SQL text in, rows out. A backend that is an ``SQLBackend`` gets its ``SourceStore``,
/// ``SeriesStore``, ``AccountStore`` and ``ResponseCache`` from them (SourceScripts.swift, SeriesScripts.swift,
/// AccountScripts.swift), and runs ``SourceMerge/remerge(_:channels:counting:)`` and ``ImportFinish`` in its imports.
/// A backend supplies SQL, never logic.
///
/// Inside ``SQLBackend/transaction(_:)`` every statement runs in one transaction; inside ``SQLBackend/reading(_:)``
/// each statement reads the committed listings on its own (a read script that needs one consistent view of several
/// tables stays with its backend).
public protocol SQLStatements {
    /// Every row `sql` returns.
    func rows(_ sql: SQLText) async throws -> [SQLRow]
    /// Runs a statement; how many rows it changed.
    @discardableResult
    func execute(_ sql: SQLText) async throws -> Int
    /// Takes `turn` for the rest of the transaction. (SQLite has one writer, so every transaction already has
    /// every turn.)
    func takeTurn(_ turn: StoreTurn) async throws
}

/// What writers of one kind take turns on, where several instances share a database.
public enum StoreTurn: Sendable {
    /// Imports, and removing a source: a source is not removed under an import of it.
    case listings
    /// Creating profiles: two first-run setups at once make one admin, not two.
    case accounts
}

extension SQLStatements {
    /// The first row's first column, if there is a row.
    public func value<T: SQLDecodable>(_ sql: SQLText, as type: T.Type = T.self) async throws -> T? {
        guard let row = try await rows(sql).first else { return nil }
        return try row.value(0, as: T?.self)
    }

    /// The first column of every row.
    public func column<T: SQLDecodable>(_ sql: SQLText, as type: T.Type = T.self) async throws -> [T] {
        try await rows(sql).map { try $0.value(0) }
    }

    /// Runs `statement` (a multi-row insert: `VALUES \(rows: chunk)`) for each thousand of `rows`: one round trip
    /// per thousand rows, well under both databases' limits on bound values (SQLite 32,766; PostgreSQL 65,535) for
    /// up to 32 columns.
    public func insert(_ rows: [[SQLValue]], _ statement: (_ chunk: [[SQLValue]]) -> SQLText) async throws {
        for start in stride(from: 0, to: rows.count, by: 1000) {
            try await execute(statement(Array(rows[start..<min(start + 1000, rows.count)])))
        }
    }
}

/// A backend that runs shared scripts: a transaction, or reads on their own.
public protocol SQLBackend: Sendable {
    associatedtype Statements: SQLStatements
    /// Wall-clock time, for the times the store notes itself (a profile's or token's creation); tests fix it.
    var now: @Sendable () -> Date { get }
    /// Runs `body` as one transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    func transaction<T: Sendable>(_ body: (Statements) async throws -> T) async throws -> T
    /// Runs `body`'s reads, each statement on its own.
    func reading<T: Sendable>(_ body: (Statements) async throws -> T) async throws -> T
}

/// A value bound into a statement (never pasted into its text).
public enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case boolean(Bool)
    case null
}

/// SQL text and its values, written once for both stores. `\(value)` binds a value; `\(keys: list)` is a list of
/// integer keys as a one-column subquery (`channel_key IN \(keys: channels)`); `\(.lockRows)` locks the rows a
/// SELECT reads until the transaction ends where a backend locks rows (PostgreSQL's FOR UPDATE; SQLite's writer
/// holds the whole database); `\(.binaryOrder)` orders text by its bytes, as SQLite does by default.
public struct SQLText: Sendable, ExpressibleByStringInterpolation {
    public enum Part: Sendable {
        case text(String)
        case value(SQLValue)
        case keys([Int64])
        case texts([String])
        case fragment(SQLFragment)
    }

    public var parts: [Part]

    public init(stringLiteral text: String) {
        parts = [.text(text)]
    }

    public init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            parts.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            parts.append(.text(literal))
        }

        public mutating func appendInterpolation<T: SQLBindable>(_ value: T) {
            parts.append(.value(value.sqlValue))
        }

        public mutating func appendInterpolation<T: SQLBindable>(_ value: T?) {
            parts.append(.value(value?.sqlValue ?? .null))
        }

        /// Text both backends read alike that the script itself wrote (a list of columns), never a value.
        public mutating func appendInterpolation(raw text: StaticString) {
            parts.append(.text(text.description))
        }

        /// Rows for a multi-row VALUES: `(?, ?), (?, ?)`, every value bound.
        public mutating func appendInterpolation(rows: [[SQLValue]]) {
            for (index, row) in rows.enumerated() {
                parts.append(.text(index == 0 ? "(" : ", ("))
                for (column, value) in row.enumerated() {
                    if column > 0 { parts.append(.text(", ")) }
                    parts.append(.value(value))
                }
                parts.append(.text(")"))
            }
        }

        public mutating func appendInterpolation(keys: [Int64]) {
            parts.append(.keys(keys))
        }

        /// A list of texts for `IN`, bound as one value: `key IN \(texts: keys)`.
        public mutating func appendInterpolation(texts: [String]) {
            parts.append(.texts(texts))
        }

        public mutating func appendInterpolation(_ fragment: SQLFragment) {
            parts.append(.fragment(fragment))
        }
    }
}

/// Where the two dialects differ inside one statement's text.
public enum SQLFragment: Sendable {
    /// After a SELECT: keep its rows for this transaction (`FOR UPDATE`), where a backend locks rows.
    case lockRows
    /// After a SELECT: take its rows for this transaction, passing over rows another transaction holds
    /// (`FOR UPDATE SKIP LOCKED`): of instances claiming work at once, each gets different rows.
    case claimRows
    /// After a text column in ORDER BY: by its bytes.
    case binaryOrder
    /// After `FROM programme` with `WHERE hidden`: through the index of the hidden programmes (`programme_hidden`),
    /// which SQLite's planner, without statistics, passes over for a read of every programme.
    case hiddenProgrammes
}

/// A Swift value a statement can bind.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .boolean(self) } }
extension Data: SQLBindable { public var sqlValue: SQLValue { .blob(self) } }
extension Optional where Wrapped: SQLBindable {
    /// NULL for nil.
    public var sqlValue: SQLValue { map(\.sqlValue) ?? .null }
}

/// One row of an answer: its values in column order.
public struct SQLRow: Sendable {
    public let values: [SQLValue]

    public init(_ values: [SQLValue]) {
        self.values = values
    }

    /// Column `index` as a `T`; a StoreError when the row has no such column or it holds something else.
    public func value<T: SQLDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard values.indices.contains(index) else {
            throw StoreError(.failed, "the database answered \(values.count) columns where \(index + 1) were expected")
        }
        return try T(sqlValue: values[index])
    }
}

/// A Swift value a column decodes to.
public protocol SQLDecodable {
    init(sqlValue: SQLValue) throws
}

extension SQLDecodable {
    static func mismatch(_ value: SQLValue) -> StoreError {
        StoreError(.failed, "the database answered \(value) where \(Self.self) was expected")
    }
}

extension Int64: SQLDecodable {
    public init(sqlValue: SQLValue) throws {
        guard case .integer(let value) = sqlValue else { throw Self.mismatch(sqlValue) }
        self = value
    }
}

extension Int: SQLDecodable {
    public init(sqlValue: SQLValue) throws {
        guard case .integer(let value) = sqlValue, let int = Int(exactly: value) else { throw Self.mismatch(sqlValue) }
        self = int
    }
}

extension Double: SQLDecodable {
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: throw Self.mismatch(sqlValue)
        }
    }
}

extension String: SQLDecodable {
    public init(sqlValue: SQLValue) throws {
        guard case .text(let value) = sqlValue else { throw Self.mismatch(sqlValue) }
        self = value
    }
}

extension Data: SQLDecodable {
    public init(sqlValue: SQLValue) throws {
        guard case .blob(let value) = sqlValue else { throw Self.mismatch(sqlValue) }
        self = value
    }
}

/// SQLite keeps booleans as 0 and 1.
extension Bool: SQLDecodable {
    public init(sqlValue: SQLValue) throws {
        switch sqlValue {
        case .boolean(let value): self = value
        case .integer(let value): self = value != 0
        default: throw Self.mismatch(sqlValue)
        }
    }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    public init(sqlValue: SQLValue) throws {
        self = sqlValue == .null ? nil : try Wrapped(sqlValue: sqlValue)
    }
}
