import Foundation
import GuideCore
import GuideStore
import Testing

/// Sign-in tries are counted under a lock on their row, on every store: of tries at the same
/// time, only the free ones go on to be checked.
@Suite struct SignInCountTests {
    static let t0 = Date(timeIntervalSince1970: 1_771_185_600)

    @Test func triesAtOnceAreEachCountedAndOnlyTheFreeOnesPass() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let rule = SignInThrottle().addressAndName
        let key = ThrottleKey(address: "192.0.2.1", name: " Kid ")
        let counts = try await withThrowingTaskGroup(of: SignInCount.self) { group in
            for _ in 0..<40 { group.addTask { try await store.countSignInTry(key, rule: rule, at: Self.t0) } }
            return try await group.reduce(into: [SignInCount]()) { $0.append($1) }
        }
        let counted = counts.compactMap { if case .counted(let failures, _) = $0 { failures } else { nil } }
        #expect(counted.sorted() == [1, 2, 3, 4, 5])
        #expect(counts.filter { $0 == .waiting(until: Self.t0.addingTimeInterval(30)) }.count == 35)
        // After the wait, one more try is counted and doubles it; the name is matched whatever its case.
        let later = Self.t0.addingTimeInterval(31)
        #expect(try await store.countSignInTry(ThrottleKey(address: "192.0.2.1", name: "KID"), rule: rule, at: later)
                == .counted(failures: 6, trusted: false))
        #expect(try await store.countSignInTry(key, rule: rule, at: later) == .waiting(until: later.addingTimeInterval(60)))
        #expect(try await store.signInCounts(name: "kid")[ThrottleKey(address: "192.0.2.1", name: "kid")]?.failures == 6)
    }

    @Test func aSuccessTrustsTheAddressAndUnlockForgets() async throws {
        let store = try await StoreFixture().store
        let rule = SignInThrottle().addressAndName
        let key = ThrottleKey(address: "192.0.2.9", name: "Kid")
        for _ in 0..<3 { _ = try await store.countSignInTry(key, rule: rule, at: Self.t0) }
        try await store.recordSignInSuccess(address: "192.0.2.9", name: "Kid", trustedUntil: Self.t0.addingTimeInterval(86_400), at: Self.t0)
        #expect(try await store.countSignInTry(key, rule: rule, at: Self.t0) == .counted(failures: 1, trusted: true))
        for _ in 0..<6 { _ = try await store.countSignInTry(ThrottleKey(address: "198.51.100.1", name: "kid"), rule: rule, at: Self.t0) }
        #expect(try await store.clearSignInCounts(name: "KID") == 2)
        #expect(try await store.countSignInTry(ThrottleKey(address: "198.51.100.1", name: "kid"), rule: rule, at: Self.t0)
                == .counted(failures: 1, trusted: false))
        // Idle counts are forgotten; a trusted address stays until its trust ends.
        try await store.pruneSignInCounts(idleSince: Self.t0.addingTimeInterval(3600))
        #expect(try await store.signInCounts(name: "kid").keys.map(\.address) == ["192.0.2.9"])
    }
}
