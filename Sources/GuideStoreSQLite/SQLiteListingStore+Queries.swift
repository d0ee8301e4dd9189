import Foundation
import GRDB
import GuideCore
import GuideStore

extension SQLiteListingStore {
    public func channels() async throws -> [Channel] {
        try await mapErrors {
            try await read { db in
                try Row.fetchAll(db, sql: "SELECT id, details FROM channel ORDER BY position").compactMap { row in
                    let id = ChannelID(row[0] as String)
                    return (row[1] as Data).withUnsafeBytes { DetailsCodec.decode($0, id: id) }
                }
            }
        }
    }

    public func listedChannels() async throws -> [ChannelID] {
        try await mapErrors {
            try await read { db in
                try String.fetchAll(db, sql: """
                    SELECT id FROM channel c WHERE EXISTS (SELECT 1 FROM programme WHERE channel_key = c.key AND hidden = 0) ORDER BY position
                    """).map { ChannelID($0) }
            }
        }
    }

    public func listedChannels(_ channels: [ChannelID], in window: TimeWindow) async throws -> [ChannelID] {
        let start = window.start.unixSeconds, end = window.end.unixSecondsRoundedUp
        return try await mapErrors {
            try await read { db in
                let schedule = try scheduleIndex(db)
                return schedule.listed(schedule.slots(for: channels), from: start, to: end)
            }
        }
    }

    public func programmes(on channel: ChannelID, in window: TimeWindow) async throws -> [StoredProgramme] {
        // The same window rule as the grid's, in one place: ScheduleIndex.window.
        try await guide(in: window, channels: [channel]).first?.programmes ?? []
    }

    public func guide(in window: TimeWindow, channels: [ChannelID]?, detail: ProgrammeDetail) async throws -> [ChannelListings] {
        let start = window.start.unixSeconds
        let end = window.end.unixSecondsRoundedUp
        return try await mapErrors {
            try await read { db in
                let schedule = try scheduleIndex(db)
                let slots = schedule.slots(for: channels)
                let (ids, owners, ends) = schedule.windows(slots, from: start, to: end)
                let rows = try programmes(db, ids, at: schedule.generation, detail: detail) { slots[owners[$0]].channel }
                return ScheduleIndex.listings(slots, ends: ends, rows: rows)
            }
        }
    }

    public func nowNext(at instant: Date, channels: [ChannelID]?, detail: ProgrammeDetail,
                        omitting: (@Sendable (ProgrammeID) -> Bool)?) async throws -> [NowNext] {
        let time = instant.unixSeconds
        return try await mapErrors {
            try await read { db in
                let schedule = try scheduleIndex(db)
                let found = schedule.nowNext(at: time, in: schedule.slots(for: channels))
                let ids = ScheduleIndex.ids(found, omitting: omitting)
                let rows = try programmes(db, ids, at: schedule.generation, detail: detail) { found[$0 / 2].channel }
                return ScheduleIndex.nowNext(found, rows: rows)
            }
        }
    }

    /// The programmes `ids` (0: none), in that order, nil where none; summaries from ``ProgrammeCache`` where it has
    /// them, read at the schedule's `generation`. Whole programmes are read each time: exports read every one once,
    /// and each can be kilobytes.
    private func programmes(_ db: Database, _ ids: [Int64], at generation: Int64, detail: ProgrammeDetail,
                            channel: (Int) -> ChannelID) throws -> [StoredProgramme?] {
        guard detail == .summary else { return try ProgrammeRows(db, detail: detail).fetch(db, ids: ids, channel: channel) }
        var found = cache.lookup(ids, detail: detail, generation: generation)
        let missing = found.missing
        guard !missing.isEmpty else { return found.rows }
        let fetched = try ProgrammeRows(db, detail: detail).fetch(db, ids: missing.map { ids[$0] }) { channel(missing[$0]) }
        for (index, row) in zip(missing, fetched) { found.rows[index] = row }
        cache.keep(fetched.compactMap { $0 }, detail: detail, generation: generation)
        return found.rows
    }

    public func coverage() async throws -> TimeWindow? {
        try await mapErrors { try await read { db in try scheduleIndex(db).coverage } }
    }

    /// A search by the plan both stores share (``SearchPlan``): titles and bodies through their trigram indexes
    /// (shorter terms by a scan of the distinct titles and bodies), checked against the in-memory schedule.
    public func search(_ query: SearchQuery) async throws -> [StoredProgramme] {
        guard !query.terms.isEmpty else { return [] }
        return try await mapErrors {
            let schedule = try await read { db in try scheduleIndex(db) }
            return try await SearchPlan.run(query, schedule: schedule, in: SearchPlan.Store(
                texts: { term in try await self.read { db in try Self.texts(db, term, everything: query.scope == .all) } },
                matching: { ids, limit in try await self.read { db in try Self.matching(db, ids, query, limit: limit) } }))
        }
    }

    /// The titles (and, searching everything, bodies) holding `term`: at most every distinct text, far fewer than
    /// the programmes (48,000 and 63,000 in 1.75 M; "the" is in 22,000 of the bodies, found in 10 ms). A term shorter
    /// than a trigram, or an index row found damaged, reads every distinct text instead (``HoldsFunction``).
    private static func texts(_ db: Database, _ term: String, everything: Bool) throws -> (titles: [Int64], bodies: [Int64]) {
        func holding(_ table: String) throws -> [Int64] {
            if let ids = try TrigramIndex.texts(db, of: table, holding: term) { return ids }
            return try Int64.fetchAll(db, sql: "SELECT id FROM \(table) WHERE holds(folded, ?)", arguments: [term])
        }
        return (try holding("title"), everything ? try holding("body") : [])
    }

    /// Of the programmes `ids`, those holding every term of `query`, by start.
    private static func matching(_ db: Database, _ ids: [Int64], _ query: SearchQuery, limit: Int) throws -> [StoredProgramme] {
        var conditions = ["p.hidden = 0"]
        var arguments: [any DatabaseValueConvertible] = [Self.jsonArray(ids)]
        for term in query.terms {
            if query.scope == .title {
                conditions.append("holds(t.folded, ?)")
                arguments.append(term)
            } else {
                conditions.append("(holds(t.folded, ?) OR coalesce(holds(b.folded, ?), 0))")
                arguments.append(contentsOf: [term, term])
            }
        }
        if let after = query.endingAfter {
            conditions.append("p.stop > ?")
            arguments.append(after.unixSeconds)
        }
        arguments.append(limit)
        // CROSS JOIN keeps the order: from the ids, never from a scan of the titles that hold a common word.
        return try ProgrammeRows(db).fetchAll(db, sql: """
            SELECT \(ProgrammeRows.columns()) FROM json_each(?) i CROSS JOIN programme p ON p.id = i.value
            CROSS JOIN title t ON t.id = p.title_id LEFT JOIN body b ON b.id = p.body_id CROSS JOIN channel c ON c.key = p.channel_key
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY p.start, p.id LIMIT ?
            """, arguments: StatementArguments(arguments.map { $0 as (any DatabaseValueConvertible)? }))
    }

    private static func jsonArray(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }

    public func programme(_ id: ProgrammeID) async throws -> StoredProgramme? {
        try await mapErrors {
            try await read { db in
                try ProgrammeRows(db).fetchAll(db, sql: """
                    SELECT \(ProgrammeRows.columns()) FROM programme p JOIN channel c ON c.key = p.channel_key WHERE p.id = ?
                    """, arguments: [id.rawValue]).first
            }
        }
    }

    public func forEachProgramme(_ body: @escaping @Sendable (StoredProgramme) throws -> Void) async throws {
        try await mapErrors {
            try await read { db in
                // In guide order, channel by channel, each channel's programmes by start: the programme index's order.
                try ProgrammeRows(db).forEach(db, sql: """
                    SELECT \(ProgrammeRows.columns()) FROM channel c JOIN programme p ON p.channel_key = c.key
                    WHERE p.hidden = 0 ORDER BY c.position, p.start, p.id
                    """) { _, programme in
                    if let programme { try body(programme) }
                }
            }
        }
    }
}
