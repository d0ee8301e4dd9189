import Foundation
import GRDB
import GuideCore
import GuideStore
import GuideStoreSQLite
import Testing
import XMLTV

/// A database made by the last release upgrades to today's schema and keeps what it held (issue 42, point 8).
/// `Fixtures/guide-v23.sqlite` was written by `writeTheFixture` with the migrations of 3f8c408 (schema v23), before v24 was
/// added; before the next migration is added, write it again the same way (and name it by its version).
@Suite struct UpgradeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/guide-v23.sqlite")
    static let evening = Date(timeIntervalSince1970: 1_771_185_600)  // 2026-02-15 20:00 UTC

    static let listings = """
        <tv><channel id="bbc1.uk"><display-name>BBC One</display-name></channel>
        <channel id="five.uk"><display-name>Channel 5</display-name></channel>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="bbc1.uk"><title>Doctor Who</title>
          <sub-title>The Star Beast</sub-title><desc>The Doctor returns.</desc></programme>
        <programme start="20260215210000 +0000" stop="20260215220000 +0000" channel="bbc1.uk"><title>News</title></programme>
        <programme start="20260215200000 +0000" stop="20260215213000 +0000" channel="five.uk"><title>Quiz</title></programme>
        </tv>
        """

    /// What the fixture holds: two imports of one source (two import runs), a profile with a lineup and a reminder.
    static func fill(_ store: any GuideDatabase) async throws {
        for _ in 0..<2 { try await importXML(Self.listings, into: store) }
        let ada = try await store.createProfile(name: "Ada", role: .admin, secretKind: .password, secretHash: "kept", onlyIfFirst: false)
        try await store.setLineup([ChannelID("five.uk"), ChannelID("bbc1.uk")], of: ada.id)
        _ = try await store.addReminder(NewReminder(profile: ada.id, kind: .programme, channel: ChannelID("bbc1.uk"), channelName: "BBC One",
                                                    title: "Doctor Who", start: evening, stop: evening.addingTimeInterval(3600), leadMinutes: 15),
                                        at: evening.addingTimeInterval(-7200))
    }

    static func importXML(_ text: String, into store: any GuideDatabase) async throws {
        _ = try await store.importListings(from: SourceName("aerial")) { sink in
            var reader = XMLTVReader()
            let emit: (XMLTVItem) throws -> Void = { item in
                switch item {
                case .channel(let channel): sink.add(channel)
                case .programme(let programme, let line), .remembered(let programme, let line, _):
                    sink.add(programme, line: line)
                case .repeated: break   // Not from a reader without contents.
                }
            }
            try reader.feed(Array(text.utf8), emit)
            try reader.finish(emit)
        }
    }

    /// Writes the fixture at `TVGUIDE_WRITE_UPGRADE_FIXTURE` with this code's schema, compacted (1 KiB pages, no WAL).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TVGUIDE_WRITE_UPGRADE_FIXTURE"] != nil, "writes the fixture when asked"))
    func writeTheFixture() async throws {
        let path = try #require(ProcessInfo.processInfo.environment["TVGUIDE_WRITE_UPGRADE_FIXTURE"])
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }  // Made anew.
        do {
            let store = try SQLiteListingStore(path: path, now: { Self.evening })
            try await Self.fill(store)
        }
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA page_size = 1024")
            try db.execute(sql: "VACUUM")
        }
    }

    @Test func aDatabaseOfTheLastReleaseUpgradesAndKeepsItsData() async throws {
        // Given a copy of the database the last release made.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-upgrade-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        let path = folder + "/guide.sqlite"
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let (before, runsBefore) = try await DatabaseQueue(path: path).read { db in
            (try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid"),
             try Int64.fetchAll(db, sql: "SELECT id FROM import_run ORDER BY id"))
        }
        #expect(before.last == "v23: a profile's language and clock")
        #expect(!runsBefore.isEmpty)

        // When today's code opens it.
        let store = try SQLiteListingStore(path: path, now: { Self.evening })

        // Then it is at today's schema, with every migration since applied, and everything it held is there.
        let after = try await DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
        #expect(after.count > before.count && after.starts(with: before))
        try await Self.expectEverythingKept(in: store, runsBefore: runsBefore)
    }

    /// What `fill` put in is all there, and the next import goes on from there.
    static func expectEverythingKept<Store: GuideDatabase & SQLBackend>(in store: Store, runsBefore: [Int64]) async throws {
        #expect(try await store.counts() == (channels: 2, programmes: 3))
        #expect(try await store.channels().map(\.name) == ["BBC One", "Channel 5"])
        let now = try await store.nowNext(at: Self.evening.addingTimeInterval(600), channels: nil)
        #expect(now.map { $0.now?.programme.title } == ["Doctor Who", "Quiz"])
        #expect(now.first?.now?.programme.subTitle == "The Star Beast" && now.first?.next?.programme.title == "News")
        #expect(try await store.search(SearchQuery(["doctor"])).map(\.programme.title) == ["Doctor Who"])
        // Its sub-title and description, through the body index the upgrade built again.
        let inEverything = try await store.search(SearchQuery(["beast", "returns"], scope: .all))
        #expect(inEverything.map(\.programme.title) == ["Doctor Who"])
        let ada = try #require(try await store.profiles().first { $0.name == "Ada" })
        #expect(try await store.lineup(of: ada.id) == [ChannelID("five.uk"), ChannelID("bbc1.uk")])
        #expect(try await store.reminders(of: ada.id, in: [.pending], limit: 10).map(\.what.title) == ["Doctor Who"])
        #expect(try await store.reading { try await $0.column("SELECT id FROM import_run ORDER BY id", as: Int64.self) } == runsBefore)
        // And the next import goes on from there.
        try await Self.importXML(Self.listings.replacingOccurrences(of: "Quiz", with: "Quiz Night"), into: store)
        #expect(try await store.nowNext(at: Self.evening.addingTimeInterval(600), channels: nil).map { $0.now?.programme.title }
                == ["Doctor Who", "Quiz Night"])
        #expect(try await store.reading { try await $0.column("SELECT max(id) FROM import_run", as: Int64.self) }.first ?? 0 > runsBefore.max() ?? 0)
    }
}
