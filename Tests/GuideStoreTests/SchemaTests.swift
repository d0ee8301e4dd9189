import Foundation
import GRDB
import GuideCore
import StoreTestSupport
import Testing
@testable import GuideStoreSQLite
@testable import GuideStore

@Suite struct SchemaTests {
    /// A database written by the first schema opens with everything it held, under the current schema.
    @Test func aVersionOneDatabaseIsCarriedForward() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-v1-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }  // Scratch.
        let programme = Programme(channel: ChannelID("bbc1.uk"), start: StoreFixture.date("20240101180000"),
                                  stop: StoreFixture.date("20240101183000"), titles: [LocalizedText("Doctor Who")])
        do {
            let queue = try DatabaseQueue(path: path)
            try SchemaMigrations.migrator.migrate(queue, upTo: "v1: sources, channels, programmes, search")
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO source (id, name) VALUES (1, 'old')")
                try db.execute(sql: "INSERT INTO import_run (source_id, started_at, longest) VALUES (1, 0, 1800)")
                try db.execute(sql: "INSERT INTO channel (id, name, position, details) VALUES (?, 'BBC One', 1, ?)",
                               arguments: ["bbc1.uk", Data(DetailsCodec.encode(Channel(id: ChannelID("bbc1.uk"),
                                                                                       displayNames: [LocalizedText("BBC One")])))])
                try db.execute(sql: "INSERT INTO title (id, folded) VALUES (1, 'doctor who')")
                try db.execute(sql: "INSERT INTO title_search (rowid, folded) VALUES (1, 'doctor who')")
                try db.execute(sql: """
                    INSERT INTO programme (source_id, import_id, channel_id, start, stop, stop_known, title, title_id,
                                           search_text, details)
                    VALUES (1, 1, 'bbc1.uk', ?, ?, 1, 'Doctor Who', 1, '', ?)
                    """, arguments: [Int64(programme.start.timeIntervalSince1970), Int64(programme.stop!.timeIntervalSince1970),
                                     Data(DetailsCodec.encode(programme))])
            }
        }
        let store = try SQLiteListingStore(path: path, now: { Date() })
        #expect(try await store.channels().map(\.name) == ["BBC One"])
        let now = try await store.nowNext(at: StoreFixture.date("20240101181500"), channels: nil)
        #expect(now.first?.channel == ChannelID("bbc1.uk"))
        #expect(now.first?.now?.programme == programme)
        #expect(now.first?.now?.source == SourceName("old"))
        #expect(try await store.search(SearchQuery(["who"])).map(\.programme.title) == ["Doctor Who"])
    }

    /// A v14 database's playlist entries get the columns matching reads (v15) from their details.
    @Test func playlistEntriesGetTheirMatchingColumns() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-v14-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }  // Scratch.
        let entries = [PlaylistEntry(name: "BBC One +1", guideID: "bbc1.uk", shiftHours: 1, stream: "https://s.example/1"),
                       PlaylistEntry(name: "Channel 5 (720p)", stream: "https://s.example/5")]
        do {
            let queue = try DatabaseQueue(path: path)
            try SchemaMigrations.migrator.migrate(queue, upTo: "v14: channel groups, favourites, the guests' group")
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO source (id, name) VALUES (1, 'iptv')")
                for (position, entry) in entries.enumerated() {
                    try db.execute(sql: "INSERT INTO playlist_entry (source_id, position, channel_id, match_key, details) VALUES (1, ?, ?, ?, ?)",
                                   arguments: [position, entry.offeredID.rawValue, PlaylistEntry.matchKey(entry.name),
                                               String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)])
                }
            }
        }
        let store = try SQLiteListingStore(path: path, now: { Date() })
        let candidates = try await store.playlistCandidates()
        #expect(candidates.map(\.guideID) == ["bbc1.uk", nil] && candidates.map(\.shiftMinutes) == [60, 0])
        #expect(try await store.playlistEntries(candidates.map(\.key)).count == 2)
    }

    /// A v7 database's calendar feed addresses keep working once their secrets are stored hashed (v8), and its API
    /// tokens keep the power they had (scope admin).
    @Test func feedSecretsAreHashedAndOldTokensKeepTheirPower() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-v7-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }  // Scratch.
        do {
            let queue = try DatabaseQueue(path: path)
            try SchemaMigrations.migrator.migrate(queue, upTo: "v7: refreshes that never finished, sign-in throttles per address and profile")
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO profile (id, name, role, secret_kind, secret_hash, created_at) VALUES (1, 'Sam', 'admin', 'pin', 'x', 0)")
                try db.execute(sql: """
                    INSERT INTO series_settings (profile_id, lead_minutes, shift_minutes, past_days, future_days, calendar_token)
                    VALUES (1, 15, 0, 7, 60, 'abc123')
                    """)
                try db.execute(sql: "INSERT INTO api_token (token_hash, profile_id, name, created_at) VALUES ('h', 1, 'old', 0)")
            }
        }
        let store = try SQLiteListingStore(path: path, now: { Date() })
        // SHA-256 of "abc123".
        let hash = "6ca13d52ca70c883e0f0bb101e425a89e8624de51db2d2392593af6a84118090"
        #expect(try await store.calendarProfile(tokenHash: hash) == ProfileID(rawValue: 1))
        #expect(try await store.calendarProfile(tokenHash: "abc123") == nil)
        #expect(try await store.apiTokens(of: ProfileID(rawValue: 1)).first?.scope == .admin)
    }

    /// Now/next keeps the schedule in memory; an import must show at once on the instance that made it, and on
    /// another instance of tvguide on the same (PostgreSQL) database as soon as that one has loaded the new schedule,
    /// which its first read after the import starts: until then it answers with the listings as they were.
    @Test func nowNextSeesEveryImport() async throws {
        let fixture = try await StoreFixture()
        let instant = StoreFixture.date("20240101181500")
        try await fixture.importXML(StoreFixture.xml([("a", "20240101180000", "20240101190000", "First")]))
        #expect(try await fixture.store.nowNext(at: instant, channels: nil).first?.now?.programme.title == "First")
        try await fixture.importXML(StoreFixture.xml([("a", "20240101180000", "20240101190000", "Second")]))
        #expect(try await fixture.store.nowNext(at: instant, channels: nil).first?.now?.programme.title == "Second")
        let other = try await TestDatabase.open(fixture.location)
        _ = try await other.importListings(from: SourceName("test")) { sink in
            sink.add(Programme(channel: ChannelID("a"), start: StoreFixture.date("20240101180000"),
                                   stop: StoreFixture.date("20240101190000"), titles: [LocalizedText("Third")]), line: nil)
        }
        let first = try await fixture.store.nowNext(at: instant, channels: nil).first?.now?.programme.title
        #expect(first == "Second" || first == "Third", "\(first ?? "nothing")")
        var title = first
        for _ in 0..<100 where title != "Third" {
            try await Task.sleep(for: .milliseconds(20))
            title = try await fixture.store.nowNext(at: instant, channels: nil).first?.now?.programme.title
        }
        #expect(title == "Third")
    }
}
