import Foundation
import GuideCore

/// What a Schedules Direct source keeps between refreshes, as SD's caching contract asks: each station's day and each
/// programme under the version SD gave it (its md5), each lineup's map under its modified time. In the database, so
/// every instance sharing it downloads nothing another already has.
public protocol SDDocumentStore: Sendable {
    /// The version of each document kept under `prefix` (`schedule/`, `program/`, `lineup/`), by key.
    func sdVersions(under prefix: String) async throws -> [String: String]
    /// The documents kept under `keys`, by key (keys with none left out).
    func sdDocuments(_ keys: [String]) async throws -> [String: Data]
    /// Whether any document is kept under `prefix` (`program/EP00688359`: a programme of that series is in the guide).
    func hasSDDocuments(under prefix: String) async throws -> Bool
    /// Keeps `documents`, replacing those of the same keys, as used at `instant`.
    func storeSDDocuments(_ documents: [SDDocument], at instant: Date) async throws
    /// Notes `keys` as used at `instant`, so documents no refresh uses can go (``forgetSDDocuments(unusedSince:)``).
    func touchSDDocuments(_ keys: [String], at instant: Date) async throws
    /// Forgets the documents no refresh has used since `instant`; how many.
    @discardableResult
    func forgetSDDocuments(unusedSince instant: Date) async throws -> Int
}

/// One document SD gave: its key (`schedule/STATION/DAY`, `program/ID`, `lineup/ID`), its version and its JSON.
public struct SDDocument: Sendable, Equatable {
    public var key: String
    public var version: String
    public var body: Data

    public init(key: String, version: String, body: Data) {
        (self.key, self.version, self.body) = (key, version, body)
    }
}

/// The ``SDDocumentStore`` both stores implement, written once over ``SQLStatements``.
extension SDDocumentStore where Self: SQLBackend {
    public func sdVersions(under prefix: String) async throws -> [String: String] {
        try await reading { db in
            // A range of keys by their bytes, not LIKE: keys hold "_" freely.
            let rows = try await db.rows("""
                SELECT key, version FROM sd_document WHERE key\(.binaryOrder) >= \(prefix) AND key\(.binaryOrder) < \(prefix + "\u{10FFFF}")
                """)
            return try Dictionary(rows.map { (try $0.value(0, as: String.self), try $0.value(1, as: String.self)) }, uniquingKeysWith: { $1 })
        }
    }

    public func hasSDDocuments(under prefix: String) async throws -> Bool {
        try await reading { db in
            try await !db.rows("""
                SELECT 1 FROM sd_document WHERE key\(.binaryOrder) >= \(prefix) AND key\(.binaryOrder) < \(prefix + "\u{10FFFF}") LIMIT 1
                """).isEmpty
        }
    }

    public func sdDocuments(_ keys: [String]) async throws -> [String: Data] {
        var documents: [String: Data] = [:]
        for start in stride(from: 0, to: keys.count, by: 1000) {
            let chunk = Array(keys[start..<min(keys.count, start + 1000)])
            let rows = try await reading { db in try await db.rows("SELECT key, body FROM sd_document WHERE key IN \(texts: chunk)") }
            for row in rows { documents[try row.value(0, as: String.self)] = try row.value(1, as: Data.self) }
        }
        return documents
    }

    public func storeSDDocuments(_ documents: [SDDocument], at instant: Date) async throws {
        guard !documents.isEmpty else { return }
        // The last of a key wins, as a later answer replaces an earlier one.
        let unique = Dictionary(documents.map { ($0.key, $0) }, uniquingKeysWith: { $1 }).values
        try await transaction { db in
            try await db.insert(unique.map { [.text($0.key), .text($0.version), .blob($0.body), .integer(instant.unixSeconds)] }) { chunk in
                """
                INSERT INTO sd_document (key, version, body, used_at) VALUES \(rows: chunk)
                ON CONFLICT (key) DO UPDATE SET version = excluded.version, body = excluded.body, used_at = excluded.used_at
                """
            }
        }
    }

    public func touchSDDocuments(_ keys: [String], at instant: Date) async throws {
        for start in stride(from: 0, to: keys.count, by: 1000) {
            let chunk = Array(keys[start..<min(keys.count, start + 1000)])
            try await transaction { db in
                try await db.execute("UPDATE sd_document SET used_at = \(instant.unixSeconds) WHERE key IN \(texts: chunk)")
            }
        }
    }

    public func forgetSDDocuments(unusedSince instant: Date) async throws -> Int {
        try await transaction { db in try await db.execute("DELETE FROM sd_document WHERE used_at < \(instant.unixSeconds)") }
    }
}
