import Foundation

/// Everything tvguide keeps: listings, sources, accounts, followed shows and cached web answers. SQLite and
/// PostgreSQL each provide all of it.
public typealias GuideDatabase = ListingStore & SourceStore & AccountStore & SeriesStore & ResponseCache

/// Opens the database `location` names: a `postgres://` address (``PostgresLocation``) for PostgreSQL, anything else
/// the path of an SQLite file (created if missing).
public func openGuideDatabase(_ location: String, now: @escaping @Sendable () -> Date = Date.init) throws -> any GuideDatabase {
    if PostgresLocation.isURL(location) {
        return try PostgresListingStore(location: PostgresLocation(url: location), now: now)
    }
    return try SQLiteListingStore(path: location, now: now)
}
