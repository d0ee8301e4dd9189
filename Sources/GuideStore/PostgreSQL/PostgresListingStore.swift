import Foundation
import GuideCore
import NIOCore
import PostgresNIO
import Synchronization

/// The shared store: one PostgreSQL database that several tvguide instances use at once. Every import is one
/// transaction (readers see the old listings or the new, never a mix); imports take turns through an advisory lock;
/// each instance keeps its own in-memory schedule, reloaded when the shared generation moves on.
public final class PostgresListingStore: GuideDatabase {
    let pool: PostgresConnections
    let locks: PostgresLocks
    public let location: PostgresLocation
    /// Wall-clock time, for import timestamps; tests fix it.
    let now: @Sendable () -> Date
    private let schedule = Mutex<PostgresSchedule?>(nil)
    /// Programmes already read, by id (``ProgrammeCache``).
    let cache = ProgrammeCache()
    /// The task running the connections when the store runs on its own (``runOnItsOwn()``).
    private let ownRunner = Mutex<Task<Void, Never>?>(nil)

    /// A store for `location` that keeps at most `connections` open. Nothing is asked of the server until
    /// ``run()`` runs and ``prepare()`` has checked the connection and brought the schema up to date.
    public init(location: PostgresLocation, connections: Int = 16, now: @escaping @Sendable () -> Date = Date.init) throws {
        self.location = location
        self.now = now
        pool = try PostgresConnections(location, limit: connections)
        locks = PostgresLocks(schema: location.schema)
    }

    public func run() async throws {
        await pool.run()
    }

    /// The client runs in a task that holds the connections, not the store: releasing the store cancels it.
    public func runOnItsOwn() {
        let pool = self.pool
        ownRunner.withLock { runner in
            guard runner == nil else { return }
            runner = Task { await pool.run() }
        }
    }

    deinit {
        ownRunner.withLock { $0?.cancel() }
    }

    /// Connects once (so a wrong address, password or certificate is reported at once rather than after the
    /// client's minute of retries), then creates the schema if needed and brings it up to date.
    public func prepare() async throws {
        try await pool.probe()
        try await PostgresMigrations.migrate(pool, schema: location.schema)
    }

    public func importListings(from source: SourceName, reading feed: ImportFeed) async throws -> ImportSummary {
        let startedAt = now().unixSeconds
        do {
            return try await pool.transaction { link in
                try await link.execute(locks.imports)
                let session = try await PostgresImportSession(link: link, source: source, startedAt: startedAt)
                while let batch = await feed.next() {
                    switch batch {
                    case .items(let items): for item in items { try await session.apply(item) }
                    case .finished(let issues): session.record(issues)
                    case .failed(let error): throw error
                    }
                }
                return try await session.finish()
            }
        } catch {
            feed.cancel()
            throw error
        }
    }

    public func counts() async throws -> (channels: Int, programmes: Int) {
        try await pool.withConnection { link in
            let row = try await link.query("""
                SELECT (SELECT count(*) FROM channel), (SELECT count(*) FROM programme WHERE NOT hidden)
                """).first
            let counts = try row?.decode((Int, Int).self) ?? (0, 0)
            return (counts.0, counts.1)
        }
    }

    public func version() async throws -> GuideVersion {
        try await pool.withConnection { link in
            let row = try await link.query("SELECT (SELECT generation FROM guide_state), (SELECT max(imported_at) FROM source)").first
            let (generation, updated) = try row?.decode((Int64, Int64?).self) ?? (Int64(0), nil)
            return GuideVersion(generation: generation, updated: updated.map { Date(unixSeconds: $0) })
        }
    }

    /// Runs `body` in one read-only snapshot, so the schedule and the rows it reads are of one generation.
    func snapshot<T: Sendable>(_ body: (PostgresLink) async throws -> T) async throws -> T {
        try await pool.withConnection { link in
            try await link.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                let result = try await body(link)
                try await link.execute("COMMIT")
                return result
            } catch {
                _ = try? await link.execute("ROLLBACK")   // The read failed already; that error is the one to report.
                throw error
            }
        }
    }

    /// The in-memory schedule of the listings as they are now: the one kept when the generation has not moved since,
    /// else one loaded in a snapshot of its own.
    func currentSchedule(_ link: PostgresLink) async throws -> PostgresSchedule {
        let generation = try await link.value("SELECT generation FROM guide_state", as: Int64.self) ?? 0
        if let cached = schedule.withLock({ $0 }), cached.index.generation == generation { return cached }
        try await link.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let loaded = try await scheduleIndex(link)
            try await link.execute("COMMIT")
            return loaded
        } catch {
            _ = try? await link.execute("ROLLBACK")   // The read failed already; that error is the one to report.
            throw error
        }
    }

    /// The in-memory schedule for the snapshot `link` reads, loading it if the listings changed since the last one.
    func scheduleIndex(_ link: PostgresLink) async throws -> PostgresSchedule {
        let generation = try await link.value("SELECT generation FROM guide_state", as: Int64.self) ?? 0
        if let cached = schedule.withLock({ $0 }), cached.index.generation == generation { return cached }
        var channels: [(key: Int64, id: ChannelID)] = []
        for row in try await link.query("SELECT key, id FROM channel ORDER BY position, key") {
            let (key, id) = try row.decode((Int64, String).self)
            channels.append((key, ChannelID(id)))
        }
        var entries: [ScheduleIndex.Entry] = []
        var spans: [Int64: Range<Int>] = [:]
        var longest: Int64 = 0
        var currentKey: Int64?
        var firstOfKey = 0
        try await link.forEachRow("SELECT channel_key, start, stop, id FROM programme WHERE NOT hidden ORDER BY channel_key, start, stop, id",
                            batch: 20_000) { row in
            let (key, start, stop, id) = try row.decode((Int64, Int64, Int64, Int64).self)
            if key != currentKey {
                if let currentKey { spans[currentKey] = firstOfKey..<entries.count }
                currentKey = key
                firstOfKey = entries.count
            }
            longest = max(longest, stop - start)
            entries.append(ScheduleIndex.Entry(start: start, stop: stop, id: id))
        }
        if let currentKey { spans[currentKey] = firstOfKey..<entries.count }
        let slots = channels.map { ScheduleIndex.Slot(channel: $0.id, entries: spans[$0.key] ?? 0..<0) }
        var sources: [Int64: SourceName] = [:]
        for row in try await link.query("SELECT id, name FROM source") {
            let (id, name) = try row.decode((Int64, String).self)
            sources[id] = SourceName(name)
        }
        let loaded = PostgresSchedule(index: ScheduleIndex(generation: generation, slots: slots, entries: entries, longest: longest),
                                      sources: sources)
        schedule.withLock { $0 = loaded }
        return loaded
    }
}

/// A generation's schedule and the names of the sources its programmes come from.
struct PostgresSchedule: Sendable {
    let index: ScheduleIndex
    let sources: [Int64: SourceName]
}
