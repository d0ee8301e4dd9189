import Foundation
import GRDB
import GuideCore
import GuideStore
import StoreTestSupport
import Testing
import XMLTV
@testable import GuideStoreSQLite

/// What a SQLite store sets up in its file and connections: the index of bodies by hash an import reads (v43), the
/// WAL file's bound, and a first import that takes the file for itself.
@Suite struct SQLiteFileTests {
    /// A new store in a scratch folder, for `body`; the folder goes afterwards.
    static func withStore<T>(readers: ImportReaders = .alongside,
                             _ body: (SQLiteListingStore) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        return try await body(try SQLiteListingStore(path: folder + "/guide.sqlite", now: { Date() }, readers: readers))
    }

    /// An import finds stored bodies by hash, and reads all their hashes as it starts, through the index of the bodies
    /// that keep their texts alone (v43): it read the whole body table as it started (0.5 M programmes: 0.04-0.10 s
    /// and 31 MB of pages). PostgreSQL's index is the same (``OneSchemaTests``).
    @Test func storedBodiesAreReadThroughTheirIndex() async throws {
        let plans = try await Self.withStore { store in
            try await store.pool.read { db in
                let reads: [(String, StatementArguments)] = [(SQLiteImportSession.storedBodiesRead, []),
                                                             (SQLiteImportSession.bodiesOfHash, [Int64(5)])]
                return try reads.map { sql, arguments in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                        .map { $0["detail"] as String }.joined(separator: "; ")
                }
            }
        }
        #expect(plans == ["SCAN body USING INDEX body_by_hash", "SEARCH body USING INDEX body_by_hash (hash=?)"])
    }

    /// The WAL file is cut back to ``SQLiteListingStore/walKept`` once written past it: with a connection open
    /// (serve's always are) it stayed at its largest, 138 MB after an import of 0.5 M programmes (64 MB after the next
    /// write with the limit, docs/performance.md). Every connection of the pool has it, the writer's and the readers'.
    @Test func everyConnectionCutsTheWALBack() async throws {
        let limit = "PRAGMA journal_size_limit"
        let (written, read) = try await Self.withStore { store in
            (try await store.pool.write { try Int.fetchOne($0, sql: limit) },
             try await store.pool.read { try Int.fetchOne($0, sql: limit) })
        }
        #expect(written == SQLiteListingStore.walKept && read == SQLiteListingStore.walKept)
    }

    /// The file's journal mode, as the writer sees it.
    static func journalMode(_ store: SQLiteListingStore) async throws -> String? {
        try await store.pool.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
    }

    /// A first import takes the file for itself only when its caller said nobody reads meanwhile and the store holds
    /// no programme; the store is in the WAL's mode again afterwards.
    @Test func onlyAFirstImportNobodyReadsTakesTheFile() async throws {
        let xml = StoreFixture.xml([("one", "20240101200000", "20240101210000", "News")])
        let (first, later) = try await Self.withStore(readers: .afterwards) { store in
            let first = try await store.takeForFirstImport()
            #expect(try await Self.journalMode(store) == "delete")
            await store.giveBackAfterFirstImport()
            #expect(try await Self.journalMode(store) == "wal")
            try await StoreFixture(location: "", store: store).importXML(xml)
            #expect(try await Self.journalMode(store) == "wal")
            return (first, try await store.takeForFirstImport())
        }
        let alongside = try await Self.withStore { try await $0.takeForFirstImport() }
        #expect(first && !later && !alongside)
    }

    /// 30 channels of 100 hours each.
    static let thirtyChannels = StoreFixture.xml((0..<3_000).map { index in
        let hour = index / 30
        return ("c\(index % 30)", String(format: "202401%02d%02d0000", 1 + hour / 24, hour % 24), nil as String?,
                "Programme \(index) with a title of its own")
    })

    /// The store's own reads during a first import that took the file wait for its end and see all of it
    /// (``ReadGate``). Once the import's pages spill into the file (a page cache of ten pages here, a large guide's
    /// anyway), a read beside it in the rollback journal's mode finds SQLite's lock and fails after the busy timeout,
    /// which a large guide's import outlasts, as this one does ("database is locked" without the gate); the command
    /// line refreshes several sources at once, one importing while the others read. The reader the pool kept open
    /// is closed first, or the file would not be taken.
    @Test func readsDuringAFirstImportWaitForIt() async throws {
        var items: [ImportItem] = []
        var reader = XMLTVReader()
        let emit: (XMLTVItem) throws -> Void = { item in
            switch item {
            case .channel(let channel): items.append(.channel(channel))
            case .programme(let programme, let line), .remembered(let programme, let line, _):
                items.append(.programme(PreparedProgramme(programme, line: line)))
            case .repeated: break   // Not from a reader without contents.
            }
        }
        try reader.feed(Array(Self.thirtyChannels.utf8), emit)
        try reader.finish(emit)
        let (during, after, mode) = try await Self.withStore(readers: .afterwards) { [items] store in
            try await store.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA cache_size = 10") }
            _ = try await store.counts()  // A reader of the pool's is open, as a refresh's reads leave one.
            let feed = ImportFeed(capacity: 2)
            _ = feed.put(.items(items))
            let importing = Task { try await store.importListings(from: SourceName("test"), reading: feed) }
            let asked = ContinuousClock.now
            while !store.readGate.isClosed && ContinuousClock.now - asked < .seconds(10) {
                try await Task.sleep(for: .milliseconds(5))
            }
            let reading = Task { try await store.counts() }
            // Longer than SQLite waits for a lock before it fails: a large guide's import is.
            try await Task.sleep(for: .seconds(SQLiteListingStore.busyWait + 0.5))
            _ = feed.put(.finished(IssueLog()))
            feed.close()
            _ = try await importing.value
            return (try await reading.value, try await store.counts(), try await Self.journalMode(store))
        }
        #expect(during == (30, 3_000) && after == (30, 3_000) && mode == "wal")
    }

    /// The gate opens when every close has been undone: two sources' first imports may each close it before either
    /// knows whether it took the file, and the one that did not opens it again while the other still holds the file.
    @Test func theGateOpensWhenEveryHolderHasLetGo() async throws {
        let gate = ReadGate()
        gate.close()
        gate.close()
        let passed = Task { await gate.pass() }
        gate.open()
        try await Task.sleep(for: .milliseconds(50))
        let closedAfterOne = gate.isClosed
        gate.open()
        await passed.value
        gate.open()  // One too many is no harm.
        #expect(closedAfterOne && !gate.isClosed)
    }

    /// Another connection holding the file (here a second store reading it, as serve would) keeps the import in the
    /// WAL, told at once rather than after the busy timeout's ten seconds.
    @Test func aFileOpenElsewhereStaysInTheWAL() async throws {
        let (taken, waited) = try await Self.withStore(readers: .afterwards) { store in
            let other = try SQLiteListingStore(path: store.pool.path, now: { Date() })
            _ = try await other.counts()
            let asked = ContinuousClock.now
            let taken = try await store.takeForFirstImport()
            return (taken, ContinuousClock.now - asked)
        }
        #expect(!taken && waited < .seconds(5))
    }

    /// A cut file changes nothing when its import took the file for itself, though the rows it wrote had gone into
    /// the file (a page cache of ten pages spills them): the rollback journal undoes them, and the whole file imports
    /// afterwards as into a store that never saw the cut one.
    @Test func aCutFirstImportLeavesTheFileAsItWas() async throws {
        let whole = Self.thirtyChannels
        let cut = String(whole.prefix(whole.utf8.count * 2 / 3))
        let (afterCut, integrity, mode, afterWhole) = try await Self.withStore(readers: .afterwards) { store in
            try await store.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA cache_size = 10") }
            let fixture = StoreFixture(location: "", store: store)
            await #expect(throws: (any Error).self) { try await fixture.importXML(cut) }
            let afterCut = try await store.counts()
            let integrity = try await store.pool.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
            let mode = try await Self.journalMode(store)
            try await fixture.importXML(whole)
            return (afterCut, integrity, mode, try await store.everyProgramme())
        }
        let expected = try await Self.withStore { store in
            try await StoreFixture(location: "", store: store).importXML(whole)
            return try await store.everyProgramme()
        }
        #expect(afterCut == (0, 0) && integrity == "ok" && mode == "wal")
        #expect(afterWhole == expected && expected.count == 3_000)
    }

    /// Two stores opening one new file at the same moment (serve and an import started together on a new machine)
    /// both open it, with one schema: each switching the new file to the WAL's mode, one found the other's lock in
    /// the middle of its switch, where SQLite does not wait, and failed ("database is locked", 8 of 40 pairs of
    /// `tvguide sources list`).
    @Test func twoStoresOpenOneNewFileTogether() async throws {
        let folder = TestScratch.folder("tvguide-opened-together")
        for round in 0..<40 {
            let path = folder + "/guide-\(round).sqlite"
            let opened = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do {
                            let store = try SQLiteListingStore(path: path, now: { Date() })
                            return try await store.pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(opened == ["wal", "wal"], "round \(round)")
            let steps = try await DatabaseQueue(path: path).read {
                try Int.fetchOne($0, sql: "SELECT count(*) FROM grdb_migrations")
            }
            #expect(steps == SchemaMigrations.migrator.migrations.count)
        }
    }
}
