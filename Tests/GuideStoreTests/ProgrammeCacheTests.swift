import Foundation
import GuideCore
import Testing
@testable import GuideStorePostgres
@testable import GuideStore

/// PostgreSQL's programme cache keeps at most its capacity, keeps what is asked for again, and keeps each detail apart.
@Suite struct ProgrammeCacheTests {
    static func programme(_ id: Int64) -> StoredProgramme {
        let start = Date(timeIntervalSince1970: TimeInterval(id * 1800))
        return StoredProgramme(id: ProgrammeID(rawValue: id), source: SourceName("test"),
                               programme: Programme(channel: ChannelID("c"), start: start, stop: start.addingTimeInterval(1800),
                                                    titles: [LocalizedText("Programme \(id)")]),
                               end: start.addingTimeInterval(1800))
    }

    @Test func keepsAtMostItsCapacityAndWhatIsAskedForAgain() {
        let cache = ProgrammeCache(capacity: 4)
        cache.keep((1...2).map(Self.programme), detail: .summary)
        cache.keep((3...4).map(Self.programme), detail: .summary)   // 1 and 2 move to the older half.
        #expect(cache.lookup([1], detail: .summary).first??.id.rawValue == 1)   // Asked for again: back in the newer half.
        cache.keep((5...6).map(Self.programme), detail: .summary)
        let kept = cache.lookup(Array(1...6), detail: .summary).compactMap { $0?.id.rawValue }
        #expect(kept.count <= 4, "\(kept)")
        #expect(kept.contains(6) && kept.contains(5))
        #expect(!kept.contains(2) && !kept.contains(3))
        #expect(cache.lookup([0, 5], detail: .full).allSatisfy { $0 == nil })   // Details are kept apart.
    }
}
