import Foundation
import GuideCore
import Synchronization
import Testing
@testable import TVMaze

/// The limiter on virtual clocks: who gets which slot, never how long a real sleep took.
@Suite struct RateLimiterTests {
    @Test func slotsNeverExceedTheLimitInAnyWindow() async throws {
        let clock = JumpingClock()
        let limiter = RateLimiter(limit: 20, per: .seconds(10), clock: clock)
        let slots = try await withThrowingTaskGroup(of: Duration.self) { group in
            for _ in 0..<100 { group.addTask { try await limiter.acquire() } }
            return try await group.reduce(into: [Duration]()) { $0.append($1) }.sorted()
        }
        for (index, slot) in slots.enumerated() {
            let inWindow = slots[index...].prefix { $0 < slot + .seconds(10) }.count
            #expect(inWindow <= 20)
        }
        #expect(slots.last == .seconds(40))
        #expect(slots.filter { $0 == .zero }.count == 20)
    }

    /// A guest's page waits at most 10 s for a slot: of 60 at once, 40 get one within 10 s (20 now, 20 as the window
    /// frees) and 20 are turned away at once with the wait they would have had, taking no slot.
    @Test func aSlotFurtherOffThanTheCallerWouldWaitIsNotTaken() async throws {
        // Time stands still, so all 60 ask at the same instant; each sleep is noted and returns at once.
        let clock = FrozenClock()
        let limiter = RateLimiter(limit: 20, per: .seconds(10), clock: clock)
        let outcomes = await withTaskGroup(of: (slot: Duration?, retryAfter: Int?).self) { group in
            for _ in 0..<60 {
                group.addTask {
                    do {
                        return (try await limiter.acquire(waitingAtMost: .seconds(10)), nil)
                    } catch let busy as RateLimiter.Busy {
                        return (nil, busy.retryAfter)
                    } catch {
                        return (nil, nil)
                    }
                }
            }
            return await group.reduce(into: [(slot: Duration?, retryAfter: Int?)]()) { $0.append($1) }
        }
        let slots = outcomes.compactMap(\.slot)
        #expect(slots.filter { $0 == .zero }.count == 20 && slots.filter { $0 == .seconds(10) }.count == 20 && slots.count == 40)
        #expect(clock.sleeps == Array(repeating: .seconds(10), count: 20))
        // The next free slot is 20 s off, as a 503's Retry-After says (whole seconds, rounded up).
        #expect(outcomes.compactMap(\.retryAfter) == Array(repeating: 21, count: 20))
    }

    /// The history imports' share of TVmaze (issue 43, point 3): a limiter within the pages' takes at most its own 8 of
    /// the window's 20, however many imports ask, and the pages keep the other 12 at once.
    @Test func aShareTakesAtMostItsOwnPartOfTheWindow() async throws {
        let clock = FrozenClock()
        let pages = RateLimiter(limit: 20, per: .seconds(10), clock: clock)
        let imports = RateLimiter(limit: 8, per: .seconds(10), clock: clock, within: pages)
        var taken = 0
        for _ in 0..<50 {
            do {
                try await imports.acquire(waitingAtMost: .zero)
                taken += 1
            } catch is RateLimiter.Busy {}
        }
        #expect(taken == 8)
        for _ in 0..<12 { #expect(try await pages.acquire(waitingAtMost: .zero) == .zero) }
        await #expect(throws: RateLimiter.Busy.self) { try await pages.acquire(waitingAtMost: .zero) }
    }

    /// A slot is a deadline: a sleep that begins late (a busy executor; here, a clock that moves each time it is read)
    /// still ends at the slot, never at the slot plus the delay.
    @Test func aSleepEndsAtItsSlotHoweverLateItBegins() async throws {
        let clock = DriftingClock()
        let limiter = RateLimiter(limit: 1, per: .seconds(10), clock: clock)
        let first = try await limiter.acquire()
        let second = try await limiter.acquire()
        #expect(second == first + .seconds(10))
        #expect(clock.deadlines == [second])
    }
}

/// A clock for the limiter that jumps to the end of a sleep at once.
/// Virtual time that jumps to where a sleeper wakes instead of waiting, as swift-clocks' ImmediateClock does, but
/// never goes back when many tasks sleep at once (ImmediateClock's time is the last sleeper's deadline).
final class JumpingClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        let offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (left: Instant, right: Instant) -> Bool { left.offset < right.offset }
    }

    private let time = Mutex(Duration.zero)
    var now: Instant { Instant(offset: time.withLock { $0 }) }
    var minimumResolution: Duration { .zero }

    /// Time since the clock was made.
    func elapsed() -> Duration { time.withLock { $0 } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        time.withLock { $0 = max($0, deadline.offset) }
        await Task.yield()
    }
}

/// Time that never moves: a sleep is noted and returns at once, so every caller asks at the same instant.
final class FrozenClock: Clock, Sendable {
    private let asked = Mutex([Duration]())
    var now: ContinuousClock.Instant { Self.instant }
    var minimumResolution: Duration { .zero }
    private static let instant = ContinuousClock.now

    /// How long each sleep asked for.
    var sleeps: [Duration] { asked.withLock { $0 } }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        asked.withLock { $0.append(Self.instant.duration(to: deadline)) }
    }
}

/// Time that moves one second each time it is read, as if every read came a second later; a sleep notes its deadline
/// (time since the clock was made) and returns at once.
final class DriftingClock: Clock, Sendable {
    private let time = Mutex(Duration.zero)
    private let asked = Mutex([Duration]())
    var now: JumpingClock.Instant {
        time.withLock { time in
            defer { time += .seconds(1) }
            return JumpingClock.Instant(offset: time)
        }
    }
    var minimumResolution: Duration { .zero }

    /// Each sleep's deadline, as time since the clock was made.
    var deadlines: [Duration] { asked.withLock { $0 } }

    func sleep(until deadline: JumpingClock.Instant, tolerance: Duration?) async throws {
        asked.withLock { $0.append(deadline.offset) }
    }
}
