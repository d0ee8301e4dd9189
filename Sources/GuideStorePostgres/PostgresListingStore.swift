import Foundation
import GuideCore
import GuideStore
import GuideThreads
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
    public let now: @Sendable () -> Date
    /// The schedule kept, and the load of a newer one when one runs.
    private let schedules = Mutex(ScheduleState())
    /// Programmes already read, by id (``ProgrammeCache``).
    let cache = ProgrammeCache(keptAcrossGenerations: true)
    /// Programmes being read now, by id and detail: another request wanting one waits for that read.
    let reading = Mutex<[RowKey: Task<[Int64: StoredProgramme], any Error>]>([:])
    /// The titles and bodies packed for words shorter than a trigram, of one generation (``PostgresShortTerms``).
    let shortTerms = Mutex<(generation: Int64, task: Task<PostgresShortTerms?, any Error>)?>(nil)
    /// How many bytes of titles and bodies are kept for them at most; tests lower it.
    let shortTermLimit = Atomic(PostgresShortTerms.byteLimit)
    /// The task running the connections when the store runs on its own (``runOnItsOwn()``).
    private let ownRunner = Mutex<Task<Void, Never>?>(nil)

    /// A store for `location` that keeps at most `connections` open. Nothing is asked of the server until
    /// ``run()`` runs and ``prepare()`` has checked the connection and brought the schema up to date.
    public init(location: PostgresLocation, connections: Int = 16, now: @escaping @Sendable () -> Date) throws {
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

    /// Runs `body` in one write transaction and notes the generation it committed (``ScheduleState/ownWrite``).
    func writing<T: Sendable>(_ body: (PostgresLink) async throws -> T) async throws -> T {
        let (result, generation) = try await pool.transaction { link in
            let result = try await body(link)
            // The guide_state row is locked by this transaction if it moved the generation on: this is what commits.
            return (result, try await link.value("SELECT generation FROM guide_state", as: Int64.self) ?? 0)
        }
        schedules.withLock { $0.ownWrite = max($0.ownWrite, generation) }
        return result
    }

    public func importListings(from source: SourceName, reading feed: ImportFeed) async throws -> ImportSummary {
        let startedAt = now().unixSeconds
        do {
            return try await transaction { statements in
                try await statements.takeTurn(.listings)
                let session = try await PostgresImportSession(link: statements.link, source: source, startedAt: startedAt)
                do {
                    while let batch = await feed.next() {
                        switch batch {
                        case .items(let items): try await session.apply(items)
                        case .finished(let issues): session.record(issues)
                        case .failed(let error): throw error
                        }
                        feed.giveBack(batch)
                    }
                    return try await session.finish().run(statements)
                } catch {
                    // A batch's COPY may not have reached the server yet: the transaction ends after it.
                    await session.stop()
                    throw error
                }
            }
        } catch {
            feed.cancel()
            throw error
        }
    }

    /// The programmes are those the imports counted (``TextPrune``) less the hidden ones, found by their own index:
    /// counting the rows took 0.34 s at 1.75 M programmes, after each `tvguide import` and at each scrape of
    /// `/metrics`.
    public func counts() async throws -> (channels: Int, programmes: Int) {
        try await pool.withConnection { link in
            let row = try await link.query("""
                SELECT (SELECT count(*) FROM channel),
                       greatest(0, greatest(0, (SELECT stored_programmes FROM guide_state))
                                   - (SELECT count(*) FROM programme WHERE hidden))
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

    /// The in-memory schedule for the listings as they are now. When an import has moved the generation on, one
    /// load of the new schedule runs (on a connection of its own) while every request meanwhile, with `stale`, gets
    /// the schedule it replaces: a consistent view of the listings just before the import, whose rows the programme
    /// cache mostly holds. Without `stale` (a read that found rows gone), the caller waits for the load.
    ///
    /// No connection is held while waiting for the load: requests holding connections while a load waits for one
    /// could take every connection there is.
    func currentSchedule(stale: Bool = true) async throws -> PostgresSchedule {
        let generation = try await pool.withConnection { link in
            try await link.value("SELECT generation FROM guide_state", as: Int64.self)
        } ?? 0
        let (kept, loading) = schedules.withLock { state -> (PostgresSchedule?, Task<PostgresSchedule, any Error>?) in
            // Never older than what this instance wrote itself: an admin sees their import at once.
            let usable = state.current.flatMap { stale && $0.index.generation >= state.ownWrite ? $0 : nil }
            if let current = state.current, current.index.generation >= generation { return (current, nil) }
            if let loading = state.loading, loading.generation >= generation { return (usable, loading.task) }
            let task = Task<PostgresSchedule, any Error> {
                do {
                    return try await self.snapshot { link in try await self.scheduleIndex(link) }
                } catch {
                    self.schedules.withLock { $0.loading = nil }   // The next request tries again.
                    throw error
                }
            }
            state.loading = (generation, task)
            return (usable, task)
        }
        if let kept { return kept }
        guard let loading else { throw StoreError(.failed, "the schedule could not be read") }
        return try await loading.value
    }

    /// The in-memory schedule for the snapshot `link` reads, loading it if the listings changed since the last one.
    func scheduleIndex(_ link: PostgresLink) async throws -> PostgresSchedule {
        let generation = try await link.value("SELECT generation FROM guide_state", as: Int64.self) ?? 0
        if let current = schedules.withLock({ $0.current }), current.index.generation == generation { return current }
        var channels: [(key: Int64, id: ChannelID)] = []
        for row in try await link.query("SELECT key, id FROM channel ORDER BY position, key") {
            let (key, id) = try row.decode((Int64, String).self)
            channels.append((key, ChannelID(id)))
        }
        var entries: [ScheduleIndex.Entry] = [], texts: [ScheduleIndex.Texts] = []
        var spans: [Int64: Range<Int>] = [:]
        var longest: Int64 = 0
        var currentKey: Int64?
        var firstOfKey = 0
        let rows: PostgresQuery = """
            SELECT channel_key, start, stop, id, title_id, body_id FROM programme WHERE NOT hidden ORDER BY channel_key, start, stop, id
            """
        try await link.forEachRow(rows, batch: 20_000) { row in
            let (key, start, stop, id, title, body) = try row.decode((Int64, Int64, Int64, Int64, Int64, Int64).self)
            if key != currentKey {
                if let currentKey { spans[currentKey] = firstOfKey..<entries.count }
                currentKey = key
                firstOfKey = entries.count
            }
            longest = max(longest, stop - start)
            entries.append(ScheduleIndex.Entry(start: start, stop: stop, id: id))
            texts.append(ScheduleIndex.Texts(title: title, body: body))
        }
        if let currentKey { spans[currentKey] = firstOfKey..<entries.count }
        let slots = channels.map { ScheduleIndex.Slot(channel: $0.id, entries: spans[$0.key] ?? 0..<0) }
        var sources: [Int64: SourceName] = [:]
        for row in try await link.query("SELECT id, name FROM source") {
            let (id, name) = try row.decode((Int64, String).self)
            sources[id] = SourceName(name)
        }
        let index = ScheduleIndex(generation: generation, slots: slots, entries: entries.exactly(),
                                  texts: texts.exactly(), longest: longest)
        let loaded = PostgresSchedule(index: index, sources: sources)
        schedules.withLock { state in
            if (state.current?.index.generation ?? -1) < generation { state.current = loaded }
            if let loading = state.loading, loading.generation <= generation { state.loading = nil }
        }
        return loaded
    }
}

/// A programme row at one detail.
struct RowKey: Hashable {
    let id: Int64
    let detail: ProgrammeDetail
}

/// The schedule a store keeps, and the load of a newer one that is running (with the generation it was started for).
struct ScheduleState {
    var current: PostgresSchedule?
    var loading: (generation: Int64, task: Task<PostgresSchedule, any Error>)?
    /// The generation this instance's own last write committed: no read here is served an older schedule.
    var ownWrite: Int64 = 0
}

/// A generation's schedule and the names of the sources its programmes come from.
struct PostgresSchedule: Sendable {
    let index: ScheduleIndex
    let sources: [Int64: SourceName]
}
