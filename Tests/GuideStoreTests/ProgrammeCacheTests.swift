import Foundation
import GuideCore
import Testing
@testable import GuideStore

/// The stores' programme cache keeps at most its capacity, keeps what is asked for again, keeps each detail apart,
/// and, for a store that reuses ids, only the newest generation's rows.
@Suite struct ProgrammeCacheTests {
    static func programme(_ id: Int64) -> StoredProgramme {
        let start = Date(timeIntervalSince1970: TimeInterval(id * 1800))
        return StoredProgramme(id: ProgrammeID(rawValue: id), source: SourceName("test"),
                               programme: Programme(channel: ChannelID("c"), start: start, stop: start.addingTimeInterval(1800),
                                                    titles: [LocalizedText("Programme \(id)")]),
                               end: start.addingTimeInterval(1800))
    }

    @Test func keepsAtMostItsCapacityAndWhatIsAskedForAgain() {
        let cache = ProgrammeCache(summaries: 4, full: 4, keptAcrossGenerations: true)
        cache.keep((1...2).map(Self.programme), detail: .summary, generation: 1)
        cache.keep((3...4).map(Self.programme), detail: .summary, generation: 1)   // 1 and 2 move to the older half.
        // Asked for again: back in the newer half. Across generations, as PostgreSQL's ids are never reused.
        #expect(cache.lookup([1], detail: .summary, generation: 2).rows.first??.id.rawValue == 1)
        cache.keep((5...6).map(Self.programme), detail: .summary, generation: 2)
        let kept = cache.lookup(Array(1...6), detail: .summary, generation: 2).rows.compactMap { $0?.id.rawValue }
        #expect(kept.count <= 4, "\(kept)")
        #expect(kept.contains(6) && kept.contains(5))
        #expect(!kept.contains(2) && !kept.contains(3))
        // Details are kept apart; what is not kept is to be read, but for id 0, which no programme has.
        let full = cache.lookup([0, 5], detail: .full, generation: 2)
        #expect(full.rows.allSatisfy { $0 == nil } && full.missing == [1])
        #expect(cache.lookup([6, 0, 3], detail: .summary, generation: 2).missing == [2])
    }

    @Test func aStoreThatReusesIdsKeepsOnlyTheNewestGenerationsRows() {
        let cache = ProgrammeCache(keptAcrossGenerations: false)
        cache.keep((1...3).map(Self.programme), detail: .summary, generation: 5)
        #expect(cache.lookup([1, 2, 3], detail: .summary, generation: 5).missing.isEmpty)
        // An import: id 2 may now be another programme. Nothing from generation 5 is used...
        let newer = cache.lookup([1, 2, 3], detail: .summary, generation: 6)
        #expect(newer.rows.allSatisfy { $0 == nil } && newer.missing == [0, 1, 2])
        // ...nor kept by a read that began before the import and finishes after it.
        cache.keep([Self.programme(2)], detail: .summary, generation: 5)
        #expect(cache.lookup([2], detail: .summary, generation: 6).rows == [nil])
        cache.keep([Self.programme(2)], detail: .summary, generation: 6)
        #expect(cache.lookup([2], detail: .summary, generation: 6).rows.first??.id.rawValue == 2)
    }
}
