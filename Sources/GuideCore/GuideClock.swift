import Foundation

/// What time it is and how to wait: the one place tvguide reads the machine's time (`scripts/check-clock` keeps it
/// so). A running `serve` has one, made from its settings (`--pretend-now` moves it) and handed to everything that
/// reads the time or sleeps; a test makes its own from a fixed time and a clock it moves.
public struct GuideClock: Sendable {
    /// The wall-clock time as the guide sees it.
    public let now: @Sendable () -> Date
    /// What everything that waits sleeps on: retries, the rate limiter, the scheduler and the background loops.
    public let waits: any Clock<Duration>

    public init(now: @escaping @Sendable () -> Date, waits: any Clock<Duration>) {
        (self.now, self.waits) = (now, waits)
    }

    /// The machine's clock, as if it were `pretending` when this is made (`serve --pretend-now`): the offset is taken
    /// once, and time moves on from there.
    public static func system(pretending start: Date? = nil) -> GuideClock {
        let offset = start.map { $0.timeIntervalSince(Date()) } ?? 0
        let now: @Sendable () -> Date = { Date().addingTimeInterval(offset) }
        return GuideClock(now: now, waits: ContinuousClock())
    }
}
