import Foundation
import GuideStore
import GuideStorePostgres
import GuideStoreSQLite

// The one place that knows which backends there are: executables, tools and tests open a database here and see
// only GuideStore's protocols.

/// A database for `location`, not yet running: a `postgres://` address (``PostgresLocation``) for PostgreSQL,
/// anything else the path of an SQLite file (created if missing).
public func makeGuideDatabase(_ location: String, password: String? = nil,
                              now: @escaping @Sendable () -> Date = Date.init) throws -> any GuideDatabase {
    switch try DatabaseLocation(location) {
    case .postgres(var address):
        if address.password == nil { address.password = password }
        return try PostgresListingStore(location: address, now: now)
    case .sqlite(let path):
        return try SQLiteListingStore(path: path, now: now)
    }
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
