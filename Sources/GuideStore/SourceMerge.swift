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
}
