import Foundation
import ServiceLifecycle

/// Everything tvguide keeps: listings, sources, playlists, admins' channel settings, accounts, followed shows, reminders and cached web answers. SQLite and
/// PostgreSQL each provide all of it.
///
/// A database is a service: ``run()`` keeps its connections (PostgreSQL's client; nothing for SQLite) until the task
/// is cancelled or the service group shuts down gracefully, and ``prepare()``, once it runs, checks the connection and
/// brings the schema up to date. `tvguide serve` runs it in the application's service group; everything else opens
/// one with `openGuideDatabase` (GuideStoreBackends), which runs on its own.
public protocol GuideDatabase: ListingStore, SourceStore, AccountStore, SeriesStore, ReminderStore, PlaylistStore, ChannelSettingsStore,
                                 LineupFeedStore, ResponseCache, SDDocumentStore, WatchedStore, TVMazeAccountStore, RecordingStore, Service {
    /// Checks the connection and brings the schema up to date; ``run()`` (or ``runOnItsOwn()``) must be running.
    func prepare() async throws
    /// Runs what ``run()`` runs in a task of the database's own, which ends when the database is released.
    func runOnItsOwn()
}

/// Where a guide database is: an SQLite file, or a PostgreSQL database (several instances share it). The one
/// place the two are told apart by their address; opening one is GuideStoreBackends' `makeGuideDatabase`.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresLocation)

    /// A `postgres://` address (``PostgresLocation``), else the path of an SQLite file; a StoreError for an
    /// address that is not a valid one.
    public init(_ text: String) throws {
        self = PostgresLocation.isURL(text) ? .postgres(try PostgresLocation(url: text)) : .sqlite(path: text)
    }

    /// The path, or the address without its password: for messages and logs.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location): location.description
        }
    }
}

/// Who may read a store's file while an import writes it.
public enum ImportReaders: Sendable {
    /// Serve's requests, or anyone else: every import goes through the WAL, which keeps the guide readable meanwhile.
    case alongside
    /// Nobody in this process until the import ends (one command-line run). A first import into an SQLite file then
    /// takes the file for itself, if no other connection has it open (`SQLiteListingStore.takeForFirstImport()`): a
    /// reader that opens the file after that waits for the import, up to the busy timeout. (`tvguide refresh` reads
    /// its sources before it imports, so the pool's readers are open and its imports go through the WAL.)
    /// PostgreSQL's readers are never held up by an import, and its imports are the same either way.
    case afterwards
}
