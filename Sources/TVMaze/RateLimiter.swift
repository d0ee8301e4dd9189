import Foundation

/// At most `limit` requests in any `window` (TVmaze: 20 in 10 s per IP address), shared by every caller of one
/// client. Each caller gets the next free slot, in the order they asked, and waits until then: a burst of 100
/// calls is spread over 40 seconds instead of earning 429s.
public actor RateLimiter {
    public let limit: Int
    public let window: Duration
    private let clock: any LimiterClock
    /// The slots handed out that still count, ascending (they never decrease).
    private var granted: [Duration] = []

    /// - Parameter clock: how time passes; tests use one that jumps instead of sleeping.
    public init(limit: Int = 20, per window: Duration = .seconds(10), clock: any LimiterClock = MonotonicClock()) {
        self.limit = max(1, limit)
        self.window = window
        self.clock = clock
    }

    /// Waits for a slot; returns its time on the limiter's clock.
    @discardableResult
    public func acquire() async throws -> Duration {
        let now = clock.now()
        granted.removeAll { $0 <= now - window }
        var slot = now
        if granted.count >= limit {
            // Free a window after the slot `limit` places back.
            slot = max(now, granted[granted.count - limit] + window)
        }
        granted.append(slot)
        if slot > now { try await clock.sleep(until: slot) }
        return slot
    }
}

/// The time a ``RateLimiter`` goes by.
public protocol LimiterClock: Sendable {
    /// Time since a fixed point.
    func now() -> Duration
    /// Returns once `now()` has reached `deadline`.
    func sleep(until deadline: Duration) async throws
}

/// Real time, from when it was made.
public struct MonotonicClock: LimiterClock {
    private let start = ContinuousClock.now

    public init() {}

    public func now() -> Duration { ContinuousClock.now - start }

    public func sleep(until deadline: Duration) async throws {
        let wait = deadline - now()
        if wait > .zero { try await Task.sleep(for: wait) }
    }
}
