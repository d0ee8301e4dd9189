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
                let rows = try ProgrammeRows(db, detail: detail).fetch(db, ids: ids) { slots[owners[$0]].channel }
                return ScheduleIndex.listings(slots, ends: ends, rows: rows)
            }
        }
    }

    public func nowNext(at instant: Date, channels: [ChannelID]?, detail: ProgrammeDetail) async throws -> [NowNext] {
        let time = instant.unixSeconds
        return try await mapErrors {
            try await read { db in
                let schedule = try scheduleIndex(db)
                let found = schedule.nowNext(at: time, in: schedule.slots(for: channels))
                let rows = try ProgrammeRows(db, detail: detail).fetch(db, ids: ScheduleIndex.ids(found)) { found[$0 / 2].channel }
                return ScheduleIndex.nowNext(found, rows: rows)
            }
        }
    }

    public func coverage() async throws -> TimeWindow? {
        try await mapErrors {
            try await read { db in
                // One index seek per channel at each end, rather than a scan of every programme.
                let row = try Row.fetchOne(db, sql: """
                    SELECT min(first), max(last) FROM (
                        SELECT (SELECT start FROM programme WHERE channel_key = c.key AND hidden = 0 ORDER BY start LIMIT 1) AS first,
                               (SELECT stop FROM programme WHERE channel_key = c.key AND hidden = 0 ORDER BY start DESC LIMIT 1) AS last
                        FROM channel c)
                    """)
                guard let first = row?[0] as Int64?, let last = row?[1] as Int64? else { return nil }
                return TimeWindow(start: Date(unixSeconds: first),
                                  end: Date(unixSeconds: last))
            }
        }
    }

    public func search(_ query: SearchQuery) async throws -> [StoredProgramme] {
        guard !query.terms.isEmpty else { return [] }
        // Titles are found through the trigram index of distinct titles (terms of three or more characters);
        // shorter terms, and sub-titles and descriptions, are checked on the folded text.
        let indexed = query.terms.filter { $0.count >= 3 }
        var conditions = ["p.hidden = 0"]
        var arguments: [any DatabaseValueConvertible] = []
        var from = "programme p JOIN title t ON t.id = p.title_id"
        let channelJoin = "JOIN channel c ON c.key = p.channel_key"
        if query.scope == .title {
            if !indexed.isEmpty {
                let phrases = indexed.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
                from = "title_search f JOIN title t ON t.id = f.rowid JOIN programme p ON p.title_id = t.id"
                conditions.append("title_search MATCH ?")
                arguments.append(phrases.joined(separator: " AND "))
            }
            for term in query.terms where term.count < 3 {
                conditions.append("instr(t.folded, ?) > 0")
                arguments.append(term)
            }
        } else {
            for term in query.terms {
                conditions.append("(instr(t.folded, ?) > 0 OR instr(p.search_text, ?) > 0)")
                arguments.append(contentsOf: [term, term])
            }
        }
        if let after = query.endingAfter {
            conditions.append("p.stop > ?")
            arguments.append(after.unixSeconds)
        }
        arguments.append(query.limit)
        let sql = """
            SELECT \(ProgrammeRows.columns()) FROM \(from) \(channelJoin)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY p.start, p.id LIMIT ?
            """
        let statementArguments = StatementArguments(arguments.map { $0 as (any DatabaseValueConvertible)? })
        return try await mapErrors {
            try await read { db in
                try ProgrammeRows(db).fetchAll(db, sql: sql, arguments: statementArguments)
            }
        }
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
