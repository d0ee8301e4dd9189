import Foundation

/// Everything tvguide keeps: listings, sources, accounts, followed shows and cached web answers. SQLite and
/// PostgreSQL each provide all of it.
public typealias GuideDatabase = ListingStore & SourceStore & AccountStore & SeriesStore & ResponseCache

/// Opens the database `location` names: a `postgres://` address (``PostgresLocation``) for PostgreSQL, anything else
/// the path of an SQLite file (created if missing).
public func openGuideDatabase(_ location: String, password: String? = nil,
                              now: @escaping @Sendable () -> Date = Date.init) throws -> any GuideDatabase {
    if PostgresLocation.isURL(location) {
        var address = try PostgresLocation(url: location)
        if address.password == nil { address.password = password }
        return try PostgresListingStore(location: address, now: now)
    }
    return try SQLiteListingStore(path: location, now: now)
}
