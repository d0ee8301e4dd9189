import Foundation
import GuideCore
import GuideStore
import NIOCore
import PostgresNIO

extension PostgresListingStore {
    public func cachedResponse(for key: String) async throws -> CachedResponse? {
        try await pool.withConnection { link in
            guard let row = try await link.query("SELECT status, body, fetched_at FROM api_cache WHERE key = \(key)").first else { return nil }
            let (status, body, fetched) = try row.decode((Int, ByteBuffer, Int64).self)
            return CachedResponse(status: status, body: Data(body.readableBytesView), fetched: Date(unixSeconds: fetched))
        }
    }

    public func storeResponse(_ response: CachedResponse, for key: String) async throws {
        let body = ByteBuffer(bytes: response.body)
        try await pool.withConnection { link in
            try await link.execute("""
                INSERT INTO api_cache (key, status, body, fetched_at)
                VALUES (\(key), \(response.status), \(body), \(response.fetched.unixSeconds))
                ON CONFLICT (key) DO UPDATE SET status = excluded.status, body = excluded.body, fetched_at = excluded.fetched_at
                """)
        }
    }

    public func forgetResponses(keys: [String], prefixes: [String]) async throws -> Int {
        try await pool.transaction { link in
            var removed = try await link.execute("DELETE FROM api_cache WHERE key = ANY(\(keys)::text[])")
            for prefix in prefixes {
                // starts_with, not LIKE: keys hold "_" and "%" freely.
                removed += try await link.execute("DELETE FROM api_cache WHERE starts_with(key, \(prefix))")
            }
            return removed
        }
    }

    public func pruneResponses(fetchedBefore instant: Date, keepingAtMost bytes: Int) async throws -> Int {
        try await pool.transaction { link in
            let old = try await link.execute("DELETE FROM api_cache WHERE fetched_at < \(instant.unixSeconds)")
            return old + (try await link.execute("""
                DELETE FROM api_cache WHERE key IN (
                    SELECT key FROM (SELECT key, sum(octet_length(body)) OVER (ORDER BY fetched_at DESC, key COLLATE "C") AS running
                                     FROM api_cache) AS sized
                    WHERE running > \(Int64(bytes)))
                """))
        }
    }
}
