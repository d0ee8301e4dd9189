import Foundation
import GuideCore
import GuideStore
import NIOCore
import PostgresNIO

extension PostgresListingStore {
    public func channels() async throws -> [GuideCore.Channel] {
        try await pool.withConnection { link in
            try await link.query("SELECT id, details FROM channel ORDER BY position").compactMap { row in
                let (id, details) = try row.decode((String, ByteBuffer).self)
                return details.withUnsafeReadableBytes { DetailsCodec.decode($0, id: ChannelID(id)) }
            }
        }
    }

    /// From the in-memory schedule: a query per channel costs a round trip's worth of index probes on every page.
    public func listedChannels() async throws -> [ChannelID] {
        try await currentSchedule().index.slots.filter { !$0.entries.isEmpty }.map(\.channel)
    }

    public func listedChannels(_ channels: [ChannelID], in window: TimeWindow) async throws -> [ChannelID] {
        let schedule = try await currentSchedule(stale: false).index
        return schedule.listed(schedule.slots(for: channels), from: window.start.unixSeconds, to: window.end.unixSecondsRoundedUp)
    }

    public func programmes(on channel: ChannelID, in window: TimeWindow) async throws -> [StoredProgramme] {
        try await guide(in: window, channels: [channel]).first?.programmes ?? []
    }

    public func guide(in window: TimeWindow, channels: [ChannelID]?, detail: ProgrammeDetail) async throws -> [ChannelListings] {
        let start = window.start.unixSeconds
        let end = window.end.unixSecondsRoundedUp
        return try await scheduled(detail) { schedule in
            let slots = schedule.slots(for: channels)
            let (ids, owners, ends) = schedule.windows(slots, from: start, to: end)
            return (ids, { slots[owners[$0]].channel }, { ScheduleIndex.listings(slots, ends: ends, rows: $0) })
        }
    }

    public func nowNext(at instant: Date, channels: [ChannelID]?, detail: ProgrammeDetail,
                        omitting: (@Sendable (ProgrammeID) -> Bool)?) async throws -> [NowNext] {
        let time = instant.unixSeconds
        return try await scheduled(detail) { schedule in
            let found = schedule.nowNext(at: time, in: schedule.slots(for: channels))
            return (ScheduleIndex.ids(found, omitting: omitting), { found[$0 / 2].channel },
                    { ScheduleIndex.nowNext(found, rows: $0) })
        }
    }

    /// What `plan` makes of the current schedule's programmes: it names the ids to read (0 for none), each one's
    /// channel, and how to assemble the rows. Rows come from ``ProgrammeCache`` where it has them, the rest in one
    /// query (``read(_:sources:detail:)``), outside any transaction: an id missing from the answer was replaced by an import since the schedule was
    /// read, and the read starts again (after three tries, in one snapshot).
    func scheduled<T: Sendable>(_ detail: ProgrammeDetail,
                                _ plan: @Sendable (ScheduleIndex) -> (ids: [Int64], channel: (Int) -> ChannelID,
                                                                      assemble: ([StoredProgramme?]) -> T)) async throws -> T {
        tries: for attempt in 0..<3 {
            // The first try may use the schedule from before an import whose new one is loading; a try after rows
            // were found gone waits for the new one.
            let schedule = try await currentSchedule(stale: attempt == 0)
            let (ids, channel, assemble) = plan(schedule.index)
            var found = cache.lookup(ids, detail: detail, generation: schedule.index.generation)
            let missing = found.missing
            guard !missing.isEmpty else { return assemble(found.rows) }
            let fetched = try await read(missing.map { (ids[$0], channel($0)) }, sources: schedule.sources, detail: detail)
            for index in missing {
                guard let programme = fetched[ids[index]] else { continue tries }
                found.rows[index] = programme
            }
            return assemble(found.rows)
        }
        return try await snapshot { link in
            let schedule = try await scheduleIndex(link)
            let (ids, channel, assemble) = plan(schedule.index)
            return assemble(try await PostgresProgrammeRows(sources: schedule.sources, detail: detail).fetch(link, ids: ids, channel: channel))
        }
    }

    /// The programmes `wanted` (by id, with the channel each is on), read once however many requests want them at once:
    /// those another request is reading now are awaited, the rest read in one query (on a connection of its own)
    /// and kept in the cache. An id missing from the answer is gone (an import replaced it).
    private func read(_ wanted: [(id: Int64, channel: ChannelID)], sources: [Int64: SourceName],
                      detail: ProgrammeDetail) async throws -> [Int64: StoredProgramme] {
        typealias Reading = Task<[Int64: StoredProgramme], any Error>
        let (others, mine, fresh) = reading.withLock { reading -> ([Reading], Reading?, [Int64]) in
            var others: Set<Reading> = []
            var fresh: [(id: Int64, channel: ChannelID)] = []
            for row in wanted {
                if let other = reading[RowKey(id: row.id, detail: detail)] { others.insert(other) } else { fresh.append(row) }
            }
            guard !fresh.isEmpty else { return (Array(others), nil, []) }
            let pool = self.pool, cache = self.cache, toRead = fresh
            let task = Reading {
                let rows = try await pool.withConnection { link in
                    try await PostgresProgrammeRows(sources: sources, detail: detail).fetch(link, ids: toRead.map(\.id)) { toRead[$0].channel }
                }
                let found = rows.compactMap { $0 }
                cache.keep(found, detail: detail, generation: 0)   // Any: kept across generations.
                return Dictionary(found.map { ($0.id.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
            }
            for row in fresh { reading[RowKey(id: row.id, detail: detail)] = task }
            return (Array(others), task, fresh.map(\.id))
        }
        var found: [Int64: StoredProgramme] = [:]
        if let mine {
            let result = await mine.result
            reading.withLock { reading in
                for id in fresh where reading[RowKey(id: id, detail: detail)] == mine { reading[RowKey(id: id, detail: detail)] = nil }
            }
            found.merge(try result.get()) { first, _ in first }
        }
        for other in others { found.merge(try await other.value) { first, _ in first } }
        return found
    }

    /// From the in-memory schedule, as SQLite's query: the earliest start, and the stop of each channel's last programme.
    public func coverage() async throws -> TimeWindow? {
        try await currentSchedule().index.coverage
    }

    /// A search by the plan both stores share (``SearchPlan``): titles and bodies through their trigram indexes,
    /// checked against the in-memory schedule. Terms are LIKE patterns with the wildcards escaped, so "%" and "_"
    /// match only themselves.
    public func search(_ query: SearchQuery) async throws -> [StoredProgramme] {
        guard !query.terms.isEmpty else { return [] }
        let schedule = try await currentSchedule()
        return try await SearchPlan.run(query, schedule: schedule.index, in: SearchPlan.Store(
            texts: { term in
                try await self.texts(term, everything: query.scope == .all, generation: schedule.index.generation)
            },
            matching: { ids, limit in try await self.matching(ids, query, limit: limit, sources: schedule.sources) }))
    }

    /// The titles (and, searching everything, bodies) holding `term`: at most every distinct text, far fewer than the
    /// programmes. Titles and bodies are asked on two connections at once. A term of a trigram or less is looked for in
    /// them packed in memory (``PostgresShortTerms``); when they are too many to keep, the server scans them for a
    /// shorter term. A longer one asks the trigram indexes for the texts holding its trigrams
    /// (``PostgresTrigramIndex``), checked with `strpos`, which finds bytes, where LIKE matched a pattern a character
    /// at a time (at 1.75 M, "新闻" in the 63,000 bodies: 31-35 ms by LIKE, 23.5 ms by strpos).
    private func texts(_ term: String, everything: Bool,
                       generation: Int64) async throws -> (titles: [Int64], bodies: [Int64]) {
        let short = term.count < 3
        if term.count <= PostgresShortTerms.longest, let packed = try await shortTerms(generation) {
            async let titles = packed.titles.holding(term)
            return (await titles, everything ? await packed.bodies.holding(term) : [])
        } else if short {
            async let titles = ids("SELECT array_agg(id) FROM title WHERE strpos(folded, \(term)) > 0")
            let bodies = !everything ? [] : try await bodiesScanned(for: term)
            return (try await titles, bodies)
        }
        async let titles = indexed("title", holding: term)
        let bodies = !everything ? [] : try await indexed("body", holding: term)
        return (try await titles, bodies)
    }

    /// The texts of `table` holding `term` by their trigram index (``PostgresTrigramIndex``), or by reading them all
    /// where a row of the index does not read.
    private func indexed(_ table: String, holding term: String) async throws -> [Int64] {
        let found = try await pool.withConnection { link in
            try await PostgresTrigramIndex.texts(of: table, holding: term, on: link)
        }
        if let found { return found }
        return table == "body" ? try await bodiesScanned(for: term)
            : try await ids("SELECT array_agg(id) FROM title WHERE strpos(folded, \(term)) > 0")
    }

    /// The titles and bodies packed in memory for the schedule of `generation`, loaded by the first search that
    /// wants them (``PostgresShortTerms``); nil when they are too many to keep.
    private func shortTerms(_ generation: Int64) async throws -> PostgresShortTerms? {
        let task = shortTerms.withLock { kept in
            if let kept, kept.generation >= generation { return kept.task }
            let task = Task<PostgresShortTerms?, any Error> {
                do {
                    let limit = self.shortTermLimit.load(ordering: .relaxed)
                    return try await self.snapshot { link in
                        try await PostgresShortTerms.load(link, generation: generation, limit: limit)
                    }
                } catch {
                    // The next one tries again.
                    self.shortTerms.withLock { if $0?.generation == generation { $0 = nil } }
                    throw error
                }
            }
            kept = (generation, task)
            return task
        }
        return try await task.value
    }

    /// The bodies holding `term`, the table read in two halves at once (by their rows' places, `ctid`): at 1.75 M
    /// the scan of 63,000 descriptions took 34 ms whole and 15-16 ms a half. The middle is taken once, so rows added
    /// meanwhile are in the second half.
    private func bodiesScanned(for term: String) async throws -> [Int64] {
        let middle = try await pool.withConnection { link in
            try await link.value("SELECT pg_relation_size('body') / (2 * current_setting('block_size')::bigint)",
                                 as: Int64.self)
        } ?? 0
        let from = "SELECT array_agg(id) FROM body WHERE strpos(folded, $1) > 0 AND ctid"
        var bindings = PostgresBindings()
        bindings.append(term)
        bindings.append("(\(middle),0)")
        async let head = ids(PostgresQuery(unsafeSQL: from + " < $2::tid", binds: bindings))
        let tail = try await ids(PostgresQuery(unsafeSQL: from + " >= $2::tid", binds: bindings))
        return try await head + tail
    }

    /// The ids `query` gathers into one array (one row: a row each, 22,000 descriptions holding "the" at 1.75 M, took
    /// longer to decode than to find).
    private func ids(_ query: PostgresQuery) async throws -> [Int64] {
        try await pool.withConnection { link in try await link.value(query, as: [Int64].self) ?? [] }
    }

    /// Of the programmes `ids`, those holding every term of `query`, by start; `sources` names their sources (the
    /// schedule's, read with it: not a round trip more for each search).
    private func matching(_ ids: [Int64], _ query: SearchQuery, limit: Int,
                          sources: [Int64: SourceName]) async throws -> [StoredProgramme] {
        var bindings = PostgresBindings()
        bindings.append(ids)
        var conditions = ["NOT p.hidden"]
        for term in query.terms {
            bindings.append("%" + Self.escapeLike(term) + "%")
            let pattern = "$\(bindings.count)"
            conditions.append(query.scope == .title ? "t.folded LIKE \(pattern)"
                              : "(t.folded LIKE \(pattern) OR coalesce(b.folded, '') LIKE \(pattern))")
        }
        if let after = query.endingAfter {
            bindings.append(after.unixSeconds)
            conditions.append("p.stop > $\(bindings.count)")
        }
        bindings.append(limit)
        let sql = """
            SELECT \(PostgresProgrammeRows.columns()) FROM programme p JOIN unnest($1::bigint[]) AS i(id) ON p.id = i.id
            JOIN title t ON t.id = p.title_id LEFT JOIN body b ON b.id = p.body_id JOIN channel c ON c.key = p.channel_key
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY p.start, p.id LIMIT $\(bindings.count)
            """
        return try await pool.withConnection { link in
            try await PostgresProgrammeRows(sources: sources, detail: .full)
                .fetchAll(link, PostgresQuery(unsafeSQL: sql, binds: bindings))
        }
    }

    /// `text` with LIKE's wildcards and escape character escaped.
    static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    public func programme(_ id: ProgrammeID) async throws -> StoredProgramme? {
        try await pool.withConnection { link in
            try await PostgresProgrammeRows(link).fetchAll(link, """
                SELECT \(unescaped: PostgresProgrammeRows.columns()) FROM programme p JOIN channel c ON c.key = p.channel_key
                WHERE p.id = \(id.rawValue)
                """).first
        }
    }

    public func forEachProgramme(_ body: (StoredProgramme) throws -> Void) async throws {
        try await snapshot { link in
            let rows = try await PostgresProgrammeRows(link)
            try await link.forEachRow("""
                SELECT \(unescaped: PostgresProgrammeRows.columns()) FROM channel c JOIN programme p ON p.channel_key = c.key
                WHERE NOT p.hidden ORDER BY c.position, p.start, p.id
                """) { row in
                if let programme = try rows.programme(row, channel: nil) { try body(programme) }
            }
        }
    }
}
