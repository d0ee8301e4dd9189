import GRDB

/// The schema, one append-only migration at a time. Times are whole seconds since 1970 (UTC).
enum SchemaMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: sources, channels, programmes, search") { db in
            try db.execute(sql: """
                CREATE TABLE source (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    priority INTEGER NOT NULL DEFAULT 0,
                    imported_at INTEGER
                );
                CREATE TABLE import_run (
                    id INTEGER PRIMARY KEY,
                    source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                    started_at INTEGER NOT NULL,
                    channels INTEGER NOT NULL DEFAULT 0,
                    programmes INTEGER NOT NULL DEFAULT 0,
                    issues INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE channel (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    number TEXT,
                    position INTEGER NOT NULL,
                    details BLOB NOT NULL
                );
                CREATE TABLE programme (
                    id INTEGER PRIMARY KEY,
                    source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                    import_id INTEGER NOT NULL,
                    channel_id TEXT NOT NULL,
                    start INTEGER NOT NULL,
                    stop INTEGER NOT NULL,
                    stop_known INTEGER NOT NULL,
                    title TEXT NOT NULL,
                    sub_title TEXT,
                    category TEXT,
                    clump TEXT,
                    line INTEGER,
                    details BLOB NOT NULL
                );
                CREATE INDEX programme_by_channel ON programme(channel_id, start, stop);
                CREATE INDEX programme_by_import ON programme(import_id);
                CREATE INDEX programme_by_start ON programme(start);
                -- Titles get a trigram index (substring search in any script); sub-titles and descriptions are kept folded
                -- beside them but not indexed: indexing them cost 80% of import time for a rarely used search.
                CREATE VIRTUAL TABLE programme_search USING fts5(title, body UNINDEXED, tokenize = 'trigram');
                CREATE TRIGGER programme_search_delete AFTER DELETE ON programme BEGIN
                    DELETE FROM programme_search WHERE rowid = old.id;
                END;
                """)
        }
        return migrator
    }
}
