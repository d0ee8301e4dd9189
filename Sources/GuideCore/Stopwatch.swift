/// Time passed on `clock` since this call, read each time the result is called: for code that is handed a clock
/// (`any Clock<Duration>`: the continuous clock in the product, a virtual one in tests) and measures with it.
public func stopwatch(on clock: any Clock<Duration>) -> @Sendable () -> Duration {
    stopwatch(opened: clock)
}

private func stopwatch<C: Clock>(opened clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}
