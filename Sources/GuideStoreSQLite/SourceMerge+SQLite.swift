import GRDB
import GuideCore
import GuideStore

extension SourceMerge {
    /// Re-merges the channels (by key) that more than one source lists; returns how many of `source`'s programmes
    /// are hidden in them.
    @discardableResult
    static func remerge(_ db: Database, channels: [Int64], counting source: Int64? = nil) throws -> Int {
        guard !channels.isEmpty else { return 0 }
        let list = "[" + channels.map(String.init).joined(separator: ",") + "]"
        let shared = try Int64.fetchAll(db, sql: """
            SELECT channel_key FROM source_coverage WHERE channel_key IN (SELECT value FROM json_each(?))
            GROUP BY channel_key HAVING count(*) > 1
            """, arguments: [list])
        let read = try db.makeStatement(sql: """
            SELECT p.id, p.start, p.stop, s.priority, p.source_id, p.hidden FROM programme p JOIN source s ON s.id = p.source_id
            WHERE p.channel_key = ?
            """)
        let update = try db.makeStatement(sql: "UPDATE programme SET hidden = ? WHERE id = ?")
        var total = 0
        for channel in shared {
            let rows = try GRDB.Row.fetchAll(read, arguments: [channel]).map {
                Row(id: $0[0], start: $0[1], stop: $0[2], priority: $0[3], source: $0[4], hidden: $0[5])
            }
            let hidden = Self.hidden(rows)
            total += rows.filter { $0.source == source && hidden.contains($0.id) }.count
            for row in rows where row.hidden != hidden.contains(row.id) {
                try update.execute(arguments: [!row.hidden, row.id])
            }
        }
        // A channel left with one source shows all of it.
        let single = try Int64.fetchAll(db, sql: """
            SELECT value FROM json_each(?) WHERE value NOT IN (SELECT channel_key FROM source_coverage GROUP BY channel_key
                                                                HAVING count(*) > 1)
            """, arguments: [list])
        for channel in single {
            try db.execute(sql: "UPDATE programme SET hidden = 0 WHERE channel_key = ? AND hidden = 1", arguments: [channel])
        }
        return total
    }

    /// Re-merges every channel `source` lists.
    static func remergeAll(_ db: Database, source: Int64) throws {
        try remerge(db, channels: try Int64.fetchAll(db, sql: "SELECT channel_key FROM source_coverage WHERE source_id = ?",
                                                     arguments: [source]))
        try db.execute(sql: "UPDATE guide_state SET generation = generation + 1")
    }
}
