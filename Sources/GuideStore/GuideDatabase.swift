import Foundation
import ServiceLifecycle

/// Everything tvguide keeps: listings, sources, accounts, followed shows and cached web answers. SQLite and
/// PostgreSQL each provide all of it.
///
/// A database is a service: ``run()`` keeps its connections (PostgreSQL's client; nothing for SQLite) until the task
/// is cancelled or the service group shuts down gracefully, and ``prepare()``, once it runs, checks the connection and
/// brings the schema up to date. `tvguide serve` runs it in the application's service group; everything else opens
/// one with ``openGuideDatabase(_:password:now:)``, which runs on its own.
public protocol GuideDatabase: ListingStore, SourceStore, AccountStore, SeriesStore, ResponseCache, Service {
    /// Checks the connection and brings the schema up to date; ``run()`` (or ``runOnItsOwn()``) must be running.
    func prepare() async throws
    /// Runs what ``run()`` runs in a task of the database's own, which ends when the database is released.
    func runOnItsOwn()
}

/// A database for `location`, not yet running: a `postgres://` address (``PostgresLocation``) for PostgreSQL,
/// anything else the path of an SQLite file (created if missing).
public func makeGuideDatabase(_ location: String, password: String? = nil,
                              now: @escaping @Sendable () -> Date = Date.init) throws -> any GuideDatabase {
    if PostgresLocation.isURL(location) {
        var address = try PostgresLocation(url: location)
        if address.password == nil { address.password = password }
        return try PostgresListingStore(location: address, now: now)
    }
    return try SQLiteListingStore(path: location, now: now)
}

/// The database at `location`, prepared and running on its own until the last reference to it goes: for the
/// command line, tools and tests, which hold a database without a service group.
public func openGuideDatabase(_ location: String, password: String? = nil,
                              now: @escaping @Sendable () -> Date = Date.init) async throws -> any GuideDatabase {
    let database = try makeGuideDatabase(location, password: password, now: now)
    database.runOnItsOwn()
    try await database.prepare()
    return database
}
