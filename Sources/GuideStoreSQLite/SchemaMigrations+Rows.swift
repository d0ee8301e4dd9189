import GRDB

extension SchemaMigrations {
    /// A programme's row without the copy of its title it kept beside its details.
    static func registerRowsWithoutTitles(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v40: a programme's title kept once, in its details") { db in
            // Every version of the details begins with the titles (``DetailsCodec/title(of:)``); only an import's
            // repairs (rows it had just written, read back) and a reminder following its programme read the column.
            // It was 21 of a row's 175 bytes at 1.75 M programmes, and every byte of a row is written twice (WAL, then
            // checkpoint): the database 423 -> 381 MB (issue 46). SQLite rewrites each row without it, once (3.9 s at
            // 1.75 M).
            try db.execute(sql: "ALTER TABLE programme DROP COLUMN title")
        }
    }

    /// v44, the same on both stores: the sources' page, `/api/sources` and each scrape of `/metrics` counted every
    /// source's programmes, and its hidden ones, by reading every programme (1.0-2.4 s at 1.75 M programmes). Each
    /// import now moves its source's count as it moves the guide's (``TextPrune``), and the hidden ones are counted
    /// from their own index, which holds their source.
    static func registerSourceCounts(_ migrator: inout DatabaseMigrator) {
        let name = "v44: each source's programmes counted, the hidden ones indexed with their source"
        migrator.registerMigration(name) { db in
            try db.execute(sql: """
                ALTER TABLE source ADD COLUMN stored_programmes INTEGER NOT NULL DEFAULT 0;
                CREATE TEMP TABLE counted AS SELECT source_id, count(*) AS n FROM programme GROUP BY source_id;
                UPDATE source SET stored_programmes = coalesce((SELECT n FROM counted WHERE source_id = source.id), 0);
                DROP TABLE counted;
                DROP INDEX programme_hidden;
                CREATE INDEX programme_hidden ON programme(channel_key, source_id) WHERE hidden;
                """)
        }
    }
}
