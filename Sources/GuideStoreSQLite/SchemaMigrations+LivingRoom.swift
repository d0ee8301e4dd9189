import Foundation
import GRDB

/// The schema's migrations for the guide in the living room (issue 18): channel logos, groups and favourites,
/// timeshift channels and playlist matching columns, feeds for media servers and the servers told to reload.
extension SchemaMigrations {
    static func registerLivingRoom(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v13: the logos admins choose for channels") { db in
            try db.execute(sql: "CREATE TABLE channel_logo (channel_id TEXT PRIMARY KEY, url TEXT NOT NULL)")
        }
        migrator.registerMigration("v14: channel groups, favourites, the guests' group") { db in
            try db.execute(sql: """
                CREATE TABLE channel_group (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                CREATE TABLE channel_group_member (
                    group_id INTEGER NOT NULL REFERENCES channel_group(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    channel_id TEXT NOT NULL,
                    PRIMARY KEY (group_id, position)
                );
                CREATE TABLE favourite_channel (
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    channel_id TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    PRIMARY KEY (profile_id, channel_id)
                );
                CREATE TABLE remembered_group (
                    profile_id INTEGER PRIMARY KEY REFERENCES profile(id) ON DELETE CASCADE,
                    name TEXT NOT NULL
                );
                CREATE TABLE guide_setting (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                """)
        }
        migrator.registerMigration("v15: timeshift channels, and what matching reads of a playlist entry in columns") { db in
            // Matching a 100,000-entry playlist reads these, not every entry's details; entries stored before get them here.
            try db.execute(sql: """
                ALTER TABLE playlist_entry ADD COLUMN guide_id TEXT;
                ALTER TABLE playlist_entry ADD COLUMN shift_minutes INTEGER NOT NULL DEFAULT 0;
                UPDATE playlist_entry SET guide_id = json_extract(details, '$.guideID'),
                    shift_minutes = CAST(ROUND(COALESCE(json_extract(details, '$.shiftHours'), 0) * 60) AS INTEGER);
                """)
            try db.execute(sql: """
                CREATE TABLE timeshift_channel (
                    id TEXT PRIMARY KEY,
                    base_id TEXT NOT NULL,
                    offset_minutes INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    number TEXT,
                    logo TEXT
                );
                """)
        }
        migrator.registerMigration("v16: feeds for media servers") { db in
            try db.execute(sql: """
                CREATE TABLE lineup_feed (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    kind TEXT NOT NULL,
                    profile_id INTEGER REFERENCES profile(id) ON DELETE CASCADE,
                    group_name TEXT,
                    days INTEGER NOT NULL,
                    shape TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE reload_target (
                    id INTEGER PRIMARY KEY,
                    feed_id INTEGER NOT NULL REFERENCES lineup_feed(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    address TEXT NOT NULL,
                    secret TEXT,
                    last_outcome TEXT,
                    last_succeeded INTEGER,
                    last_at INTEGER,
                    fingerprint TEXT
                );
                """)
        }
    }
}
