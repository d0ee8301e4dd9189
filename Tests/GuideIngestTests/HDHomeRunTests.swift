import BoxesReplay
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import Testing

/// An HDHomeRun tuner as a source: its key asked for at every refresh (it rotates), its channels from its lineup, its
/// guide a window at a time from the guide service, written as XMLTV and imported. Against loopback stand-ins for the
/// tuner (its recorded answers) and the service.
@Suite struct HDHomeRunTests {
    static func rig() async throws -> (IngestFixture, HDHomeRunStandIn, SourceRefresher, AsyncHTTPTransport) {
        let fixture = try await IngestFixture()
        let standIn = try await HDHomeRunStandIn(now: { Date() })
        let transport = AsyncHTTPTransport()
        let refresher = SourceRefresher(store: fixture.store, transport: transport, hdhomerunGuide: standIn.guideBase, now: { Date() }, clock: ContinuousClock())
        try await fixture.store.addSource(SourceDefinition(name: SourceName("Tuner"), format: .hdhomerun, location: standIn.device, days: 1))
        return (fixture, standIn, refresher, transport)
    }

    @Test func aTunersGuideIsFetchedWindowByWindowWithTheKeyItGivesEachTime() async throws {
        let (fixture, standIn, refresher, transport) = try await Self.rig()
        let report = try #require(try await refresher.refresh([SourceName("Tuner")]).first)
        #expect(report.outcome == .imported, "\(report.error ?? "")")
        // The six channels of the recorded lineup, named and numbered as the tuner names them.
        #expect(report.channels == 6)
        let channels = try await fixture.store.channels()
        #expect(channels.first { $0.id.rawValue == "4.1.1053C0CA.hdhomerun" }?.name == "WCMH-DT")
        #expect(channels.first { $0.id.rawValue == "4.1.1053C0CA.hdhomerun" }?.displayNames.map(\.text) == ["WCMH-DT", "4.1"])
        // A day (and the hour begun) in 4-hour windows, each asked once with the key.
        let guides = standIn.requests(to: "/api/guide.php")
        #expect((7...8).contains(guides.count), "\(guides.count) windows")
        #expect(guides.allSatisfy { $0.query.contains("DeviceAuth=\(standIn.currentKey)") })
        #expect(guides.dropFirst().allSatisfy { $0.query.contains("&Start=") })
        #expect(report.programmes == 6 * 4 * guides.count)
        // What an airing says, mapped.
        let stored = try await fixture.all().map(\.programme)
        let episode = try #require(stored.first { $0.subTitle == "Part 1" })
        #expect(episode.onScreenNumber == "S02E01")
        #expect(episode.numbering?.season == 2 && episode.numbering?.episode == 1)
        #expect(episode.isRepeat)
        #expect(episode.categories.map(\.text) == ["Drama"])
        #expect(stored.contains { $0.description == "SYNTHETIC: an hour of MeTV." })

        // The key rotates: the next refresh asks the tuner again and uses the new one only.
        standIn.rotate()
        let before = standIn.requests.count
        let again = try #require(try await refresher.refresh([SourceName("Tuner")]).first)
        #expect(again.outcome == .imported, "\(again.error ?? "")")
        let asked = standIn.requests.dropFirst(before)
        #expect(asked.first?.path == "/discover.json")
        #expect(asked.filter { $0.path == "/api/guide.php" }.allSatisfy { $0.query.contains("DeviceAuth=\(standIn.currentKey)") })
        // The key never reaches the health page.
        #expect(try await fixture.store.sources().allSatisfy { $0.lastError == nil })
        // The guide a refresh writes for itself leaves no validators behind (one kept per refresh would pile up).
        #expect(try await fixture.store.validators(of: SourceName("Tuner")).isEmpty)
        try await transport.shutdown()
        try await standIn.stop()
    }

    @Test func aTunerWithoutAKeyFailsSayingSoAndTheGuideKeepsItsListings() async throws {
        let (fixture, standIn, refresher, transport) = try await Self.rig()
        #expect(try await refresher.refresh([SourceName("Tuner")]).first?.outcome == .imported)
        let before = try await fixture.all()
        standIn.legacyFirmware()
        let report = try #require(try await refresher.refresh([SourceName("Tuner")]).first)
        #expect(report.outcome == .failed)
        #expect(report.error?.contains("gives no DeviceAuth (older firmware") == true, "\(report.error ?? "")")
        #expect(try await fixture.all() == before)
        // An address that is not one is refused before it is stored.
        #expect(SourceDefinition(name: SourceName("X"), format: .hdhomerun, location: "192.168.1.70").problem != nil)
        try await transport.shutdown()
        try await standIn.stop()
    }

    @Test func hostileTimesAreLeftOutWithoutATrap() {
        #expect(HDHomeRunGuide.takes(start: 1_800_000_000, end: 1_800_003_600))
        for (start, end) in [(Int64(-1), Int64.max), (Int64.min, Int64.max), (0, Int64.max), (1_800_003_600, 1_800_000_000),
                             (1_800_000_000, 1_800_000_000 + 32 * 86_400), (Int64.max - 1, Int64.max)] {
            #expect(!HDHomeRunGuide.takes(start: start, end: end), "\(start)...\(end)")
        }
        for airdate in [Int64.max, Int64.min, -1] {
            #expect(HDHomeRunGuide.takes(start: 1_800_000_000, end: 1_800_003_600, originalAirdate: airdate))
        }
    }

    @Test func episodeNumbersAreReadOnlyWhenTheyAreSeasonAndEpisode() {
        #expect(HDHomeRunGuide.seasonAndEpisode("S01E02")! == (1, 2))
        #expect(HDHomeRunGuide.seasonAndEpisode("s10e100")! == (10, 100))
        for text in ["EP012345", "S0E1", "SE", "S1E", "S99999999999E1", "2024-01-01", ""] {
            #expect(HDHomeRunGuide.seasonAndEpisode(text) == nil, "\(text)")
        }
    }
}
