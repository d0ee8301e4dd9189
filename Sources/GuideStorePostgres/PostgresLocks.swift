import PostgresNIO

/// Advisory locks, named per guide (schema), hashed to PostgreSQL's 64-bit keys by `hashtextextended`: every instance
/// of one guide takes the same locks, and guides in other schemas of the database never wait for them.
struct PostgresLocks: Sendable {
    let scope: String

    init(schema: String?) {
        scope = "tvguide/" + (schema ?? "public") + "/"
    }

    /// Held while migrating, by every guide in the database: `CREATE EXTENSION IF NOT EXISTS` is database-wide and
    /// not safe to run at once (two first runs in two schemas collided on pg_extension's unique index).
    var migration: PostgresQuery { "SELECT pg_advisory_xact_lock(hashtextextended('tvguide/migration', 0))" }
    /// Held for the whole of an import's transaction (and a source's removal): writers of listings take turns, as
    /// SQLite's do.
    var imports: PostgresQuery { "SELECT pg_advisory_xact_lock(hashtextextended(\(scope + "imports"), 0))" }
    /// Held while the first profile is created, so only one first-run setup succeeds.
    var accounts: PostgresQuery { "SELECT pg_advisory_xact_lock(hashtextextended(\(scope + "accounts"), 0))" }
    /// Held by the instance refreshing a source, for as long as it refreshes it.
    func refresh(_ source: String) -> (lock: PostgresQuery, unlock: PostgresQuery) {
        let name = scope + "refresh/" + source
        return ("SELECT pg_try_advisory_lock(hashtextextended(\(name), 0))", "SELECT pg_advisory_unlock(hashtextextended(\(name), 0))")
    }
}
