import Foundation
import GRDB
import GuideCore

extension SQLiteListingStore {
    /// The columns every programme query selects, in the order ``storedProgramme(_:)`` reads them.
    static let programmeColumns = """
        p.id, p.channel_id, p.start, p.stop, p.stop_known, p.details, s.name
        """

    static func storedProgramme(_ row: Row, offset: Int = 0) -> StoredProgramme? {
        let id: Int64 = row[offset]
        let channel = ChannelID(row[offset + 1] as String)
        let start = Date(timeIntervalSince1970: TimeInterval(row[offset + 2] as Int64))
        let end = Date(timeIntervalSince1970: TimeInterval(row[offset + 3] as Int64))
        let isStopKnown: Bool = row[offset + 4]
        // Decoded straight from SQLite's buffer, without copying the blob.
        let decoded = try? row.withUnsafeData(atIndex: offset + 5) { data in
            data?.withUnsafeBytes { DetailsCodec.decode($0, channel: channel, start: start, stop: isStopKnown ? end : nil) }
        }
        guard let programme = decoded ?? nil else { return nil }
        return StoredProgramme(id: ProgrammeID(rawValue: id), source: SourceName(row[offset + 6] as String),
                               programme: programme, end: end)
    }

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

    public func programmes(on channel: ChannelID, in window: TimeWindow) throws -> [StoredProgramme] {
        let start = Int64(window.start.timeIntervalSince1970), end = Int64(window.end.timeIntervalSince1970)
        return try mapErrors {
            try pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT \(Self.programmeColumns) FROM programme p JOIN source s ON s.id = p.source_id
                    WHERE p.channel_id = ? AND p.start < ? AND (p.stop > ? OR (p.stop = p.start AND p.start >= ?))
                    ORDER BY p.start, p.id
                    """, arguments: [channel.rawValue, end, start, start]).compactMap { Self.storedProgramme($0) }
            }
        }
    }

    public func nowNext(at instant: Date, channels: [ChannelID]?) throws -> [NowNext] {
        let time = Int64(instant.timeIntervalSince1970.rounded(.down))
        // One statement for every channel: SQLite does the two index seeks per channel itself, several times faster
        // than two round trips per channel through the driver. "On now" looks back no further than the longest
        // programme stored; without that bound a channel with nothing on would be searched to its first programme.
        let sql = """
            SELECT c.id,
                   \(Self.programmeColumns),
                   x.id, x.channel_id, x.start, x.stop, x.stop_known, x.details, xs.name
            FROM channel c
            LEFT JOIN programme p ON p.id = (
                SELECT id FROM programme
                WHERE channel_id = c.id AND start <= :time AND start >= :time - :longest AND stop > :time
                ORDER BY start DESC LIMIT 1)
            LEFT JOIN source s ON s.id = p.source_id
            LEFT JOIN programme x ON x.id = (
                SELECT id FROM programme WHERE channel_id = c.id AND start >= coalesce(p.stop, :time + 1) AND stop > start
                ORDER BY start LIMIT 1)
            LEFT JOIN source xs ON xs.id = x.source_id
            ORDER BY c.position
            """
        return try mapErrors {
            try pool.read { db in
                let longest = try Int64.fetchOne(db, sql: "SELECT max(longest) FROM import_run") ?? 0
                var rows: [NowNext] = []
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: ["time": time, "longest": longest])
                while let row = try cursor.next() {
                    let channel = ChannelID(row[0] as String)
                    let now = row.hasNull(atIndex: 1) ? nil : Self.storedProgramme(row, offset: 1)
                    let next = row.hasNull(atIndex: 8) ? nil : Self.storedProgramme(row, offset: 8)
                    rows.append(NowNext(channel: channel, now: now, next: next))
                }
                guard let channels else { return rows }
                let byChannel = Dictionary(rows.map { ($0.channel, $0) }, uniquingKeysWith: { first, _ in first })
                return channels.map { byChannel[$0] ?? NowNext(channel: $0, now: nil, next: nil) }
            }
        }
    }

    public func coverage() throws -> TimeWindow? {
        try mapErrors {
            try pool.read { db in
                // One index seek per channel at each end, rather than a scan of every programme.
                let row = try Row.fetchOne(db, sql: """
                    SELECT min(first), max(last) FROM (
                        SELECT (SELECT start FROM programme WHERE channel_id = c.id ORDER BY start LIMIT 1) AS first,
                               (SELECT stop FROM programme WHERE channel_id = c.id ORDER BY start DESC LIMIT 1) AS last
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
            SELECT \(Self.programmeColumns) FROM \(from) JOIN source s ON s.id = p.source_id
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY p.start, p.id LIMIT ?
            """
        return try mapErrors {
            try pool.read { db in
                try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).compactMap { Self.storedProgramme($0) }
            }
        }
    }

    public func programme(_ id: ProgrammeID) throws -> StoredProgramme? {
        try mapErrors {
            try pool.read { db in
                try Row.fetchOne(db, sql: """
                    SELECT \(Self.programmeColumns) FROM programme p JOIN source s ON s.id = p.source_id WHERE p.id = ?
                    """, arguments: [id.rawValue]).flatMap { Self.storedProgramme($0) }
            }
        }
    }

    public func forEachProgramme(_ body: (StoredProgramme) throws -> Void) throws {
        try mapErrors {
            try pool.read { db in
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT \(Self.programmeColumns) FROM programme p JOIN source s ON s.id = p.source_id
                    ORDER BY p.channel_id, p.start, p.id
                    """)
                while let row = try rows.next() {
                    if let programme = Self.storedProgramme(row) { try body(programme) }
                }
            }
        }
    }
}
