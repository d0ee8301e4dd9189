import Foundation

/// Where a PostgreSQL store lives: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME&sslmode=MODE&sslrootcert=PATH]`.
///
/// `schema` keeps tvguide's tables in their own schema (created if missing): several guides, or the test suite's
/// throwaway stores, in one database. `sslmode` is libpq's: `disable` (the default), `require` (encrypted, the
/// server's certificate not checked) or `verify-full` (encrypted, the certificate checked against the system's
/// authorities or `sslrootcert`'s, and the host name against it).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How the connection is protected.
    public enum TLSMode: String, Sendable, Equatable {
        case disable
        case require
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var schema: String?
    public var tls: TLSMode
    /// The certificate authorities (PEM) to check the server's certificate against, for `verify-full`.
    public var rootCertificate: String?

    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String, schema: String? = nil,
                tls: TLSMode = .disable, rootCertificate: String? = nil) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.schema = schema
        self.tls = tls
        self.rootCertificate = rootCertificate
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
        let modeText = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "disable"
        guard let tls = TLSMode(rawValue: modeText) else {
            throw StoreError(.invalid, "sslmode=\(modeText) is not one tvguide knows: use disable, require or verify-full")
        }
        let rootCertificate = components.queryItems?.first { $0.name == "sslrootcert" }?.value
        self.init(host: host, port: components.port ?? 5432, user: components.user.map { $0.removingPercentEncoding ?? $0 } ?? "postgres",
                  password: components.password.map { $0.removingPercentEncoding ?? $0 }, database: database, schema: schema,
                  tls: tls, rootCertificate: rootCertificate)
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
        let options = [schema.map { "schema=\($0)" }, tls == .disable ? nil : "sslmode=\(tls.rawValue)"].compactMap { $0 }
        return "postgres://\(user)@\(host):\(port)/\(database)" + (options.isEmpty ? "" : "?" + options.joined(separator: "&"))
    }

    private static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }
}
