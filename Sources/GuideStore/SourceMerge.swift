import GRDB
import GuideCore

/// Which programmes the guide shows where several sources list the same channel: per channel and time the
/// higher-priority source wins (equal priorities: the source configured first); a lower one's programme is shown
/// only where it fits wholly into a gap the higher ones leave. Everything stays stored, flagged `hidden`, so a
/// change of priority or a removed source shows it again.
enum SourceMerge {
    struct Row {
        var id: Int64
        var start: Int64
        var stop: Int64
        var priority: Int
        var source: Int64
        var hidden: Bool
    }

    /// The ids of the rows the guide does not show.
    static func hidden(_ rows: [Row]) -> Set<Int64> {
        let ordered = rows.sorted { ($0.priority, -$0.source, -$0.start) > ($1.priority, -$1.source, -$1.start) }
        // What higher sources show, as intervals that never overlap, by start (so also by stop).
        var shown: [(start: Int64, stop: Int64)] = []
        var hidden: Set<Int64> = []
        var index = 0
        while index < ordered.count {
            // One source at a time: its own programmes never hide each other (its import repaired them).
            let source = ordered[index].source
            var kept: [(start: Int64, stop: Int64)] = []
            while index < ordered.count, ordered[index].source == source {
                let row = ordered[index]
                if overlaps(row, shown) { hidden.insert(row.id) } else if row.stop > row.start { kept.append((row.start, row.stop)) }
                index += 1
            }
            shown = (shown + kept).sorted { $0.start < $1.start }
        }
        return hidden
    }

    /// Whether `row` overlaps one of `shown` (a zero-length row: whether it falls inside one).
    private static func overlaps(_ row: Row, _ shown: [(start: Int64, stop: Int64)]) -> Bool {
        // The first interval that ends after the row starts; intervals are ordered by stop as by start.
        var low = 0, high = shown.count
        while low < high {
            let middle = (low + high) / 2
            if shown[middle].stop > row.start { high = middle } else { low = middle + 1 }
        }
        guard low < shown.count else { return false }
        return row.stop > row.start ? shown[low].start < row.stop : shown[low].start <= row.start
    }

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
