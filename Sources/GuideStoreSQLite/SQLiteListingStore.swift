import Foundation
import GRDB
import GuideCore
import GuideStore
import GuideThreads
import ServiceLifecycle
import Synchronization

/// The embedded store: one SQLite file in WAL mode, so the guide stays readable while an import writes.
public final class SQLiteListingStore: GuideDatabase {
    let pool: DatabasePool
    /// Wall-clock time, for import timestamps; tests fix it.
    public let now: @Sendable () -> Date
    /// The schedule as of the last now/next, reloaded when the listings' generation moves on.
    private let schedule = Mutex<ScheduleIndex?>(nil)
    /// Summaries already read, for the schedule's generation (``ProgrammeCache``).
    let cache = ProgrammeCache(keptAcrossGenerations: false)
    /// Every write takes this one slot: GRDB serializes its closures, but a shared script's transaction spans many
    /// (``transaction(_:)``).
    let writeSlot = Slots(1)
    /// Closed while a first import has the file to itself: the reads wait there for it (``ReadGate``).
    let readGate = ReadGate()
    /// Its readers' and writer's use, for /metrics.
    let poolUse: StorePoolUse

    /// The most memory SQLite keeps in this process, caches included (a soft limit: it frees cached pages to stay under).
    static let sqliteMemory = 48 * 1024 * 1024

    /// The most of the WAL file kept between writes (``init(path:now:)``): twice SQLite's checkpoint interval (1,000
    /// pages of 32 KB), so that the file is cut back only after writes past that.
    static let walKept = 64 * 1024 * 1024

    /// How long a connection waits for another's lock before it fails (the store's and a backup's).
    static let busyWait: TimeInterval = 10

    /// Who may read the file while an import writes it (``ImportReaders``).
    let readers: ImportReaders

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String, now: @escaping @Sendable () -> Date, readers: ImportReaders = .alongside) throws {
        self.now = now
        self.readers = readers
        do {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                // 32 KB pages for a new database (an existing one keeps its size until VACUUM): an import writes a
                // page per pwrite to the WAL and again at the checkpoint, and 8 times fewer of them made imports
                // 10-40% faster (docs/performance.md); now/next and windows read as fast as with 4 KB.
                try db.execute(sql: "PRAGMA page_size = 32768")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // A 32 MB page cache keeps the guide's hot indexes in memory. No memory-mapping: it made now/next a
                // fifth faster but counts the mapped file as resident memory, 200 MB after one scan of a big guide.
                try db.execute(sql: "PRAGMA cache_size = -32768")
                // All of SQLite's memory in the process, every connection's cache together, kept near 48 MB: the pool's
                // six connections would otherwise each grow to their 32 MB over days of reads and imports (the soak
                // saw resident memory climb until they did). Process-wide; the same value on every connection. It was
                // 96 MB until the rows the grid and now/next read were kept as summaries (``ProgrammeCache``): at 1.75 M
                // programmes 48 MB left serve's RSS 30 MB lower after 12 minutes of browsing, its pages as fast.
                try db.execute(sql: "PRAGMA soft_heap_limit = \(Self.sqliteMemory)")
                // The WAL file is kept at its largest between writes while any connection is open (serve's always
                // are): 46 MB after an import of 0.1 M programmes, 400 MB after 1.75 M, for good. Past this, the next
                // write that starts it over cuts it back.
                try db.execute(sql: "PRAGMA journal_size_limit = \(Self.walKept)")
                try Self.registerExtensions(db)
            }
            configuration.busyMode = .timeout(Self.busyWait)
            // A shared script's transaction stays open between GRDB's closures (``transaction(_:)``).
            configuration.allowsUnsafeTransactions = true
            pool = try Self.openPool(path: path, configuration: configuration)
            poolUse = StorePoolUse(store: "sqlite", limit: configuration.maximumReaderCount + 1)
            try SchemaMigrations.migrate(pool)
        } catch let error as DatabaseError {
            throw StoreError(error.resultCode == .SQLITE_NOTADB ? .corrupt : .cannotOpen,
                             "cannot open the database at \(path): \(error.message ?? error.description)")
        } catch let error as CocoaError {
            throw StoreError(.cannotOpen, "cannot create the folder for the database at \(path): \(error.localizedDescription)")
        }
    }

    /// How many times a new file is opened again when another process (or store) opening it at the same moment held
    /// it (``openPool(path:configuration:)``).
    static let newFileAttempts = 5

    /// The pool of the file at `path`. GRDB switches a new file to the WAL's mode as it opens it, which reads the file
    /// and then writes its header; SQLite does not wait there for another connection's lock (two waiting on each
    /// other would wait for good), so when two open one new file together, one may fail at once with "database is
    /// locked". That one lets go of the file and opens it again, finding it in the WAL's mode or waiting for the
    /// other's lock as usual. An existing file is switched already (or waits as usual).
    private static func openPool(path: String, configuration: Configuration) throws -> DatabasePool {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0  // None yet: new.
        var attempt = 1
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && size == 0
                                                        && attempt < newFileAttempts {
                attempt += 1
            }
        }
    }

    /// What every connection to a store's file needs besides SQLite's own: `holds()` and the trigram indexes'
    /// tokenizer.
    static func registerExtensions(_ db: Database) throws {
        try HoldsFunction.register(db)
        try WordTrigrams.register(db)
    }

    /// A read on one of the pool's reader connections, measured (``StorePoolUse``).
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        let asked = ContinuousClock.now
        await readGate.pass()
        return try await pool.read { [poolUse] db in try poolUse.lent(askedAt: asked) { try body(db) } }
    }

    /// Nothing to keep open beyond the file: waits until cancelled or shut down.
    public func run() async throws {
        try? await gracefulShutdown()
    }

    /// The schema was brought up to date when the file was opened.
    public func prepare() async throws {}

    /// Nothing runs beside the file.
    public func runOnItsOwn() {}

    /// The session's inserts run in one closure on GRDB's writer thread (not one of Swift's), taking batches as the
    /// reader's thread hands them over; the shared end of the import follows in the same transaction. A first import
    /// may take the file for itself (``takeForFirstImport()``).
    public func importListings(from source: SourceName, reading feed: ImportFeed) async throws -> ImportSummary {
        let startedAt = now().unixSeconds
        var alone = false
        do {
            alone = try await mapErrors { try await takeForFirstImport() }
            let summary = try await transaction { statements in
                let finish = try await statements.onWriter { db in
                    let session = try SQLiteImportSession(db: db, source: source, startedAt: startedAt)
                    while let batch = feed.take() {
                        switch batch {
                        case .items(let items): for item in items { try session.apply(item) }
                        case .finished(let issues): session.record(issues)
                        case .failed(let error): throw error
                        }
                        feed.giveBack(batch)
                    }
                    return try session.finish()
                }
                return try await finish.run(statements)
            }
            if alone { await giveBackAfterFirstImport() }
            return summary
        } catch {
            feed.cancel()
            if alone { await giveBackAfterFirstImport() }
            throw error
        }
    }

    /// The programmes are those the imports counted (``TextPrune``) less the hidden ones, counted by their own index:
    /// counting the rows read the whole of `programme_by_channel`, 70-100 ms at 1.75 M programmes after each
    /// `tvguide import` and at each scrape of `/metrics` (the planner picks that index for `WHERE hidden` too).
    public func counts() async throws -> (channels: Int, programmes: Int) {
        try await mapErrors {
            try await read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM channel") ?? 0,
                 try Int.fetchOne(db, sql: """
                    SELECT max(0, coalesce((SELECT CAST(stored_programmes AS INTEGER) FROM guide_state), 0)
                                  - (SELECT count(*) FROM programme INDEXED BY programme_hidden WHERE hidden))
                    """) ?? 0)
            }
        }
    }

    public func version() async throws -> GuideVersion {
        try await mapErrors {
            try await read { db in
                let generation = try ScheduleIndex.generation(db)
                let updated = try Int64.fetchOne(db, sql: "SELECT max(imported_at) FROM source")
                return GuideVersion(generation: generation, updated: updated.map { Date(unixSeconds: $0) })
            }
        }
    }

    /// The in-memory schedule for the snapshot `db` reads, loading it if the listings changed since the last one.
    func scheduleIndex(_ db: Database) throws -> ScheduleIndex {
        let generation = try ScheduleIndex.generation(db)
        if let cached = schedule.withLock({ $0 }), cached.generation == generation { return cached }
        let loaded = try ScheduleIndex.load(db)
        schedule.withLock { $0 = loaded }
        return loaded
    }

    func mapErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw StoreError(error.resultCode == .SQLITE_CORRUPT ? .corrupt : .failed,
                             "the database failed: \(error.message ?? error.description)")
        }
    }
}
