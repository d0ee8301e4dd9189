import Foundation
import GuideCore
import GuideStore
import GuideStorePostgres
import GuideStoreSQLite
import GuideThreads

// The one place that knows which backends there are: executables, tools and tests open a database here and see
// only GuideStore's protocols.

/// A database for `location`, not yet running: a `postgres://` address (``PostgresLocation``) for PostgreSQL,
/// anything else the path of an SQLite file (created if missing); `readers` says who reads it while it imports
/// (``ImportReaders``).
public func makeGuideDatabase(_ location: String, password: String? = nil, readers: ImportReaders = .alongside,
                              now: @escaping @Sendable () -> Date) throws -> any GuideDatabase {
    switch try DatabaseLocation(location) {
    case .postgres(var address):
        if address.password == nil { address.password = password }
        return try PostgresListingStore(location: address, now: now)
    case .sqlite(let path):
        return try SQLiteListingStore(path: path, now: now, readers: readers)
    }
}

/// The database at `location`, prepared and running on its own until the last reference to it goes: for the
/// command line, tools and tests, which hold a database without a service group.
public func openGuideDatabase(_ location: String, password: String? = nil, readers: ImportReaders = .alongside,
                              now: @escaping @Sendable () -> Date) async throws -> any GuideDatabase {
    let database = try makeGuideDatabase(location, password: password, readers: readers, now: now)
    database.runOnItsOwn()
    try await database.prepare()
    return database
}

/// What a backup or restore holds.
public typealias BackupSummary = SQLiteBackup.Summary

/// Copies the database at `location` to the new file `file` while it may be in use (``SQLiteBackup``), on a thread of
/// its own. A PostgreSQL database is backed up with PostgreSQL's own tools: the error says how.
public func backUpDatabase(_ location: String, to file: String) async throws -> BackupSummary {
    let path = try sqlitePath(location, doing: "back up", tool: "pg_dump -Fc 'postgres://...' > FILE")
    return try await BlockingWork.run("tvguide.backup") { try SQLiteBackup.backup(path, to: file) }
}

/// Replaces the database at `location` with the backup `file`, checked first; the database it replaces is kept
/// beside it (``SQLiteBackup/restore(_:into:)``).
public func restoreDatabase(_ location: String, from file: String) async throws -> BackupSummary {
    let path = try sqlitePath(location, doing: "restore", tool: "pg_restore --clean -d 'postgres://...' FILE")
    return try await BlockingWork.run("tvguide.restore") { try SQLiteBackup.restore(file, into: path) }
}

private func sqlitePath(_ location: String, doing action: String, tool: String) throws -> String {
    switch try DatabaseLocation(location) {
    case .sqlite(let path): return path
    case .postgres: throw StoreError(.invalid, "tvguide does not \(action) a PostgreSQL database itself: use PostgreSQL's tools (\(tool))")
    }
}
