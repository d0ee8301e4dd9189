import Foundation
import GuideCore
import GuideStore
import GRDB

extension SQLiteListingStore {
    public func cachedResponse(for key: String) async throws -> CachedResponse? {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchOne(db, sql: "SELECT status, body, fetched_at FROM api_cache WHERE key = ?", arguments: [key]).map { row in
                    let fetched: Int64 = row[2]
                    return CachedResponse(status: row[0], body: row[1], fetched: Date(unixSeconds: fetched))
                }
            }
        }
    }

    public func storeResponse(_ response: CachedResponse, for key: String) async throws {
        try await mapErrors {
            try await write { db in
                try db.execute(sql: """
                    INSERT INTO api_cache (key, status, body, fetched_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET status = excluded.status, body = excluded.body, fetched_at = excluded.fetched_at
                    """, arguments: [key, response.status, response.body, response.fetched.unixSeconds])
            }
        }
    }

    public func forgetResponses(keys: [String], prefixes: [String]) async throws -> Int {
        try await mapErrors {
            try await write { db in
                var removed = 0
                for key in keys {
                    try db.execute(sql: "DELETE FROM api_cache WHERE key = ?", arguments: [key])
                    removed += db.changesCount
                }
                for prefix in prefixes {
                    // A range on the primary key, not LIKE: keys hold "_" and "%" freely.
                    try db.execute(sql: "DELETE FROM api_cache WHERE key >= ? AND key < ?", arguments: [prefix, prefix + "\u{10FFFF}"])
                    removed += db.changesCount
                }
                return removed
            }
        }
    }

    public func pruneResponses(fetchedBefore instant: Date, keepingAtMost bytes: Int) async throws -> Int {
        try await mapErrors {
            try await write { db in
                try db.execute(sql: "DELETE FROM api_cache WHERE fetched_at < ?", arguments: [instant.unixSeconds])
                let old = db.changesCount
                try db.execute(sql: """
                    DELETE FROM api_cache WHERE key IN (
                        SELECT key FROM (SELECT key, sum(length(body)) OVER (ORDER BY fetched_at DESC, key) AS running FROM api_cache)
                        WHERE running > ?)
                    """, arguments: [bytes])
                return old + db.changesCount
            }
        }
    }
}
