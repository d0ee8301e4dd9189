import GuideStore

/// The migrations for a home for TV Time and Trakt users (issue 29), under the same names as SQLite's.
extension PostgresMigrations {
    static let trackers: [(name: String, sql: String)] = [
        ("v18: watched episodes per profile", """
            CREATE TABLE watched_episode (
                profile_id bigint NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                episode_id bigint NOT NULL,
                show_id bigint NOT NULL,
                season bigint,
                number bigint,
                watched_at bigint,
                plays bigint NOT NULL DEFAULT 1,
                marked_at bigint NOT NULL,
                PRIMARY KEY (profile_id, episode_id)
            );
            CREATE INDEX watched_by_show ON watched_episode (profile_id, show_id);
            """),
        ("v19: a profile's TVmaze account, synced both ways", """
            CREATE TABLE tvmaze_account (
                profile_id bigint PRIMARY KEY REFERENCES profile(id) ON DELETE CASCADE,
                username text NOT NULL,
                api_key text NOT NULL,
                premium bigint NOT NULL DEFAULT 0,
                synced_at bigint,
                outcome text,
                succeeded boolean
            );
            CREATE TABLE tvmaze_synced (
                profile_id bigint NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                kind text NOT NULL,
                item_id bigint NOT NULL,
                PRIMARY KEY (profile_id, kind, item_id)
            );
            CREATE TABLE watched_unmarked (
                profile_id bigint NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                episode_id bigint NOT NULL,
                unmarked_at bigint NOT NULL,
                PRIMARY KEY (profile_id, episode_id)
            );
            """),
    ]
}
