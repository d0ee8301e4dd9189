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
                guard let first = try Int64.fetchOne(db, sql: "SELECT min(start) FROM programme"),
                      let last = try Int64.fetchOne(db, sql: "SELECT max(stop) FROM programme") else { return nil }
                return TimeWindow(start: Date(timeIntervalSince1970: TimeInterval(first)),
                                  end: Date(timeIntervalSince1970: TimeInterval(last)))
            }
        }
    }

    public func search(_ query: SearchQuery) throws -> [StoredProgramme] {
        guard !query.terms.isEmpty else { return [] }
        // Title trigrams index terms of three or more characters; shorter terms, and every term when descriptions
        // count too, are checked on the folded text.
        let indexed = query.scope == .title ? query.terms.filter { $0.count >= 3 } : []
        let scanned = query.scope == .title ? query.terms.filter { $0.count < 3 } : query.terms
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        if !indexed.isEmpty {
            let phrases = indexed.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
            conditions.append("programme_search MATCH ?")
            arguments.append("title : (\(phrases.joined(separator: " AND ")))")
        }
        for term in scanned {
            conditions.append(query.scope == .title ? "instr(f.title, ?) > 0" : "(instr(f.title, ?) > 0 OR instr(f.body, ?) > 0)")
            arguments.append(term)
            if query.scope == .all { arguments.append(term) }
        }
        arguments.append(query.limit)
        let sql = """
            SELECT \(Self.programmeColumns) FROM programme_search f
            JOIN programme p ON p.id = f.rowid JOIN source s ON s.id = p.source_id
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
