import Foundation
import GuideCore
import GuideStore
import Testing

/// A source whose refresh never finished (the process stopped during it) or that keeps failing is retried later and
/// later, never at once at every start: the crash loop a hostile feed could cause ends at the store.
@Suite struct RefreshBackoffTests {
    static let t0 = Date(timeIntervalSince1970: 1_771_185_600)

    @Test func aRefreshThatNeverFinishedCountsAsAFailureAtTheNextStart() async throws {
        let fixture = try await StoreFixture()
        try await fixture.store.addSource(SourceDefinition(name: SourceName("feed"), format: .xmltv, location: "/srv/feed.xml"))
        try await fixture.store.recordRefreshStart(of: SourceName("feed"), at: Self.t0)
        var status = try #require(try await fixture.store.sources().first)
        #expect(status.unfinishedSince == Self.t0)
        #expect(status.failuresInRow == 0)
        // Killed before it recorded an outcome: the start is there at the next one, and is due 30 min after, not now.
        #expect(status.nextDue == Self.t0.addingTimeInterval(30 * 60))

        let t1 = Self.t0.addingTimeInterval(3600)
        try await fixture.store.recordRefreshStart(of: SourceName("feed"), at: t1)
        status = try #require(try await fixture.store.sources().first)
        #expect(status.lastOutcome == .failed)
        #expect(status.lastError == SourceStatus.unfinishedRefresh)
        #expect(status.lastAttempt == Self.t0)
        #expect(status.failuresInRow == 1)
        #expect(status.unfinishedSince == t1)
        #expect(status.nextDue == t1.addingTimeInterval(3600), "a second failure in a row waits twice as long")

        try await fixture.store.recordRefresh(RefreshRecord(outcome: .failed, at: t1, duration: 1, failure: .verbatim("cut off")), of: SourceName("feed"))
        status = try #require(try await fixture.store.sources().first)
        #expect(status.failuresInRow == 2 && status.unfinishedSince == nil && status.lastError == "cut off")
        #expect(status.nextDue == t1.addingTimeInterval(3600))

        try await fixture.store.recordRefresh(RefreshRecord(outcome: .imported, at: t1, duration: 1, programmes: 5), of: SourceName("feed"))
        status = try #require(try await fixture.store.sources().first)
        #expect(status.failuresInRow == 0 && status.lastOutcome == .imported)
        #expect(status.nextDue == t1.addingTimeInterval(12 * 3600))
    }

    @Test(arguments: [(1, 30.0), (2, 60), (3, 120), (6, 960), (7, 1440), (8, 1440), (1_000_000, 1440)])
    func retriesDoubleUpToADay(failures: Int, minutes: Double) {
        let status = SourceStatus(definition: SourceDefinition(name: SourceName("s"), format: .xmltv, location: "x"),
                                  lastAttempt: Self.t0, lastOutcome: .failed, failuresInRow: failures)
        #expect(status.nextDue == Self.t0.addingTimeInterval(minutes * 60))
    }

    @Test func aShortIntervalRetriesAtItsInterval() {
        let status = SourceStatus(definition: SourceDefinition(name: SourceName("s"), format: .xmltv, location: "x", refreshInterval: 600),
                                  lastAttempt: Self.t0, lastOutcome: .failed, failuresInRow: 2)
        #expect(status.nextDue == Self.t0.addingTimeInterval(1200))
    }
}
