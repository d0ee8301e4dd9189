import Clocks
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import StoreTestSupport
import Synchronization
import Testing

/// What `serve` runs in the background.
@Suite struct SchedulerTests {
    final class TestClock: Sendable {
        private let instant = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func now() -> Date { instant.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { instant.withLock { $0 += seconds } }
    }

    /// The loop `serve` runs, on virtual time: it refreshes a source when it is due and sleeps in between, the
    /// source's five minutes passing in no time.
    @Test func theLoopRefreshesASourceEachTimeItIsDue() async throws {
        let fixture = try await IngestFixture()
        let clock = Clocks.TestClock()
        let origin = clock.now
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let now: @Sendable () -> Date = { start.addingTimeInterval(origin.duration(to: clock.now) / .seconds(1)) }
        let path = IngestFixture.fixtures.appendingPathComponent("peer-fixtures/iptv-org-epg/epg.iptvx.one.content.xml").path
        try await fixture.store.addSource(SourceDefinition(name: SourceName("feed"), format: .xmltv, location: path, refreshInterval: 300))
        let scheduler = RefreshScheduler(refresher: SourceRefresher(store: fixture.store, transport: TestHTTP.transport, now: now, clock: clock),
                                         now: now, clock: clock)
        let loop = Task { await scheduler.run(check: .seconds(60)) }
        defer { loop.cancel() }
        let store = fixture.store
        /// When the source was last tried, once the loop has tried it at `expected` (real time for the refresh itself).
        func attempt(_ expected: Date) async throws -> Date? {
            for _ in 0..<6000 {   // Up to 60 s of real time: a loaded CI machine runs 90 suites at once (beside a build).
                if let last = try await store.sources().first?.lastAttempt, last >= expected { return last }
                try await Task.sleep(for: .milliseconds(10))
            }
            return try await store.sources().first?.lastAttempt
        }
        #expect(try await attempt(start) == start)   // Due at once.
        try await clock.untilSomethingSleeps()
        // Minute by minute, as the loop looks every 60 s: each wake-up has gone back to sleep before the clock moves on
        // (one jump of 299 s could pass a loaded machine's loop before it had read the time).
        for _ in 0..<4 {
            await clock.advance(by: .seconds(60))
            try await clock.untilSomethingSleeps()
        }
        await clock.advance(by: .seconds(59))
        try await clock.untilSomethingSleeps()
        #expect(try await store.sources().first?.lastAttempt == start)   // Not yet.
        await clock.advance(by: .seconds(1))
        #expect(try await attempt(start.addingTimeInterval(300)) == start.addingTimeInterval(300))
    }

    @Test func refreshesWhatIsDueOnlyAndRetriesAFailureSooner() async throws {
        let fixture = try await IngestFixture()
        let clock = TestClock()
        let path = IngestFixture.fixtures.appendingPathComponent("peer-fixtures/iptv-org-epg/epg.iptvx.one.content.xml").path
        try await fixture.store.addSource(SourceDefinition(name: SourceName("feed"), format: .xmltv, location: path, refreshInterval: 300))
        let refresher = SourceRefresher(store: fixture.store, transport: TestHTTP.transport, now: { clock.now() }, clock: ContinuousClock())
        let scheduler = RefreshScheduler(refresher: refresher, now: { clock.now() }, clock: ContinuousClock())
        let updates = scheduler.updates()

        #expect(try await scheduler.refreshDue().map(\.outcome) == [.imported])
        #expect(try await scheduler.refreshDue().isEmpty)
        clock.advance(301)
        #expect(try await scheduler.refreshDue().map(\.source) == ["feed"])

        // A source that fails is tried again after 30 minutes, not after its 12-hour interval.
        try await fixture.store.addSource(SourceDefinition(name: SourceName("broken"), format: .xmltv, location: "/no/such/file.xml"))
        #expect(try await scheduler.refreshDue().map(\.outcome) == [.failed])
        clock.advance(1799)
        #expect(try await scheduler.refreshDue().map(\.source) == ["feed"])
        clock.advance(2)
        #expect(try await scheduler.refreshDue().map(\.source) == ["broken"])

        // Listeners get the progress, ending with the outcome.
        var iterator = updates.makeAsyncIterator()
        #expect(await iterator.next() != nil)
        #expect(scheduler.latest?.sources.first?.phase == .failed)
    }
}
