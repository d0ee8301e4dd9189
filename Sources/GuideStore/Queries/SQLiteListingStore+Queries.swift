import Foundation
import GRDB
import GuideCore

extension SQLiteListingStore {
    public func channels() throws -> [Channel] {
        try mapErrors {
            try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT id, details FROM channel ORDER BY position").compactMap { row in
                    let id = ChannelID(row[0] as String)
                    return (row[1] as Data).withUnsafeBytes { DetailsCodec.decode($0, id: id) }
                }
            }
        }
    }

    public func listedChannels() throws -> [ChannelID] {
        try mapErrors {
            try pool.read { db in
                try String.fetchAll(db, sql: """
                    SELECT id FROM channel c WHERE EXISTS (SELECT 1 FROM programme WHERE channel_key = c.key) ORDER BY position
                    """).map { ChannelID($0) }
            }
        }
    }

    public func programmes(on channel: ChannelID, in window: TimeWindow) throws -> [StoredProgramme] {
        // The same window rule as the grid's, in one place: ScheduleIndex.window.
        try guide(in: window, channels: [channel]).first?.programmes ?? []
    }

    public func guide(in window: TimeWindow, channels: [ChannelID]?) throws -> [ChannelListings] {
        let start = Int64(window.start.timeIntervalSince1970.rounded(.down))
        let end = Int64(window.end.timeIntervalSince1970.rounded(.up))
        return try mapErrors {
            try pool.read { db in
                let schedule = try scheduleIndex(db)
                let slots = schedule.slots(for: channels)
                var results = slots.map { ChannelListings(channel: $0.channel, programmes: []) }
                var places: [Int64: (channel: Int, index: Int)] = [:]
                for (channel, slot) in slots.enumerated() {
                    let ids = schedule.window(slot, from: start, to: end)
                    for (index, id) in ids.enumerated() { places[id] = (channel, index) }
                    results[channel].programmes.reserveCapacity(ids.count)
                }
                // Rows arrive in id order; each goes to its channel, then every channel is put back in start order.
                var found: [[(index: Int, programme: StoredProgramme)]] = Array(repeating: [], count: slots.count)
                try ProgrammeRows(db).forEach(db, ids: Array(places.keys)) { id, programme in
                    guard let place = places[id] else { return }
                    var programme = programme
                    programme.programme.channel = slots[place.channel].channel
                    found[place.channel].append((place.index, programme))
                }
                for channel in found.indices {
                    results[channel].programmes = found[channel].sorted { $0.index < $1.index }.map(\.programme)
                }
                return results
            }
        }
    }

    public func nowNext(at instant: Date, channels: [ChannelID]?) throws -> [NowNext] {
        let time = Int64(instant.timeIntervalSince1970.rounded(.down))
        return try mapErrors {
            try pool.read { db in
                let schedule = try scheduleIndex(db)
                let found = schedule.nowNext(at: time, in: schedule.slots(for: channels))
                // The rows, fetched by id in one statement, go straight to their place in the answer.
                var results = found.map { NowNext(channel: $0.channel, now: nil, next: nil) }
                var places: [Int64: (index: Int, isNext: Bool)] = [:]
                places.reserveCapacity(found.count * 2)
                for (index, entry) in found.enumerated() {
                    if let now = entry.now { places[now] = (index, false) }
                    if let next = entry.next { places[next] = (index, true) }
                }
                try ProgrammeRows(db).forEach(db, ids: Array(places.keys)) { id, programme in
                    guard let place = places[id] else { return }
                    var programme = programme
                    programme.programme.channel = results[place.index].channel
                    if place.isNext { results[place.index].next = programme } else { results[place.index].now = programme }
                }
                return results
            }
        }
    }

    public func coverage() throws -> TimeWindow? {
        try mapErrors {
            try pool.read { db in
                // One index seek per channel at each end, rather than a scan of every programme.
                let row = try Row.fetchOne(db, sql: """
                    SELECT min(first), max(last) FROM (
                        SELECT (SELECT start FROM programme WHERE channel_key = c.key ORDER BY start LIMIT 1) AS first,
                               (SELECT stop FROM programme WHERE channel_key = c.key ORDER BY start DESC LIMIT 1) AS last
                        FROM channel c)
                    """)
                guard let first = row?[0] as Int64?, let last = row?[1] as Int64? else { return nil }
                return TimeWindow(start: Date(timeIntervalSince1970: TimeInterval(first)),
                                  end: Date(timeIntervalSince1970: TimeInterval(last)))
            }
        }
    }

    public func search(_ query: SearchQuery) throws -> [StoredProgramme] {
        guard !query.terms.isEmpty else { return [] }
        // Titles are found through the trigram index of distinct titles (terms of three or more characters);
        // shorter terms, and sub-titles and descriptions, are checked on the folded text.
        let indexed = query.terms.filter { $0.count >= 3 }
        var conditions: [String] = []
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
        arguments.append(query.limit)
        let sql = """
            SELECT \(ProgrammeRows.columns()) FROM \(from) \(channelJoin)
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY p.start, p.id LIMIT ?
            """
        return try mapErrors {
            try pool.read { db in
                try ProgrammeRows(db).fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
            }
        }
    }

    public func programme(_ id: ProgrammeID) throws -> StoredProgramme? {
        try mapErrors {
            try pool.read { db in
                try ProgrammeRows(db).fetchAll(db, sql: """
                    SELECT \(ProgrammeRows.columns()) FROM programme p JOIN channel c ON c.key = p.channel_key WHERE p.id = ?
                    """, arguments: [id.rawValue]).first
            }
        }
    }

    public func forEachProgramme(_ body: (StoredProgramme) throws -> Void) throws {
        try mapErrors {
            try pool.read { db in
                // In guide order, channel by channel, each channel's programmes by start: the programme index's order.
                try ProgrammeRows(db).forEach(db, sql: """
                    SELECT \(ProgrammeRows.columns()) FROM channel c JOIN programme p ON p.channel_key = c.key
                    ORDER BY c.position, p.start, p.id
                    """) { _, programme in
                    if let programme { try body(programme) }
                }
            }
        }
    }
}
