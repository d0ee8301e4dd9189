import Clocks

extension TestClock<Duration> {
    /// Returns once something sleeps on this clock (waiting up to 30 s of real time): a test that advanced the clock
    /// sooner would pass a sleep that had not begun yet, and the loop under test would sleep on for ever.
    public func untilSomethingSleeps() async throws {
        for _ in 0..<3000 {
            do { try await checkSuspension() } catch { return }   // It throws when something is sleeping.
            try await Task.sleep(for: .milliseconds(10))
        }
        throw NothingSlept()
    }

    public struct NothingSlept: Error, CustomStringConvertible {
        public var description: String { "nothing slept on the test clock within 30 s" }
    }
}
