import Foundation
import GRDB

/// The schema's migrations for a home for TV Time and Trakt users (issue 29): the episodes each profile has watched.
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
    }
}
