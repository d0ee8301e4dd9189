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
                    issues INTEGER NOT NULL DEFAULT 0,
                    -- The longest programme this run stored, in seconds: bounds how far back "on now" looks.
                    longest INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE channel (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    number TEXT,
                    position INTEGER NOT NULL,
                    details BLOB NOT NULL
                );
                CREATE INDEX channel_by_position ON channel(position);
                -- Distinct folded titles: a guide repeats the same shows all week, so the search index holds each
                -- title once and programmes point at it.
                CREATE TABLE title (
                    id INTEGER PRIMARY KEY,
                    folded TEXT NOT NULL UNIQUE
                );
                CREATE VIRTUAL TABLE title_search USING fts5(
                    folded, content = 'title', content_rowid = 'id', tokenize = 'trigram'
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
                    title_id INTEGER NOT NULL REFERENCES title(id),
                    sub_title TEXT,
                    category TEXT,
                    clump TEXT,
                    line INTEGER,
                    -- Folded sub-titles and descriptions, scanned (not indexed) by a search of all text.
                    search_text TEXT NOT NULL,
                    details BLOB NOT NULL
                );
                CREATE INDEX programme_by_channel ON programme(channel_id, start, stop);
                CREATE INDEX programme_by_title ON programme(title_id, start);
                """)
        }
        return migrator
    }
}
