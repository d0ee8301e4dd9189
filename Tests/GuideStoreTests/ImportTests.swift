import Foundation
import GuideCore
import GuideStore
import Testing
import XMLTV

@Suite struct ImportTests {
    @Test func storesChannelsAndProgrammes() throws {
        let fixture = try StoreFixture()
        let summary = try fixture.importFixture("peer-xmltv-tests/inputs/test.xml")
        #expect(summary.channels == 2)
        #expect(summary.programmes == 1)
        #expect(try fixture.store.channels().map(\.id.rawValue) == ["3sat.de", "das-erste.de"])
        #expect(try fixture.store.counts().programmes == 1)
    }

    @Test func keepsEveryFieldThroughTheStore() throws {
        let fixture = try StoreFixture()
        try fixture.importFixture("ours/out-of-order.xml")
        let read = try XMLTVReader.read([UInt8](try Data(contentsOf: StoreFixture.fixtures.appendingPathComponent("ours/out-of-order.xml"))))
        var stored: [Programme] = []
        try fixture.store.forEachProgramme { stored.append($0.programme) }
        #expect(stored == read.programmes)
        #expect(try fixture.store.channels() == read.channels)
        // and a summary reading walks past the rest: every field is set somewhere in the file.
        let window = try #require(try fixture.store.coverage())
        let summaries = try fixture.store.guide(in: window, channels: nil, detail: .summary).flatMap(\.programmes)
        #expect(Set(summaries.map(\.programme)) == Set(read.programmes.map(\.summary)))
        #expect(read.programmes.contains { !$0.credits.isEmpty && !$0.descriptions.isEmpty && $0.isRepeat })
    }

    @Test func replacesWhatTheSameSourceSaidForTheRangeItCovers() throws {
        // Given a source with two days on channel a and one on b,
        let fixture = try StoreFixture()
        try fixture.importXML(StoreFixture.xml([
            ("a", "20240101200000", "20240101210000", "Old Monday"),
            ("a", "20240102200000", "20240102210000", "Old Tuesday"),
            ("b", "20240101200000", "20240101210000", "Old B"),
        ]), source: "feed")
        // when it sends only Tuesday on a again,
        let summary = try fixture.importXML(StoreFixture.xml([
            ("a", "20240102200000", "20240102203000", "New Tuesday"),
            ("a", "20240102203000", "20240102210000", "New Tuesday late"),
        ]), source: "feed")
        // then Tuesday is replaced, Monday and channel b are kept.
        #expect(summary.replaced == 1)
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        #expect(try fixture.store.programmes(on: ChannelID("a"), in: all).map(\.programme.title)
                == ["Old Monday", "New Tuesday", "New Tuesday late"])
        #expect(try fixture.store.programmes(on: ChannelID("b"), in: all).map(\.programme.title) == ["Old B"])
    }

    @Test func anotherSourceDoesNotReplaceItHidesBehindTheFirst() throws {
        let fixture = try StoreFixture()
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        func titles() throws -> [String] { try fixture.store.programmes(on: ChannelID("a"), in: all).map(\.programme.title) }
        try fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "One")]), source: "first")
        let summary = try fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "Two"),
                                                             ("a", "20240101210000", "20240101220000", "Later")]), source: "second")
        // Equal priorities: the source first seen wins the shared hour; the second fills the hour after it.
        #expect(summary.hidden == 1)
        #expect(try titles() == ["One", "Later"])
        #expect(try fixture.store.counts().programmes == 2)
        // Removing the first shows what hid behind it.
        #expect(try fixture.store.removeSource(SourceName("first")) == 1)
        #expect(try titles() == ["Two", "Later"])
    }

    @Test func aFailedImportChangesNothing() throws {
        let fixture = try StoreFixture()
        try fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "Kept")], channels: ["a"]), source: "feed")
        // Given a file from the same source that breaks half-way,
        let broken = StoreFixture.xml([("a", "20240101200000", "20240101210000", "Replacement")], channels: ["a", "b"])
            .replacingOccurrences(of: "</tv>", with: "<programme start=\"2024\" channel=\"a\"><title>cut")
        #expect(throws: XMLTVError.self) { try fixture.importXML(broken, source: "feed") }
        // then the guide is exactly as before.
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        #expect(try fixture.store.programmes(on: ChannelID("a"), in: all).map(\.programme.title) == ["Kept"])
        #expect(try fixture.store.channels().map(\.id.rawValue) == ["a"])
    }

    @Test func repairsAndReportsProblemProgrammes() throws {
        let fixture = try StoreFixture()
        let summary = try fixture.importFixture("ours/repairs.xml")
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        let stored = try fixture.store.programmes(on: ChannelID("c1"), in: all)
        let rows = stored.map { "\($0.programme.title) \(CivilTime.iso8601($0.programme.start))-\($0.programme.stop.map(CivilTime.iso8601) ?? "open")" }
        #expect(rows == [
            "No stop 2024-01-01T18:00:00Z-2024-01-01T19:00:00Z",
            "Stop before start 2024-01-01T19:00:00Z-2024-01-01T20:00:00Z",
            "Zero 2024-01-01T20:00:00Z-2024-01-01T20:00:00Z",
            "Long 2024-01-01T20:00:00Z-2024-01-01T21:00:00Z",
            "Overlapping 2024-01-01T21:00:00Z-2024-01-01T22:00:00Z",
            "Last, no stop 2024-01-01T22:00:00Z-open",
        ])
        // The open-ended last programme lasts its stated 45 minutes in the guide.
        #expect(stored.last.map { CivilTime.iso8601($0.end) } == "2024-01-01T22:45:00Z")
        #expect(summary.issues.counts == [.stopFromNextStart: 2, .stopBeforeStart: 1, .zeroLength: 1, .duplicate: 1,
                                          .overlap: 1, .stopUnknown: 1, .skipped: 2])
        #expect(summary.programmes == 6)
    }

    @Test func readersAreNotBlockedDuringAnImport() throws {
        let fixture = try StoreFixture()
        try fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "Before")], channels: ["a"]))
        var seenDuringImport: [String] = []
        try fixture.store.importListings(from: SourceName("second")) { sink in
            try sink.add(Channel(id: ChannelID("b")))
            // While this write transaction is open, another thread reads the guide as it was.
            let done = DispatchSemaphore(value: 0)
            let store = fixture.store
            nonisolated(unsafe) var names: [String] = []
            Thread.detachNewThread {
                names = (try? store.channels().map(\.id.rawValue)) ?? ["read failed"]
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success)
            seenDuringImport = names
        }
        #expect(seenDuringImport == ["a"])
        #expect(try fixture.store.channels().map(\.id.rawValue) == ["a", "b"])
    }
}
