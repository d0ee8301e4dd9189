import Foundation
import GuideCore
import GuideIngest
import GuideStore
import StoreTestSupport
import Testing

/// Every real guide in ../shared imports, and agrees with an independent reading on counts, now-at-T and search.
@Suite(.enabled(if: IngestFixture.hasShared, "needs ../shared/data (developers and CI have it)"))
struct RealListingsTests {
    @Test(arguments: IngestFixture.realFiles())
    func agreesWithAnIndependentReading(path: String) async throws {
        let fixture = try await IngestFixture()
        // The reference reading takes seconds: off the cooperative threads (the import reads on a thread of its own).
        let summary = try await fixture.importer.importFile(at: path)
        let reference = try await IndependentReading.read(URL(fileURLWithPath: path))
        let airings = reference.airings, channelIDs = reference.channelIDs

        // Counts: every programme is stored, less the duplicates the import removed and reported.
        let removed = summary.issues.counts[.duplicate, default: 0] + summary.issues.counts[.skipped, default: 0]
        #expect(summary.programmes == airings.count - removed)
        #expect(try await fixture.store.counts().programmes == summary.programmes)
        #expect(await Set(try fixture.store.channels().map(\.id.rawValue)) == channelIDs)

        // Now at the median start: where exactly one programme is on by the file, the store says the same.
        let starts = airings.map(\.start).sorted()
        let instant = starts[starts.count / 2].addingTimeInterval(60)
        let onAir = Dictionary(grouping: airings.filter { $0.start <= instant && ($0.stop ?? .distantPast) > instant },
                               by: \.channel).compactMapValues { $0.count == 1 ? $0[0] : nil }
        let nowNext = try await fixture.store.nowNext(at: instant, channels: nil)
        var compared = 0
        for row in nowNext {
            guard let expected = onAir[row.channel.rawValue] else { continue }
            #expect(row.now?.programme.title == expected.title, "\(row.channel) at \(instant)")
            #expect(row.now?.programme.start == expected.start, "\(row.channel) at \(instant)")
            compared += 1
        }
        #expect(compared > 0)

        // Search: two words of a title on air, against a plain substring filter of the file's titles.
        let sample = try #require(onAir.values.sorted { $0.title.count > $1.title.count }.first)
        let words = sample.title.split(separator: " ").map(String.init).filter { $0.count >= 2 }.prefix(2)
        let query = SearchQuery(Array(words), limit: 100_000)
        let expected = Set(airings.filter { query.matches(folded: SearchText.fold($0.title)) }
            .map { "\($0.channel) \($0.start.timeIntervalSince1970) \($0.title)" })
        let found = try await fixture.store.search(query)
        #expect(Set(found.map { "\($0.programme.channel) \($0.programme.start.timeIntervalSince1970) \($0.programme.title)" }) == expected)
        #expect(found.map(\.programme.start) == found.map(\.programme.start).sorted())

        // Summaries: the grid's reading of every programme is the full reading less what a summary leaves out.
        let window = try #require(try await fixture.store.coverage())
        let full = try await fixture.store.guide(in: window, channels: nil, detail: .full).flatMap(\.programmes)
        let summaries = try await fixture.store.guide(in: window, channels: nil, detail: .summary).flatMap(\.programmes)
        #expect(summaries.count == full.count)
        #expect(summaries.map(\.id) == full.map(\.id))
        #expect(summaries.map(\.programme) == full.map { $0.programme.summary })
    }
}
