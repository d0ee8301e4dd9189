import Foundation
import GuideCore

/// At most `limit` requests in any `window` (TVmaze: 20 in 10 s per IP address), shared by every caller of one
/// client. Each caller gets the next free slot, in the order they asked, and waits until then: a burst of 100
/// calls is spread over 40 seconds instead of earning 429s. A limiter `within` another is a share of it: a slot of
/// its own first, then one of the other's (the history imports' share of TVmaze, below the pages').
public actor RateLimiter {
    public let limit: Int
    public let window: Duration
    /// The limiter this one is a share of.
    private let parent: RateLimiter?
    /// Time since the limiter was made, on its clock: what slots are measured in.
    private let stopwatch: Stopwatch
    /// The slots handed out that still count, ascending (they never decrease).
    private var granted: [Duration] = []

    /// - Parameter clock: how time passes; tests use one that jumps instead of sleeping.
    public init(limit: Int = 20, per window: Duration = .seconds(10), clock: any Clock<Duration>, within parent: RateLimiter? = nil) {
        self.limit = max(1, limit)
        self.window = window
        self.parent = parent
        stopwatch = Stopwatch(on: clock)
    }

    /// A slot further off than the caller would wait: it was not taken.
    public struct Busy: Error, Sendable {
        /// How long until the first free slot, in whole seconds.
        public let retryAfter: Int
    }

    /// Waits for a slot; returns its time on the limiter's clock (since the limiter was made). With `longest`, a slot further off than that is
    /// not taken and ``Busy`` is thrown instead: a guest's page never queues behind a burst, and the slots handed out
    /// stay bounded (`limit` for each `window` of `longest`).
    @discardableResult
    public func acquire(waitingAtMost longest: Duration? = nil) async throws -> Duration {
        let now = stopwatch.elapsed()
        granted.removeAll { $0 <= now - window }
        var slot = now
        if granted.count >= limit {
            // Free a window after the slot `limit` places back.
            slot = max(now, granted[granted.count - limit] + window)
        }
        if let longest, slot - now > longest {
            throw Busy(retryAfter: Int((slot - now).components.seconds) + 1)
        }
        granted.append(slot)
        if slot > now { try await stopwatch.sleep(untilElapsed: slot) }
        guard let parent else { return slot }
        try await parent.acquire(waitingAtMost: longest.map { $0 - (slot - now) })
        return stopwatch.elapsed()
    }
}
