import GuideStore

/// The migrations for the rest of the living room (issue 30), under the same names as SQLite's.
extension PostgresMigrations {
    static let devices: [(name: String, sql: String)] = [
        ("v20: a feed's own tuner port, for Plex", """
            ALTER TABLE lineup_feed ADD COLUMN tuner_port bigint;
            CREATE UNIQUE INDEX lineup_feed_tuner_port ON lineup_feed (tuner_port) WHERE tuner_port IS NOT NULL;
            """),
    ]
}
