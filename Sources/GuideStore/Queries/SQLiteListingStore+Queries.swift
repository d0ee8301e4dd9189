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
        let details: Data = row[offset + 5]
        guard let programme = DetailsCodec.decode([UInt8](details), channel: channel, start: start,
                                                  stop: isStopKnown ? end : nil) else { return nil }
        return StoredProgramme(id: ProgrammeID(rawValue: id), source: SourceName(row[offset + 6] as String),
                               programme: programme, end: end)
    }

    public func channels() throws -> [Channel] {
        try mapErrors {
            try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT id, details FROM channel ORDER BY position").compactMap { row in
                    DetailsCodec.decode([UInt8](row[1] as Data), id: ChannelID(row[0] as String))
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
        return try mapErrors {
            try pool.read { db in
                let ids = try channels?.map(\.rawValue)
                    ?? String.fetchAll(db, sql: "SELECT id FROM channel ORDER BY position")
                let current = try db.cachedStatement(sql: """
                    SELECT \(Self.programmeColumns) FROM programme p JOIN source s ON s.id = p.source_id
                    WHERE p.channel_id = ? AND p.start <= ? AND p.stop > ?
                    ORDER BY p.start DESC LIMIT 1
                    """)
                let following = try db.cachedStatement(sql: """
                    SELECT \(Self.programmeColumns) FROM programme p JOIN source s ON s.id = p.source_id
                    WHERE p.channel_id = ? AND p.start >= ? AND p.stop > p.start
                    ORDER BY p.start LIMIT 1
                    """)
                return try ids.map { id in
                    let now = try Row.fetchOne(current, arguments: [id, time, time]).flatMap { Self.storedProgramme($0) }
                    let after = now.map { Int64($0.end.timeIntervalSince1970) } ?? time + 1
                    let next = try Row.fetchOne(following, arguments: [id, after]).flatMap { Self.storedProgramme($0) }
                    return NowNext(channel: ChannelID(id), now: now, next: next)
                }
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
