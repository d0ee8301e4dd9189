import GRDB
import GRDBSQLite
import GuideCore
import GuideStore

extension ScheduleIndex {
    /// The current generation of the listings; every write that changes programmes increments it.
    static func generation(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT generation FROM guide_state") ?? 0
    }

    static func load(_ db: Database) throws -> ScheduleIndex {
        let generation = try generation(db)
        var channels: [(key: Int64, id: ChannelID)] = []
        for row in try Row.fetchAll(db, sql: "SELECT key, id FROM channel ORDER BY position, key") {
            channels.append((row[0], ChannelID(row[1] as String)))
        }
        var entries: [Entry] = [], texts: [Texts] = []
        var spans: [Int64: Range<Int>] = [:]
        var longest: Int64 = 0
        // Stepped through the C API: GRDB's row decoding costs more than SQLite's index scan here.
        let rows = DirectBinding(try db.makeStatement(sql: """
            SELECT channel_key, start, stop, id, title_id, body_id FROM programme INDEXED BY programme_by_channel
            WHERE hidden = 0 ORDER BY channel_key, start, stop, hidden, title_id, body_id, id
            """))
        var currentKey: Int64?
        var firstOfKey = 0
        try rows.forEachRow(db) { row in
            let key = sqlite3_column_int64(row, 0)
            if key != currentKey {
                if let currentKey { spans[currentKey] = firstOfKey..<entries.count }
                currentKey = key
                firstOfKey = entries.count
            }
            let entry = Entry(start: sqlite3_column_int64(row, 1), stop: sqlite3_column_int64(row, 2),
                              id: sqlite3_column_int64(row, 3))
            let text = Texts(title: sqlite3_column_int64(row, 4), body: sqlite3_column_int64(row, 5))
            longest = max(longest, entry.stop - entry.start)
            // The index orders programmes with the same start and stop by title and body; they go by id, as
            // PostgreSQL's schedule and the queries order them (of two at once, the later in the guide is on now).
            var at = entries.count
            while at > firstOfKey, entries[at - 1].start == entry.start, entries[at - 1].stop == entry.stop,
                  entries[at - 1].id > entry.id {
                at -= 1
            }
            if at == entries.count {
                entries.append(entry)
                texts.append(text)
            } else {
                entries.insert(entry, at: at)
                texts.insert(text, at: at)
            }
        }
        if let currentKey { spans[currentKey] = firstOfKey..<entries.count }
        let slots = channels.map { Slot(channel: $0.id, entries: spans[$0.key] ?? 0..<0) }
        return ScheduleIndex(generation: generation, slots: slots, entries: entries.exactly(), texts: texts.exactly(),
                             longest: longest)
    }
}
