import GuideStore
import PostgresNIO

extension PostgresImportSession {
    /// Moves `guide_state`'s counts of programmes stored and dropped on by this import's, and prunes the texts no
    /// programme uses when that is due (``TextPrune``).
    func countProgrammes(change: Int, dropped: Int) async throws {
        var counts = TextPrune(stored: 0, dropped: 0)
        if let row = try await link.query("SELECT stored_programmes, dropped_since_prune FROM guide_state").first {
            let (stored, pending) = try row.decode((Int64, Int64).self)
            counts = TextPrune(stored: stored, dropped: pending)
        }
        if counts.count(change: change, dropped: dropped) { counts.pruned(stored: try await pruneTexts()) }
        try await link.execute("""
            UPDATE guide_state SET stored_programmes = \(counts.stored), dropped_since_prune = \(counts.dropped)
            """)
        // The source's own count (v44), which only its imports and its removal move; one edited past 2^62 is read as
        // 2^62 (as SQLite's), so that the sum stays within bigint rather than failing the import.
        try await link.execute("""
            UPDATE source SET stored_programmes = greatest(0, least(stored_programmes, 4611686018427387904) + \(change))
            WHERE id = \(sourceID)
            """)
    }

    /// Titles and bodies no programme points at any more leave the tables, and the trigram indexes of those that lost
    /// any are written anew (``PostgresTrigramIndex/rebuild(_:on:)``). No index by title or body is kept (v31), so
    /// this reads every programme, once for both tables: an anti-join for each, each reading and hashing every
    /// programme, took 222 and 264 ms at 0.5 M programmes (88,246 of them replaced), and the pairs in use gathered
    /// once (85,242 of them) 315 ms for both (docs/performance.md). Returns how many programmes it read.
    func pruneTexts() async throws -> Int64 {
        let row = try await link.query("""
            WITH used AS MATERIALIZED (SELECT title_id, body_id, count(*) AS n FROM programme
                                       GROUP BY title_id, body_id),
                 unused_titles AS (DELETE FROM title t WHERE NOT EXISTS (SELECT 1 FROM used u WHERE u.title_id = t.id)
                                   RETURNING 1),
                 unused_bodies AS (DELETE FROM body b WHERE NOT EXISTS (SELECT 1 FROM used u WHERE u.body_id = b.id)
                                   RETURNING 1)
            SELECT coalesce(sum(n), 0)::bigint, (SELECT count(*) FROM unused_titles),
                   (SELECT count(*) FROM unused_bodies)
            FROM used
            """).first
        guard let (programmes, titles, bodies) = try row?.decode((Int64, Int64, Int64).self) else { return 0 }
        if titles > 0 { try await PostgresTrigramIndex.rebuild("title", on: link) }
        if bodies > 0 { try await PostgresTrigramIndex.rebuild("body", on: link) }
        return programmes
    }
}
