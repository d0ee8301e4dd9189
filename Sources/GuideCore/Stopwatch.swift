/// Time passed on a clock since the stopwatch was made: for code that is handed a clock (`any Clock<Duration>`: the
/// continuous clock in the product, a virtual one in tests) and measures or waits with it.
public struct Stopwatch: Sendable {
    private let read: @Sendable () -> Duration
    private let wait: @Sendable (Duration) async throws -> Void

    public init(on clock: any Clock<Duration>) {
        (read, wait) = Self.opened(clock)
    }

    /// Time since the stopwatch was made.
    public func elapsed() -> Duration { read() }

    /// Sleeps until the stopwatch reads `mark`: a deadline on the clock, so time that passes before the sleep
    /// begins (a busy executor, a virtual clock moved by others) is not added to the wait.
    public func sleep(untilElapsed mark: Duration) async throws { try await wait(mark) }

    private static func opened<C: Clock>(_ clock: C)
        -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) where C.Duration == Duration {
        let start = clock.now
        return ({ start.duration(to: clock.now) },
                { mark in try await clock.sleep(until: start.advanced(by: mark), tolerance: nil) })
    }
}
