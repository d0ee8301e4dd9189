import Foundation
import GuideCore
import GuideStore
import GuideThreads
import Testing
import XMLTV

@Suite struct ImportTests {
    @Test func storesChannelsAndProgrammes() async throws {
        let fixture = try await StoreFixture()
        let summary = try await fixture.importFixture("peer-xmltv-tests/inputs/test.xml")
        #expect(summary.channels == 2)
        #expect(summary.programmes == 1)
        #expect(try await fixture.store.channels().map(\.id.rawValue) == ["3sat.de", "das-erste.de"])
        #expect(try await fixture.store.counts().programmes == 1)
    }

    @Test func keepsEveryFieldThroughTheStore() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importFixture("ours/out-of-order.xml")
        let read = try XMLTVReader.read([UInt8](try Data(contentsOf: StoreFixture.fixtures.appendingPathComponent("ours/out-of-order.xml"))))
        let stored = try await fixture.store.everyProgramme().map(\.programme)
        #expect(stored == read.programmes)
        #expect(try await fixture.store.channels() == read.channels)
        // and a summary reading walks past the rest: every field is set somewhere in the file.
        let window = try #require(try await fixture.store.coverage())
        let summaries = try await fixture.store.guide(in: window, channels: nil, detail: .summary).flatMap(\.programmes)
        #expect(Set(summaries.map(\.programme)) == Set(read.programmes.map(\.summary)))
        #expect(read.programmes.contains { !$0.credits.isEmpty && !$0.descriptions.isEmpty && $0.isRepeat })
    }

    @Test func replacesWhatTheSameSourceSaidForTheRangeItCovers() async throws {
        // Given a source with two days on channel a and one on b,
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([
            ("a", "20240101200000", "20240101210000", "Old Monday"),
            ("a", "20240102200000", "20240102210000", "Old Tuesday"),
            ("b", "20240101200000", "20240101210000", "Old B"),
        ]), source: "feed")
        // when it sends only Tuesday on a again,
        let summary = try await fixture.importXML(StoreFixture.xml([
            ("a", "20240102200000", "20240102203000", "New Tuesday"),
            ("a", "20240102203000", "20240102210000", "New Tuesday late"),
        ]), source: "feed")
        // then Tuesday is replaced, Monday and channel b are kept.
        #expect(summary.replaced == 1)
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        #expect(try await fixture.store.programmes(on: ChannelID("a"), in: all).map(\.programme.title)
                == ["Old Monday", "New Tuesday", "New Tuesday late"])
        #expect(try await fixture.store.programmes(on: ChannelID("b"), in: all).map(\.programme.title) == ["Old B"])
    }

    @Test func onlyTheChannelsASourceListedBeforeHaveRowsOfItToReplace() async throws {
        // Given "feed" on channels a and c, "other" on b, then "feed" on a alone (c's rows stay),
        let fixture = try await StoreFixture()
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        func titles(_ channel: String) async throws -> [String] {
            try await fixture.store.programmes(on: ChannelID(channel), in: all).map(\.programme.title)
        }
        func hour(_ channel: String, _ title: String) -> (String, String, String?, String) {
            (channel, "20240101200000", "20240101210000", title)
        }
        try await fixture.importXML(StoreFixture.xml([hour("a", "Old A"), hour("c", "Old C")]), source: "feed")
        try await fixture.importXML(StoreFixture.xml([hour("b", "Other B")]), source: "other")
        try await fixture.importXML(StoreFixture.xml([hour("a", "Old A")]), source: "feed")
        // when "feed" lists a again, b for the first time, and c again,
        let summary = try await fixture.importXML(StoreFixture.xml([
            ("a", "20240101200000", "20240101210000", "New A"),
            ("b", "20240101210000", "20240101220000", "Feed B"),
            ("c", "20240101200000", "20240101203000", "New C"),
        ]), source: "feed")
        // then only its own stored rows on a and c are replaced, and b keeps "other"'s row beside its new one.
        #expect(summary.replaced == 2)
        #expect(try await titles("a") == ["New A"])
        #expect(try await titles("b") == ["Other B", "Feed B"])
        #expect(try await titles("c") == ["New C"])
        #expect(try await fixture.store.counts().programmes == 4)
    }

    @Test func titlesAndDescriptionsNoProgrammeUsesAnyMoreLeaveTheStore() async throws {
        // Given Tuesday on channel a replaced by a second import, and Monday kept,
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([
            ("a", "20240101200000", "20240101210000", "Old Monday"),
            ("a", "20240102200000", "20240102210000", "Old Tuesday"),
        ]), source: "feed")
        try await fixture.importXML(StoreFixture.xml([("a", "20240102200000", "20240102210000", "New Tuesday")]), source: "feed")
        // then the replaced title and description are gone from the texts searches read, and the rest stay.
        let backend = try #require(fixture.store as? any SQLBackend)
        let (titles, bodies) = try await Self.texts(backend)
        #expect(titles == ["old monday", "new tuesday"])
        #expect(bodies == ["about old monday", "about new tuesday"])
        // And SQLite's trigram indexes agree with what is left.
        try await Self.expectSearchIndexesAgree(fixture)
    }

    /// The trigram indexes hold exactly what the title and body tables say (``TrigramIndexTests``).
    static func expectSearchIndexesAgree(_ fixture: StoreFixture) async throws {
        try await TrigramIndexTests.expectIndexesAgree(fixture)
    }

    @Test func aGuideOfManyBatchesIsStoredAndRepairedAsOne() async throws {
        // Given 3 channels of 1,500 half-hours each (4,500 programmes: PostgreSQL sends 2,000 at a time, each while the
        // one before is inserted; channel b's run crosses from one batch into the next), every other one without a
        // stop, and new titles in every batch,
        let fixture = try await StoreFixture()
        let base = StoreFixture.date("20240101000000 +0000")
        // XMLTV's own form without its zone (StoreFixture.xml writes " +0000").
        let format = { (date: Date) in String(XMLTVTimestamp.format(date).prefix(14)) }
        let slots = 1_500
        var rows: [(String, String, String?, String)] = []
        for channel in ["a", "b", "c"] {
            for slot in 0..<slots {
                let start = base.addingTimeInterval(Double(slot) * 1_800)
                let stop = slot.isMultiple(of: 2) || slot == slots - 1 ? format(start.addingTimeInterval(1_800)) : nil
                rows.append((channel, format(start), stop, "Show \(slot / 2)"))
            }
        }
        let summary = try await fixture.importXML(StoreFixture.xml(rows), source: "feed")
        // then every programme is stored, each stop that was missing is the next programme's start, and the titles
        // are the ones read.
        #expect(summary.programmes == 3 * slots)
        let all = TimeWindow(start: StoreFixture.date("2023"), end: StoreFixture.date("2025"))
        for channel in ["a", "b", "c"] {
            let stored = try await fixture.store.programmes(on: ChannelID(channel), in: all).map(\.programme)
            #expect(stored.count == slots)
            #expect(stored.enumerated().allSatisfy { slot, programme in
                programme.start == base.addingTimeInterval(Double(slot) * 1_800)
                    && programme.stop == base.addingTimeInterval(Double(slot + 1) * 1_800) && programme.title == "Show \(slot / 2)"
            })
        }
        let backend = try #require(fixture.store as? any SQLBackend)
        #expect(try await Self.texts(backend).titles.count == slots / 2)
        // Each title and body is stored once, though PostgreSQL makes a batch before the one before it is stored, and
        // a first import adds the texts it has not met without looking for them.
        let counts = try await backend.reading { sql in
            (try await sql.column("SELECT count(*) FROM title", as: Int64.self),
             try await sql.column("SELECT count(*) FROM body", as: Int64.self))
        }
        #expect(counts.0 == [Int64(slots / 2)] && counts.1 == [Int64(slots / 2)])
    }

    /// The folded titles and bodies the store keeps.
    static func texts(_ backend: some SQLBackend) async throws -> (titles: Set<String>, bodies: Set<String>) {
        try await backend.reading { sql in
            (Set(try await sql.column("SELECT folded FROM title", as: String.self)),
             Set(try await sql.column("SELECT folded FROM body", as: String.self)))
        }
    }

    @Test func anotherSourceDoesNotReplaceItHidesBehindTheFirst() async throws {
        let fixture = try await StoreFixture()
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        func titles() async throws -> [String] { try await fixture.store.programmes(on: ChannelID("a"), in: all).map(\.programme.title) }
        try await fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "One")]), source: "first")
        let summary = try await fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "Two"),
                                                             ("a", "20240101210000", "20240101220000", "Later")]), source: "second")
        // Equal priorities: the source first seen wins the shared hour; the second fills the hour after it.
        #expect(summary.hidden == 1)
        #expect(try await titles() == ["One", "Later"])
        #expect(try await fixture.store.counts().programmes == 2)
        // Removing the first shows what hid behind it.
        #expect(try await fixture.store.removeSource(SourceName("first")) == 1)
        #expect(try await titles() == ["Two", "Later"])
    }

    @Test func aFailedImportChangesNothing() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "Kept")], channels: ["a"]), source: "feed")
        // Given a file from the same source that breaks half-way,
        let broken = StoreFixture.xml([("a", "20240101200000", "20240101210000", "Replacement")], channels: ["a", "b"])
            .replacingOccurrences(of: "</tv>", with: "<programme start=\"2024\" channel=\"a\"><title>cut")
        await #expect(throws: XMLTVError.self) { try await fixture.importXML(broken, source: "feed") }
        // then the guide is exactly as before.
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        #expect(try await fixture.store.programmes(on: ChannelID("a"), in: all).map(\.programme.title) == ["Kept"])
        #expect(try await fixture.store.channels().map(\.id.rawValue) == ["a"])
    }

    /// PostgreSQL's import sends its rows in batches while it reads on, and hands out their ids itself; SQLite's
    /// writes them as it reads. Either way a file that breaks after thousands leaves nothing of them.
    @Test func anImportThatBreaksAfterBatchesWentInChangesNothingAndTheNextStoresAll() async throws {
        let fixture = try await StoreFixture()
        // Given 5,000 programmes on five channels, 700 titles, a description each,
        let channels = ["a", "b", "c", "d", "e"], first = StoreFixture.date("20240101000000")
        func stamp(_ date: Date) -> String { String(XMLTVTimestamp.format(date).prefix(14)) }
        let programmes = (0..<5_000).map { index -> (String, String, String?, String) in
            let start = first.addingTimeInterval(Double(index / 5) * 1_800)
            return (channels[index % 5], stamp(start), stamp(start.addingTimeInterval(1_800)), "Show \(index % 700)")
        }
        try await fixture.importXML(StoreFixture.xml(Array(programmes.prefix(10)), channels: channels), source: "feed")
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        func stored() async throws -> [[String]] {
            var titles: [[String]] = []
            for channel in channels {
                let rows = try await fixture.store.programmes(on: ChannelID(channel), in: all)
                titles.append(rows.map(\.programme.title))
            }
            return titles
        }
        let before = try await stored()
        // when the source's next file breaks after all of them,
        let broken = StoreFixture.xml(programmes.map { ($0.0, $0.1, $0.2, $0.3 + " again") }, channels: channels)
            .replacingOccurrences(of: "</tv>", with: "<programme start=\"2024\" channel=\"a\"><title>cut")
        await #expect(throws: XMLTVError.self) { try await fixture.importXML(broken, source: "feed") }
        // then the guide is as before,
        #expect(try await stored() == before)
        #expect(try await fixture.store.counts().programmes == 10)
        // and the whole file after it stores every programme once, with its own title.
        let summary = try await fixture.importXML(StoreFixture.xml(programmes, channels: channels), source: "feed")
        #expect(summary.programmes == 5_000)
        let expected = channels.indices.map { channel in
            stride(from: channel, to: 5_000, by: 5).map { "Show \($0 % 700)" }
        }
        #expect(try await stored() == expected)
        // Their titles are found by search: the ids the index holds are those the rows name.
        #expect(try await fixture.store.search(SearchQuery(["show", "699"])).map(\.programme.title)
                    == Array(repeating: "Show 699", count: 7))
    }

    @Test func repairsAndReportsProblemProgrammes() async throws {
        let fixture = try await StoreFixture()
        let summary = try await fixture.importFixture("ours/repairs.xml")
        let all = TimeWindow(start: StoreFixture.date("2024"), end: StoreFixture.date("2025"))
        let stored = try await fixture.store.programmes(on: ChannelID("c1"), in: all)
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

    @Test func readersAreNotBlockedDuringAnImport() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "Before")], channels: ["a"]))
        // A feed of one: the second hand-over returns only once the store took the first, inside its transaction.
        let feed = ImportFeed(capacity: 1)
        let store = fixture.store
        let importing = Task { try await store.importListings(from: SourceName("second"), reading: feed) }
        try await BlockingWork.run("test.feed") {
            _ = feed.put(.items([.channel(Channel(id: ChannelID("b")))]))
            _ = feed.put(.items([]))
        }
        // While the import's transaction is open, waiting for more, a reader sees the guide as it was.
        let seenDuringImport = try await store.channels().map(\.id.rawValue)
        try await BlockingWork.run("test.feed") {
            _ = feed.put(.finished(IssueLog()))
            feed.close()
        }
        _ = try await importing.value
        #expect(seenDuringImport == ["a"])
        #expect(try await fixture.store.channels().map(\.id.rawValue) == ["a", "b"])
    }
}
