import PostgresNIO

extension PostgresImportSession {
    /// Titles and bodies no programme points at any more leave the tables and their search indexes. No index by title
    /// or body is kept (v31), so this reads every programme, once for both tables: an anti-join for each, each
    /// reading and hashing every programme, took 222 and 264 ms at 0.5 M programmes (88,246 of them replaced), and
    /// the pairs in use gathered once (85,242 of them) 315 ms for both (docs/performance.md).
    func pruneTexts() async throws {
        try await link.execute("""
            WITH used AS MATERIALIZED (SELECT DISTINCT title_id, body_id FROM programme),
                 unused_titles AS (DELETE FROM title t WHERE NOT EXISTS (SELECT 1 FROM used u WHERE u.title_id = t.id))
            DELETE FROM body b WHERE NOT EXISTS (SELECT 1 FROM used u WHERE u.body_id = b.id)
            """)
    }
}
