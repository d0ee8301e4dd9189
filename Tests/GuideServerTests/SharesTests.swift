import Foundation
import GuideApplication
import GuideCore
@testable import GuideServer
import Synchronization
import Testing
import TrackerExports

/// What strangers may spend of budgets others pay for (issue 43, point 3): guests share one allowance of Schedules
/// Direct's artwork calls whatever addresses they come from, and leave each signed-in profile its own; a profile has
/// at most two history imports at work, the server eight.
@Suite struct SharesTests {
    final class Clock: Sendable {
        let instant = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: @Sendable () -> Date { { self.instant.withLock { $0 } } }
        func advance(_ seconds: TimeInterval) { instant.withLock { $0 += seconds } }
    }

    /// Before, each client address had 30 new images a minute of its own: 100 addresses could start 3,000 a minute,
    /// and the day's 2,000 calls were gone for everyone within the first minute.
    @Test func guestsShareOneArtworkBudgetFromAnyNumberOfAddresses() {
        let clock = Clock()
        let shares = CallerShares(guestsPerMinute: 30, guestsPerDay: 250, perProfilePerMinute: 30, now: clock.now)
        var started = 0
        // 23 hours of guests asking as fast as they may, from however many addresses (the share has no address to count).
        for _ in 0..<(23 * 60) {
            for _ in 0..<100 where shares.take(profile: nil) { started += 1 }
            clock.advance(60)
        }
        #expect(started == 250, "guests started \(started) new images in 23 hours")
        // Spent for the day, a guest is told when the day's share comes back; a profile still has its own.
        #expect(!shares.take(profile: nil) && shares.retryAfter(profile: nil) > 60)
        #expect((0..<30).allSatisfy { _ in shares.take(profile: "1") } && !shares.take(profile: "1") && shares.take(profile: "2"))
    }

    @Test func aProfileHasAtMostTwoImportsAtWork() async throws {
        let clock = Clock()
        let jobs = HistoryImportJobs(now: clock.now)
        let history = try TrackerFiles.read([("history.csv", Array("show,season,episode,watched_at\nElite,1,1,2020-01-01\n".utf8))])
        let (one, two) = (ProfileID(rawValue: 1), ProfileID(rawValue: 2))
        guard case .started = await jobs.start(history, for: one), case .started = await jobs.start(history, for: one) else {
            Issue.record("a profile's first two imports start")
            return
        }
        #expect(await jobs.start(history, for: one) == .profileBusy)
        for profile in 3...8 { guard case .started = await jobs.start(history, for: ProfileID(rawValue: Int64(profile))) else { Issue.record("\(profile)"); return } }
        // Eight at work in all: another profile waits too.
        #expect(await jobs.start(history, for: two) == .serverBusy)
    }
}
