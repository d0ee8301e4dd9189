import Foundation
import GRDB

/// The schema's migrations for the rest of the living room (issue 30): the devices tvguide presents itself as.
extension SchemaMigrations {
    static func registerDevices(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v20: a feed's own tuner port, for Plex") { db in
            // Plex takes a tuner as ADDRESS:PORT only, so a feed it reads as an HDHomeRun has a port of its own
            // (NULL: none), served at its root (TunerPorts).
            try db.execute(sql: """
                ALTER TABLE lineup_feed ADD COLUMN tuner_port INTEGER;
                CREATE UNIQUE INDEX lineup_feed_tuner_port ON lineup_feed (tuner_port) WHERE tuner_port IS NOT NULL;
                """)
        }
        migrator.registerMigration("v21: a recorder, its channels, who may record, and what was asked of it") { db in
            // One recorder a guide (id 1); tvguide's channels mapped onto its own; each request kept with the recorder's
            // id, state and words, so one sent while the recorder is off waits and goes later.
            try db.execute(sql: """
                ALTER TABLE profile ADD COLUMN can_record INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE recorder (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    kind TEXT NOT NULL,
                    address TEXT NOT NULL,
                    username TEXT,
                    secret TEXT,
                    profile TEXT,
                    updated_at INTEGER NOT NULL
                );
                CREATE TABLE recorder_channel (
                    channel_id TEXT PRIMARY KEY,
                    recorder_channel TEXT NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE recording (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    series INTEGER NOT NULL,
                    channel_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    subtitle TEXT,
                    start INTEGER NOT NULL,
                    stop INTEGER NOT NULL,
                    recorder_id TEXT,
                    state TEXT NOT NULL,
                    status TEXT,
                    requested_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    UNIQUE (channel_id, start, series)
                );
                CREATE INDEX recording_by_time ON recording (stop, start);
                """)
        }
        migrator.registerMigration("v22: a saved search that records what it finds") { db in
            try db.execute(sql: "ALTER TABLE saved_search ADD COLUMN records INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v23: a profile's language and clock") { db in
            try db.execute(sql: """
                ALTER TABLE profile ADD COLUMN language TEXT;
                ALTER TABLE profile ADD COLUMN hours TEXT NOT NULL DEFAULT 'locale';
                """)
        }
        // Found by OneSchemaTests: v1's import_run.longest was last read before the schedule index computed the
        // longest programme itself, and PostgreSQL never had it.
        // The table is made again (SQLite's DROP COLUMN cannot edit v1's definition, which has a comment in it).
        migrator.registerMigration("v24: one schema: import_run without the longest programme") { db in
            try db.execute(sql: """
                CREATE TABLE import_run_v24 (
                    id INTEGER PRIMARY KEY,
                    source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                    started_at INTEGER NOT NULL,
                    channels INTEGER NOT NULL DEFAULT 0,
                    programmes INTEGER NOT NULL DEFAULT 0,
                    issues INTEGER NOT NULL DEFAULT 0
                );
                INSERT INTO import_run_v24 (id, source_id, started_at, channels, programmes, issues)
                    SELECT id, source_id, started_at, channels, programmes, issues FROM import_run;
                DROP TABLE import_run;
                ALTER TABLE import_run_v24 RENAME TO import_run;
                """)
        }
        migrator.registerMigration("v25: who chose a source channel's mapping, and the matcher's suggestions") { db in
            try db.execute(sql: """
                ALTER TABLE source_channel ADD COLUMN chosen_by TEXT;
                ALTER TABLE source_channel ADD COLUMN candidates TEXT;
                UPDATE source_channel SET chosen_by = 'person' WHERE mapped_to IS NOT NULL;
                """)
        }
        migrator.registerMigration("v26: a show's other titles, to find it in listings") { db in
            try db.execute(sql: "ALTER TABLE series_show ADD COLUMN akas TEXT")
        }
        migrator.registerMigration("v27: a profile's listings languages") { db in
            try db.execute(sql: "ALTER TABLE profile ADD COLUMN listing_languages TEXT")
        }
        migrator.registerMigration("v28: what a feed's bytes were when they were last imported") { db in
            try db.execute(sql: "ALTER TABLE source_fetch ADD COLUMN content TEXT")
        }
    }
}
