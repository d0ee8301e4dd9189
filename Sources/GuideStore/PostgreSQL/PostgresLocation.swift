import Foundation

/// Where a PostgreSQL store lives: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME]`.
///
/// `schema` keeps tvguide's tables in their own schema (created if missing): several guides, or the test suite's
/// throwaway stores, in one database.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var schema: String?

    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String, schema: String? = nil) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.schema = schema
    }

    /// Whether `text` names a PostgreSQL database rather than an SQLite file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads a `postgres://` address; a StoreError saying what is wrong otherwise.
    public init(url text: String) throws {
        guard Self.isURL(text), let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw StoreError(.invalid, "\(Self.redacted(text)) is not a PostgreSQL address: use postgres://USER@HOST:PORT/DATABASE")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw StoreError(.invalid, "\(Self.redacted(text)) names no database: use postgres://USER@HOST:PORT/DATABASE")
        }
        let schema = components.queryItems?.first { $0.name == "schema" }?.value
        if let schema, !Self.isIdentifier(schema) {
            throw StoreError(.invalid, "schema \(schema) is not a plain name (letters, digits and _, starting with a letter)")
        }
        self.init(host: host, port: components.port ?? 5432, user: components.user ?? "postgres", password: components.password,
                  database: database, schema: schema)
    }

    /// Letters, digits and underscores, starting with a letter or underscore: safe to put into SQL unquoted.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.count <= 63 else { return false }
        let letters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz_")
        let rest = letters.union(CharacterSet(charactersIn: "0123456789"))
        return letters.contains(first) && name.unicodeScalars.allSatisfy(rest.contains)
    }

    /// The address without its password, for messages and logs.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)" + (schema.map { "?schema=\($0)" } ?? "")
    }

    private static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }
}
