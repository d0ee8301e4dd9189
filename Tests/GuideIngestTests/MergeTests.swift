import Foundation
import GuideCore
import GuideIngest
import GuideStore
import StoreTestSupport
import Testing
import XMLTV

/// Two real sources on the same channel: the higher priority wins each stretch of time, the lower fills its gaps,
/// duplicates never show twice, every programme names its source, and a feed an hour off is caught by health.
@Suite struct MergeTests {
    static let original = String(decoding: RefreshTests.small, as: UTF8.self)   // one channel, 230 programmes, +0300

    /// The feed with its last `dropping` programmes removed: a gap at the end for a lower source to fill.
    static func withoutLast(_ dropping: Int) -> String {
        original.components(separatedBy: "<programme ").dropLast(dropping).joined(separator: "<programme ") + "</tv>\n"
    }

    /// The feed with its times an hour late: the offsets say +0200 where the times are +0300.
    static let shifted = original.replacingOccurrences(of: " +0300\"", with: " +0200\"")

    struct Rig {
        let fixture: IngestFixture
        let folder = URL(fileURLWithPath: TestScratch.folder("tvguide-merge"))

        init() async throws {
            fixture = try await IngestFixture()
        }

        func add(_ name: String, _ text: String, priority: Int) async throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = folder.appendingPathComponent("\(name).xml").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            try await fixture.store.addSource(SourceDefinition(name: SourceName(name), format: .xmltv, location: path, priority: priority))
        }

        /// Each source's programmes and hidden programmes, as the sources' page shows them.
        func sourceCounts() async throws -> [String: [Int]] {
            Dictionary(uniqueKeysWithValues: try await fixture.store.sources().map {
                ($0.definition.name.rawValue, [$0.programmes, $0.hidden])
            })
        }

        func refresh() async throws -> [SourceReport] {
            try await SourceRefresher(store: fixture.store, transport: TestHTTP.transport, now: { Date() }, clock: ContinuousClock()).refresh()
        }

        /// Each source's programmes as the reader sees its file: (start, stop) pairs.
        static func airings(_ text: String) throws -> [(start: Int64, stop: Int64)] {
            try XMLTVReader.read(Array(text.utf8)).programmes.map {
                (Int64($0.start.timeIntervalSince1970), Int64(($0.stop ?? $0.start).timeIntervalSince1970))
            }
        }
    }

    @Test func theHigherSourceWinsTheLowerFillsGapsAndAShiftedFeedIsReported() async throws {
        let rig = try await Rig()
        let primary = Self.withoutLast(30)
        try await rig.add("primary", primary, priority: 10)
        try await rig.add("late-by-an-hour", Self.shifted, priority: 0)
        let reports = try await rig.refresh()
        #expect(reports.allSatisfy { $0.outcome == .imported }, "\(reports)")

        // What an independent merge of the two files says the guide shows.
        let high = try Rig.airings(primary)
        let low = try Rig.airings(Self.shifted)
        let fillers = low.filter { airing in !high.contains { $0.start < airing.stop && $0.stop > airing.start } }
        #expect(!fillers.isEmpty && fillers.count < 40)
        let shown = try await rig.fixture.all()
        #expect(shown.count == high.count + fillers.count)
        // The guide's count is the programmes stored less those hidden (not a count of the rows shown).
        #expect(try await rig.fixture.store.counts().programmes == shown.count)
        #expect(shown.filter { $0.source == SourceName("primary") }.count == high.count)
        #expect(Set(shown.filter { $0.source == SourceName("late-by-an-hour") }.map { Int64($0.programme.start.timeIntervalSince1970) })
                == Set(fillers.map(\.start)))
        // Nothing shown overlaps anything else shown.
        let sorted = shown.sorted { $0.programme.start < $1.programme.start }
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0.end <= $1.programme.start })
        // The sources refreshed together, so either may have imported first: what is hidden now is the store's count.
        #expect(try await rig.fixture.store.sources().first { $0.definition.name.rawValue == "late-by-an-hour" }?.hidden
                == low.count - fillers.count)
        #expect(try await rig.sourceCounts()
                == ["primary": [high.count, 0], "late-by-an-hour": [low.count, low.count - fillers.count]])

        // Health sees the hour.
        let health = try await rig.fixture.store.channelHealth(at: Date(timeIntervalSince1970: TimeInterval(high[0].start)))
        let channel = try #require(health.first)
        #expect(channel.sources == ["primary", "late-by-an-hour"])
        #expect(channel.warnings.count == 1)
        #expect(channel.warnings.first?.contains("late-by-an-hour's times look 60 min later than primary's") == true)
    }

    /// Each source's count of programmes (v44, moved on by its imports) follows a refresh that replaces its programmes
    /// with fewer, and the hidden ones follow the merge.
    @Test func eachSourceCountsItsProgrammesAsItsRefreshesReplaceThem() async throws {
        let rig = try await Rig()
        try await rig.add("primary", Self.withoutLast(30), priority: 10)
        try await rig.add("copy", Self.original, priority: 0)
        _ = try await rig.refresh()
        #expect(try await rig.sourceCounts() == ["primary": [200, 0], "copy": [230, 200]])
        // The primary loses 20 programmes within what it covers (those past a file's end are kept); the copy fills
        // them.
        var parts = Self.withoutLast(30).components(separatedBy: "<programme ")
        parts.removeSubrange(101...120)
        let fewer = parts.joined(separator: "<programme ")
        try Data(fewer.utf8).write(to: rig.folder.appendingPathComponent("primary.xml"))
        _ = try await rig.refresh()
        let counts = try await rig.sourceCounts()
        #expect(counts == ["primary": [180, 0], "copy": [230, 180]], "\(counts)")
        #expect(try await rig.fixture.store.counts().programmes == 230)
    }

    @Test func aDuplicateFeedAddsNothingAndRaisingItsPriorityShowsItInstead() async throws {
        let rig = try await Rig()
        try await rig.add("first", Self.original, priority: 5)
        try await rig.add("copy", Self.original, priority: 1)
        _ = try await rig.refresh()
        let shown = try await rig.fixture.all()
        #expect(shown.count == 230)
        #expect(try await rig.fixture.store.counts().programmes == 230)
        #expect(shown.allSatisfy { $0.source == SourceName("first") })
        // No shift between identical feeds.
        #expect(try await rig.fixture.store.channelHealth(at: Date(timeIntervalSince1970: 0)).first?.warnings == [])

        var copy = try #require(try await rig.fixture.store.sources().first { $0.definition.name.rawValue == "copy" }).definition
        copy.priority = 9
        try await rig.fixture.store.updateSource(copy)
        #expect(try await rig.fixture.all().allSatisfy { $0.source == SourceName("copy") })
        #expect(try await rig.fixture.store.counts().programmes == 230)
        #expect(try await rig.fixture.store.removeSource(SourceName("copy")) == 230)
        #expect(try await rig.fixture.all().count == 230)
        #expect(try await rig.fixture.store.counts().programmes == 230)
        #expect(try await rig.fixture.store.removeSource(SourceName("first")) == 230)
        #expect(try await rig.fixture.store.counts().programmes == 0)
    }

    @Test func aRenamedChannelKeepsItsChoicesAndItsGuideChannel() async throws {
        let rig = try await Rig()
        try await rig.add("feed", Self.original, priority: 0)
        _ = try await rig.refresh()
        let offered = try await rig.fixture.store.sourceChannels(of: SourceName("feed"))
        let old = try #require(offered.first)
        // The provider renames the channel's id; its display name stays.
        let renamed = Self.original.replacingOccurrences(of: "\"\(old.id.rawValue)\"", with: "\"renamed.id\"")
        #expect(renamed != Self.original)
        try Data(renamed.utf8).write(to: rig.folder.appendingPathComponent("feed.xml"))
        let report = try #require(try await rig.refresh().first)
        #expect(report.renamedChannels == [old.id.rawValue: "renamed.id"])
        #expect(try await rig.fixture.store.channels().map(\.id) == [old.id])
        #expect(try await rig.fixture.all().count == 230)
        #expect(try await rig.fixture.all().allSatisfy { $0.programme.channel == old.id })
    }

    @Test func aChannelFilterKeepsOnlyTheChosen() async throws {
        let rig = try await Rig()
        let text = String(decoding: RefreshTests.other, as: UTF8.self)   // five EnerGeek channels
        try await rig.add("feed", text, priority: 0)
        var definition = try #require(try await rig.fixture.store.sources().first).definition
        definition.keepNewChannels = false
        definition.channels = ["EnerGeek Retro"]
        try await rig.fixture.store.updateSource(definition)
        _ = try await rig.refresh()
        #expect(await Set(try rig.fixture.all().map(\.programme.channel.rawValue)) == ["EnerGeek Retro"])
        #expect(try await rig.fixture.store.sourceChannels(of: SourceName("feed")).filter(\.keep).map(\.id.rawValue) == ["EnerGeek Retro"])
    }
}
