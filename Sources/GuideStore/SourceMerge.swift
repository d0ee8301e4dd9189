import Foundation
import GuideCore

/// Which programmes the guide shows where several sources list the same channel: per channel and time the
/// higher-priority source wins (equal priorities: the source configured first); a lower one's programme is shown
/// only where it fits wholly into a gap the higher ones leave. Everything stays stored, flagged `hidden`, so a
/// change of priority or a removed source shows it again.
package enum SourceMerge {
    package struct Row {
        package var id: Int64
        var start: Int64
        var stop: Int64
        var priority: Int
        package var source: Int64
        package var hidden: Bool

        package init(id: Int64, start: Int64, stop: Int64, priority: Int, source: Int64, hidden: Bool) {
            (self.id, self.start, self.stop, self.priority, self.source, self.hidden) = (id, start, stop, priority, source, hidden)
        }
    }

    /// The ids of the rows the guide does not show.
    package static func hidden(_ rows: [Row]) -> Set<Int64> {
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

    /// Re-merges the channels (by key) that more than one source lists, and shows all of a channel left with one;
    /// then waiting reminders on them follow what the guide now shows (``ReminderFollow``). Returns how many of
    /// `source`'s programmes are hidden in them.
    @discardableResult
    package static func remerge(_ db: some SQLStatements, channels: [Int64], counting source: Int64? = nil, at instant: Date) async throws -> Int {
        guard !channels.isEmpty else { return 0 }
        let shared = try await db.column("""
            SELECT channel_key FROM source_coverage WHERE channel_key IN \(keys: channels)
            GROUP BY channel_key HAVING count(*) > 1
            """, as: Int64.self)
        var total = 0
        var flipped: [Int64] = []
        for channel in shared {
            let rows = try await db.rows("""
                SELECT p.id, p.start, p.stop, s.priority, p.source_id, p.hidden FROM programme p JOIN source s ON s.id = p.source_id
                WHERE p.channel_key = \(channel)
                """).map { row in
                Row(id: try row.value(0), start: try row.value(1), stop: try row.value(2), priority: try row.value(3),
                    source: try row.value(4), hidden: try row.value(5))
            }
            let hidden = Self.hidden(rows)
            total += rows.filter { $0.source == source && hidden.contains($0.id) }.count
            flipped.append(contentsOf: rows.filter { $0.hidden != hidden.contains($0.id) }.map(\.id))
        }
        if !flipped.isEmpty {
            try await db.execute("UPDATE programme SET hidden = NOT hidden WHERE id IN \(keys: flipped)")
        }
        let single = Array(Set(channels).subtracting(shared))
        if !single.isEmpty {
            try await db.execute(showingAll(single))
        }
        try await ReminderFollow.follow(db, channels: channels, at: instant)
        return total
    }

    /// Shows every programme of `channels`, through the index of hidden programmes alone (v32): `+` keeps SQLite's
    /// planner from reading every programme of the channels through their index by channel, as it would (and did:
    /// 0.25 s at the end of each refresh of a 10,000-channel guide).
    package static func showingAll(_ channels: [Int64]) -> SQLText {
        "UPDATE programme SET hidden = \(false) WHERE hidden AND +channel_key IN \(keys: channels)"
    }

    /// Re-merges every channel `source` lists (its priority changed) and moves the generation on.
    package static func remergeAll(_ db: some SQLStatements, source: Int64, at instant: Date) async throws {
        try await remerge(db, channels: try await db.column("SELECT channel_key FROM source_coverage WHERE source_id = \(source)",
                                                            as: Int64.self), at: instant)
        try await db.execute("UPDATE guide_state SET generation = generation + 1")
    }
}
