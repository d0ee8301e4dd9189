import Foundation

/// Where airings sit on a guide's time axis: the one place a programme is placed in a window, for the terminal
/// grid, the server-rendered rows and the rows the grid's script fetches as JSON.
public enum GridLayout {
    /// One airing's place in a window.
    public struct Span: Sendable, Equatable {
        /// Start and end in whole seconds from the window's start: negative when it began before the window, past
        /// the window's length when it ends after it.
        public var startSecond: Int
        public var endSecond: Int
        /// The part inside the window, in whole minutes from its start: where a cell is drawn.
        public var offsetMinutes: Int
        public var lengthMinutes: Int
        /// The window's length in seconds.
        public var windowSeconds: Int

        /// It began before the window.
        public var isClippedAtStart: Bool { startSecond < 0 }
        /// It ends after the window.
        public var isClippedAtEnd: Bool { endSecond > windowSeconds }
        /// Start and end clipped to the window, in seconds from its start.
        public var visibleStartSecond: Int { min(max(startSecond, 0), windowSeconds) }
        public var visibleEndSecond: Int { max(visibleStartSecond, min(max(endSecond, 0), windowSeconds)) }
    }

    /// Where `[start, end)` sits in `window`.
    public static func span(start: Date, end: Date, in window: TimeWindow) -> Span {
        let length = Bounded.clamped(window.duration.rounded(), to: 0...Double(Int32.max))
        let windowSeconds = Int(length)
        let startSecond = Int(Bounded.clamped(start.timeIntervalSince(window.start).rounded(), to: -Double(Int32.max)...Double(Int32.max)))
        let endSecond = Int(Bounded.clamped(end.timeIntervalSince(window.start).rounded(), to: -Double(Int32.max)...Double(Int32.max)))
        var span = Span(startSecond: startSecond, endSecond: endSecond, offsetMinutes: 0, lengthMinutes: 0, windowSeconds: windowSeconds)
        span.offsetMinutes = span.visibleStartSecond / 60
        span.lengthMinutes = max(0, (span.visibleEndSecond + 30) / 60 - span.offsetMinutes)
        return span
    }

    /// Column ranges in `0..<columns` for airings `[start, end)` in start order (a terminal's characters): each gets
    /// columns in proportion to its length, clipped to the window, never dropped for being partly outside it and
    /// never overlapping its neighbour; an airing outside `window` gets an empty range at the edge.
    public static func columns(for airings: [(start: Date, end: Date)], in window: TimeWindow, width columns: Int) -> [Range<Int>] {
        guard window.duration > 0, columns > 0 else { return airings.map { _ in 0..<0 } }
        func column(_ second: Int, of span: Span) -> Int {
            min(columns, max(0, Int((Double(second) / Double(max(1, span.windowSeconds)) * Double(columns)).rounded())))
        }
        var floor = 0
        return airings.map { airing in
            let span = span(start: airing.start, end: airing.end, in: window)
            let lower = max(column(span.visibleStartSecond, of: span), floor)
            let upper = max(lower, column(span.visibleEndSecond, of: span))
            floor = upper
            return lower..<upper
        }
    }
}
