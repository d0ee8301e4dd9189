import Foundation
import Crypto
import GRDB
import GuideStore

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
        migrator.registerMigration("v2: programmes name their channel by an integer key") { db in
            // An integer key instead of the channel's text id halves the programme index and makes its seeks (now/next
            // does two per channel) and inserts cheaper. Programme rows carry no foreign keys: only the import session
            // writes them, with keys it has just looked up, and three parent lookups per inserted row were measurable.
            // Whoever deletes a source, channel or title deletes its programmes first. import_run.longest (v1) is no
            // longer written or read: now/next looks back through the in-memory schedule, which knows its own longest. The sub-title and category
            // columns go: nothing read them, and every byte of a programme row is written twice (WAL, then checkpoint).
            // See docs/performance.md.
            try db.execute(sql: """
                CREATE TABLE channel_v2 (
                    key INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    number TEXT,
                    position INTEGER NOT NULL,
                    details BLOB NOT NULL
                );
                INSERT INTO channel_v2 (id, name, number, position, details)
                    SELECT id, name, number, position, details FROM channel ORDER BY position;
                CREATE TABLE programme_v2 (
                    id INTEGER PRIMARY KEY,
                    source_id INTEGER NOT NULL,
                    import_id INTEGER NOT NULL,
                    channel_key INTEGER NOT NULL,
                    start INTEGER NOT NULL,
                    stop INTEGER NOT NULL,
                    stop_known INTEGER NOT NULL,
                    title TEXT NOT NULL,
                    title_id INTEGER NOT NULL,
                    clump TEXT,
                    line INTEGER,
                    -- Folded sub-titles and descriptions, scanned (not indexed) by a search of all text.
                    search_text TEXT NOT NULL,
                    details BLOB NOT NULL
                );
                INSERT INTO programme_v2
                    SELECT p.id, p.source_id, p.import_id, c.key, p.start, p.stop, p.stop_known, p.title, p.title_id,
                           p.clump, p.line, p.search_text, p.details
                    FROM programme p JOIN channel_v2 c ON c.id = p.channel_id;
                DROP TABLE programme;
                DROP TABLE channel;
                ALTER TABLE channel_v2 RENAME TO channel;
                ALTER TABLE programme_v2 RENAME TO programme;
                CREATE INDEX channel_by_position ON channel(position);
                CREATE INDEX programme_by_channel ON programme(channel_key, start, stop);
                CREATE INDEX programme_by_title ON programme(title_id, start);
                -- Incremented by every write that changes programmes, so readers know when what they hold is stale.
                CREATE TABLE guide_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    generation INTEGER NOT NULL
                );
                INSERT INTO guide_state (id, generation) VALUES (1, 1);
                """)
        }
        migrator.registerMigration("v3: profiles, their channels, sessions and API tokens") { db in
            // Secrets and tokens are stored only as hashes (bcrypt for what people type, SHA-256 for the long random
            // tokens programs and browsers hold). A profile's channels name channels by their text id, so a lineup
            // survives a channel being dropped and imported again.
            try db.execute(sql: """
                CREATE TABLE profile (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    role TEXT NOT NULL,
                    secret_kind TEXT NOT NULL,
                    secret_hash TEXT NOT NULL,
                    failed_attempts INTEGER NOT NULL DEFAULT 0,
                    locked_until INTEGER NOT NULL DEFAULT 0,
                    day_start_hour INTEGER NOT NULL DEFAULT 5,
                    time_zone TEXT,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE profile_channel (
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    channel_id TEXT NOT NULL,
                    PRIMARY KEY (profile_id, channel_id)
                );
                CREATE TABLE session (
                    token_hash TEXT PRIMARY KEY,
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                );
                CREATE INDEX session_by_profile ON session(profile_id);
                CREATE TABLE api_token (
                    id INTEGER PRIMARY KEY,
                    token_hash TEXT NOT NULL UNIQUE,
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    last_used_at INTEGER
                );
                """)
        }
        migrator.registerMigration("v4: configured sources, their channels, and merged listings") { db in
            // A configured source keeps its definition as JSON (`SourceDefinition`: only tvguide reads it) beside the
            // columns queries need. Imports by path or URL stay unconfigured sources (definition NULL).
            // A programme hidden behind a higher-priority source's programme stays stored, so lowering a priority or
            // removing a source shows it again; the channel index carries `hidden` so now/next and the grid filter it
            // without reading rows. source_coverage says which sources list which channels over which span: only
            // channels with more than one source need merging after an import.
            try db.execute(sql: """
                ALTER TABLE source ADD COLUMN definition TEXT;
                ALTER TABLE source ADD COLUMN last_attempt INTEGER;
                ALTER TABLE source ADD COLUMN last_success INTEGER;
                ALTER TABLE source ADD COLUMN last_error TEXT;
                ALTER TABLE source ADD COLUMN last_outcome TEXT;
                ALTER TABLE source ADD COLUMN last_bytes INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE source ADD COLUMN last_programmes INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE source ADD COLUMN last_repairs INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE source ADD COLUMN last_duration REAL NOT NULL DEFAULT 0;
                CREATE TABLE source_fetch (
                    source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                    url TEXT NOT NULL,
                    etag TEXT,
                    last_modified TEXT,
                    PRIMARY KEY (source_id, url)
                );
                CREATE TABLE source_channel (
                    source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                    channel_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    keep INTEGER NOT NULL,
                    mapped_to TEXT,
                    last_seen INTEGER,
                    PRIMARY KEY (source_id, channel_id)
                );
                CREATE TABLE source_coverage (
                    source_id INTEGER NOT NULL,
                    channel_key INTEGER NOT NULL,
                    first INTEGER NOT NULL,
                    last INTEGER NOT NULL,
                    PRIMARY KEY (channel_key, source_id)
                );
                INSERT INTO source_coverage (source_id, channel_key, first, last)
                    SELECT source_id, channel_key, min(start), max(stop) FROM programme GROUP BY source_id, channel_key;
                ALTER TABLE programme ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
                DROP INDEX programme_by_channel;
                CREATE INDEX programme_by_channel ON programme(channel_key, start, stop, hidden);
                """)
        }
        migrator.registerMigration("v5: web API answers cached for offline use") { db in
            // TVmaze's answers by request path and query; a 404 is kept too ("no such episode" is an answer).
            try db.execute(sql: """
                CREATE TABLE api_cache (
                    key TEXT PRIMARY KEY,
                    status INTEGER NOT NULL,
                    body BLOB NOT NULL,
                    fetched_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v6: followed shows, their episodes, reminder settings") { db in
            // Shows and episodes as TVmaze gave them (air date and time in the network's zone, the stamp in UTC);
            // airdate is TEXT YYYY-MM-DD so date ranges compare as text. A show stays while anyone follows it.
            try db.execute(sql: """
                CREATE TABLE series_show (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    status TEXT,
                    channel TEXT,
                    zone TEXT,
                    url TEXT,
                    image TEXT,
                    updated INTEGER,
                    checked_at INTEGER NOT NULL
                );
                CREATE TABLE series_episode (
                    id INTEGER PRIMARY KEY,
                    show_id INTEGER NOT NULL REFERENCES series_show(id) ON DELETE CASCADE,
                    season INTEGER,
                    number INTEGER,
                    name TEXT,
                    type TEXT,
                    airdate TEXT,
                    airtime TEXT,
                    airstamp TEXT,
                    runtime INTEGER,
                    url TEXT
                );
                CREATE INDEX series_episode_by_show ON series_episode(show_id, airdate);
                CREATE TABLE followed_show (
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    show_id INTEGER NOT NULL REFERENCES series_show(id) ON DELETE CASCADE,
                    reminders INTEGER NOT NULL DEFAULT 1,
                    added_at INTEGER NOT NULL,
                    PRIMARY KEY (profile_id, show_id)
                );
                CREATE INDEX followed_by_show ON followed_show(show_id);
                CREATE TABLE series_settings (
                    profile_id INTEGER PRIMARY KEY REFERENCES profile(id) ON DELETE CASCADE,
                    lead_minutes INTEGER NOT NULL,
                    shift_minutes INTEGER NOT NULL,
                    past_days INTEGER NOT NULL,
                    future_days INTEGER NOT NULL,
                    calendar_token TEXT UNIQUE
                );
                """)
        }
        migrator.registerMigration("v7: refreshes that never finished, sign-in throttles per address and profile") { db in
            // A refresh marks its start, so one the process died in is seen at the next start (and backed off);
            // failures_in_row spaces out the retries of a source that keeps failing.
            // Sign-in throttles replace the per-profile counters: one row per (client address, name), per address
            // ('' name) and per name ('' address), counted before any secret is checked.
            try db.execute(sql: """
                ALTER TABLE source ADD COLUMN refresh_started_at INTEGER;
                ALTER TABLE source ADD COLUMN failures_in_row INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE profile DROP COLUMN failed_attempts;
                ALTER TABLE profile DROP COLUMN locked_until;
                CREATE TABLE signin_throttle (
                    address TEXT NOT NULL,
                    name TEXT NOT NULL,
                    failures INTEGER NOT NULL,
                    locked_until INTEGER NOT NULL,
                    trusted_until INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (address, name)
                ) WITHOUT ROWID;
                CREATE INDEX signin_throttle_by_age ON signin_throttle(updated_at);
                """)
        }
        migrator.registerMigration("v8: API token scopes, calendar feed secrets stored hashed") { db in
            // Tokens made before scopes could do everything: they keep that. Feed secrets become their SHA-256, as
            // session and API tokens are stored; the addresses people subscribed to keep working.
            try db.execute(sql: "ALTER TABLE api_token ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin'")
            for row in try Row.fetchAll(db, sql: "SELECT profile_id, calendar_token FROM series_settings WHERE calendar_token IS NOT NULL") {
                let token: String = row[1]
                let hash = SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
                try db.execute(sql: "UPDATE series_settings SET calendar_token = ? WHERE profile_id = ?", arguments: [hash, row[0]])
            }
        }
        migrator.registerMigration("v9: a followed show's channel may be a web channel") { db in
            try db.execute(sql: "ALTER TABLE series_show ADD COLUMN web_channel INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v10: reminders, delivery channels, what was sent, saved searches, the server's push key") { db in
            try db.execute(sql: """
                CREATE TABLE reminder (
                    id INTEGER PRIMARY KEY,
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    channel_id TEXT NOT NULL,
                    channel_name TEXT NOT NULL,
                    title TEXT NOT NULL,
                    start INTEGER NOT NULL,
                    stop INTEGER NOT NULL,
                    lead_minutes INTEGER NOT NULL,
                    due_at INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    note TEXT,
                    attempts INTEGER NOT NULL,
                    lease_owner TEXT,
                    lease_until INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    finished_at INTEGER,
                    UNIQUE (profile_id, channel_id, start, title)
                );
                CREATE INDEX reminder_due ON reminder(state, due_at);
                CREATE INDEX reminder_by_profile ON reminder(profile_id, state, due_at);
                CREATE TABLE delivery_channel (
                    id INTEGER PRIMARY KEY,
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    name TEXT NOT NULL,
                    target TEXT NOT NULL,
                    secret TEXT,
                    created_at INTEGER NOT NULL,
                    last_sent_at INTEGER,
                    last_error TEXT
                );
                CREATE INDEX delivery_channel_by_profile ON delivery_channel(profile_id);
                CREATE TABLE reminder_delivery (
                    reminder_id INTEGER NOT NULL REFERENCES reminder(id) ON DELETE CASCADE,
                    channel_id INTEGER NOT NULL REFERENCES delivery_channel(id) ON DELETE CASCADE,
                    delivered INTEGER NOT NULL,
                    at INTEGER NOT NULL,
                    PRIMARY KEY (reminder_id, channel_id)
                ) WITHOUT ROWID;
                CREATE TABLE delivery_log (
                    id INTEGER PRIMARY KEY,
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    channel_id INTEGER NOT NULL,
                    reminder_id INTEGER,
                    title TEXT NOT NULL,
                    at INTEGER NOT NULL,
                    error TEXT
                );
                CREATE INDEX delivery_log_by_profile ON delivery_log(profile_id, id);
                CREATE TABLE server_secret (
                    name TEXT PRIMARY KEY,
                    value TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE saved_search (
                    id INTEGER PRIMARY KEY,
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    words TEXT NOT NULL,
                    channels TEXT NOT NULL,
                    lead_minutes INTEGER NOT NULL,
                    created_at INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v11: IPTV playlists' entries and headers") { db in
            try db.execute(sql: """
                CREATE TABLE playlist_entry (
                    source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    channel_id TEXT NOT NULL,
                    match_key TEXT NOT NULL,
                    details TEXT NOT NULL,
                    PRIMARY KEY (source_id, position)
                );
                CREATE TABLE playlist_header (
                    source_id INTEGER PRIMARY KEY REFERENCES source(id) ON DELETE CASCADE,
                    guide_urls TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v12: a profile's theme") { db in
            try db.execute(sql: "ALTER TABLE profile ADD COLUMN theme TEXT NOT NULL DEFAULT 'system'")
        }
        registerLivingRoom(&migrator)
        registerSchedulesDirect(&migrator)
        registerWatched(&migrator)
        registerDevices(&migrator)
        registerSearch(&migrator)
        registerSpelledTrigrams(&migrator)
        registerRowsWithoutTitles(&migrator)
        registerTrigramPostings(&migrator)
        registerBodiesByHash(&migrator)
        registerSourceCounts(&migrator)
        return migrator
    }
}
