import Foundation

/// Places airings on a time axis of fixed width: each gets columns in proportion to its length, clipped to the
/// window, never dropped for being partly outside it and never overlapping its neighbour.
public enum GridLayout {
    /// Column ranges in `0..<columns` for airings `[start, end)` in start order; an airing outside `window` gets an
    /// empty range at the edge.
    public static func columns(for airings: [(start: Date, end: Date)], in window: TimeWindow, width columns: Int) -> [Range<Int>] {
        guard window.duration > 0, columns > 0 else { return airings.map { _ in 0..<0 } }
        func column(_ instant: Date) -> Int {
            let fraction = instant.timeIntervalSince(window.start) / window.duration
            return min(columns, max(0, Int((fraction * Double(columns)).rounded())))
        }
        var floor = 0
        return airings.map { airing in
            let lower = max(column(airing.start), floor)
            let upper = max(lower, column(airing.end))
            floor = upper
            return lower..<upper
        }
    }
}
