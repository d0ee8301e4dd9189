import Foundation
import GRDB

/// The schema's migrations for a home for TV Time and Trakt users (issue 29): the episodes each profile has watched, and
/// its TVmaze account synced both ways.
extension SchemaMigrations {
    static func registerWatched(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v18: watched episodes per profile") { db in
            // Keyed by TVmaze's episode id, with its show, season and number copied: a show's episodes are replaced at
            // each refresh and a show is forgotten when nobody follows it, but what was watched stays. watched_at is
            // NULL when the time is not known (a bulk mark, a backup without times); marked_at is when the mark was
            // made or last changed here.
            try db.execute(sql: """
                CREATE TABLE watched_episode (
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    episode_id INTEGER NOT NULL,
                    show_id INTEGER NOT NULL,
                    season INTEGER,
                    number INTEGER,
                    watched_at INTEGER,
                    plays INTEGER NOT NULL DEFAULT 1,
                    marked_at INTEGER NOT NULL,
                    PRIMARY KEY (profile_id, episode_id)
                ) WITHOUT ROWID;
                CREATE INDEX watched_by_show ON watched_episode (profile_id, show_id);
                """)
        }
        migrator.registerMigration("v19: a profile's TVmaze account, synced both ways") { db in
            // The account's key (TVmaze's user API takes it as the Basic password), its Premium level (the /user API
            // needs one), and how the last sync went. tvmaze_synced holds what both sides had at the last sync, the
            // base of the three-way merge; watched_unmarked when a synced profile unmarked an episode, so the later
            // of an unmark here and a mark there wins.
            try db.execute(sql: """
                CREATE TABLE tvmaze_account (
                    profile_id INTEGER PRIMARY KEY REFERENCES profile(id) ON DELETE CASCADE,
                    username TEXT NOT NULL,
                    api_key TEXT NOT NULL,
                    premium INTEGER NOT NULL DEFAULT 0,
                    synced_at INTEGER,
                    outcome TEXT,
                    succeeded INTEGER
                );
                CREATE TABLE tvmaze_synced (
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    item_id INTEGER NOT NULL,
                    PRIMARY KEY (profile_id, kind, item_id)
                ) WITHOUT ROWID;
                CREATE TABLE watched_unmarked (
                    profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                    episode_id INTEGER NOT NULL,
                    unmarked_at INTEGER NOT NULL,
                    PRIMARY KEY (profile_id, episode_id)
                ) WITHOUT ROWID;
                """)
        }
    }
}
