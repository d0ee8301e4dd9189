import Foundation
import GRDB
import GuideCore
import StoreTestSupport
import Testing
@testable import GuideStore
@testable import GuideStoreSQLite

/// Our own trigram postings (``TrigramPostings``) and SQLite's tables of them (``TrigramIndex``, v41).
@Suite struct TrigramIndexTests {
    /// The codes' runs as the drain hands them out, decoded.
    static func drained(_ postings: inout TrigramPostings) -> [Int32: [Int64]] {
        var found: [Int32: [Int64]] = [:]
        var last: UInt32?
        postings.drain { code, run in
            let bits = UInt32(bitPattern: code)
            #expect(last.map { $0 < bits } ?? true, "codes in ascending order of their bits, each once")
            last = bits
            found[code] = run.withUnsafeBytes { TrigramPostings.ids(in: $0) }
        }
        return found
    }

    /// What the texts' codes say the index holds: each code's ids, ascending.
    static func expected(_ texts: [(Int64, String)]) -> [Int32: [Int64]] {
        var expected: [Int32: [Int64]] = [:]
        for (id, text) in texts.sorted(by: { $0.0 < $1.0 }) {
            for code in Set(WordTrigrams.codes(of: text)) { expected[code, default: []].append(id) }
        }
        return expected
    }

    @Test func eachCodeListsTheTextsHoldingItAscending() {
        let texts: [(Int64, String)] = [(7, "doctor who"), (8, "who knows"), (9, "the doctor"),
                                        (1_000_000, "新闻联播 who")]
        var postings = TrigramPostings()
        for (id, text) in texts { postings.add(text, id: id) }
        #expect(!postings.needsWrite)
        #expect(Self.drained(&postings) == Self.expected(texts))
        #expect(postings.isEmpty)
    }

    /// Each code's run is exactly its ids ascending as ``TrigramPostings/run(of:)`` writes them: the sort keeps the
    /// order the ids were gathered in (a run out of order reads back as damaged), over codes spread across all 32 bits.
    @Test func eachCodeIsOneRunOfItsIdsInTheOrderGathered() {
        let words = ["doctor", "who", "news", "weather", "film", "match", "live", "the", "night", "新闻联播", "über"]
        let texts: [(Int64, String)] = (1...3_000).map { (id: Int) -> (Int64, String) in
            let picked: [String] = (0..<4).map { (word: Int) in words[(id * 7 + word * 5 + id / 11) % words.count] }
            return (Int64(id) * 3, picked.joined(separator: " ") + " \(id % 97)x\(id % 89)")
        }
        var postings = TrigramPostings()
        for (id, text) in texts { postings.add(text, id: id) }
        var runs: [Int32: [UInt8]] = [:]
        postings.drain { code, run in runs[code] = run }
        let expected = Self.expected(texts)
        #expect(expected.count > 250)
        #expect(runs == expected.mapValues { TrigramPostings.run(of: $0) })
    }

    /// Pairs are sorted into runs when a text's could take them past their bound, or its id does not follow the last
    /// within 2^32; the runs of each part read back as one list.
    @Test func runsSortedInPartsReadBackAsOneList() {
        let texts: [(Int64, String)] = [
            (100, "doctor who"), (101, String(repeating: "doctor ", count: TrigramPostings.mostPairs / 7 + 1)),
            (102, "who knows"), (50, "doctor"), (50 + Int64(UInt32.max) + 1, "knows who"),
        ]
        var postings = TrigramPostings()
        for (id, text) in texts { postings.add(text, id: id) }
        #expect(Self.drained(&postings) == Self.expected(texts))
    }

    /// Ids that descend sort at every text; past ``TrigramPostings/mostSorts`` the store is asked to write, and what
    /// each write drains adds up to every text's codes.
    @Test func idsThatDescendAskForAWriteAfterTheMostSorts() {
        let texts: [(Int64, String)] = (0..<(TrigramPostings.mostSorts * 3)).map { index in
            (Int64(10_000 - index), ["doctor who", "the news", "match of the day"][index % 3] + " \(index)")
        }
        var postings = TrigramPostings()
        var found: [Int32: [Int64]] = [:]
        var writes = 0
        for (id, text) in texts {
            postings.add(text, id: id)
            if postings.needsWrite {
                writes += 1
                for (code, ids) in Self.drained(&postings) { found[code, default: []] += ids }
            }
        }
        for (code, ids) in Self.drained(&postings) { found[code, default: []] += ids }
        #expect(writes == 2)
        #expect(found.mapValues { $0.sorted() } == Self.expected(texts))
    }

    /// Ids from Int64.min to Int64.max (a database edited by hand may hold rows below 0) go in and come back as
    /// they were, in one run or gathered in parts.
    @Test func idsAtTheEndsOf64BitsComeBackAsTheyWere() {
        let extremes: [Int64] = [Int64.min, -1, 0, 5, Int64.max]
        #expect(TrigramPostings.run(of: extremes).withUnsafeBytes { TrigramPostings.ids(in: $0) } == extremes)
        let texts: [(Int64, String)] = [(Int64.min, "doctor who"), (Int64.max, "doctor"), (-1, "who knows")]
        var postings = TrigramPostings()
        for (id, text) in texts { postings.add(text, id: id) }
        #expect(Self.drained(&postings) == Self.expected(texts))
    }

    @Test func runsAppendedOneAfterAnotherReadBackAsOneList() {
        let first = TrigramPostings.run(of: [3, 10, 200]), second = TrigramPostings.run(of: [201, 90_000, Int64.max])
        #expect((first + second).withUnsafeBytes { TrigramPostings.ids(in: $0) }
                == [3, 10, 200, 201, 90_000, Int64.max])
        // Out of order or repeated (a run appended after ids were reused), they come back sorted, each once.
        #expect((second + first + first).withUnsafeBytes { TrigramPostings.ids(in: $0) }
                == [3, 10, 200, 201, 90_000, Int64.max])
    }

    @Test(arguments: [
        ([], "no run"),
        ([0x00], "a run of no ids"),
        ([0x05, 0x01, 0x01], "a count past the bytes left"),
        ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x01], "a count of 2^63-1"),
        ([0x01, 0x80], "a cut id"),
        ([0x02, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], "a gap of 2^64-1"),
        ([0x02, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x01], "Int64.max, then a gap of 1"),
        ([0x02, 0x00, 0x80], "a cut gap"),
    ] as [([UInt8], String)])
    func damagedRunsReadAsDamaged(bytes: [UInt8], what: String) {
        let ids = bytes.withUnsafeBytes { TrigramPostings.ids(in: $0) }
        #expect(bytes.isEmpty ? ids == [] : ids == nil, "\(what)")
    }

    @Test func theIntersectionKeepsWhatEveryListHolds() {
        #expect(TrigramPostings.intersection([[1, 3, 5, 7, 9], [3, 4, 5, 9, 10], [0, 5, 9]]) == [5, 9])
        #expect(TrigramPostings.intersection([[1, 2], []]) == [])
        #expect(TrigramPostings.intersection([]) == [])
    }

    /// Each trigram index holds exactly what its table's texts say (their ids under their codes), on either store.
    static func expectIndexesAgree(_ fixture: StoreFixture) async throws {
        let backend = try #require(fixture.store as? any SQLBackend)
        try await expectIndexesAgree(backend)
    }

    private static func expectIndexesAgree(_ backend: some SQLBackend) async throws {
        let tables: [(String, texts: SQLText, postings: SQLText)] = [
            ("title", "SELECT id, folded FROM title", "SELECT code, ids FROM title_postings"),
            ("body", "SELECT id, folded FROM body", "SELECT code, ids FROM body_postings"),
        ]
        for (table, textsRead, postingsRead) in tables {
            let (texts, held) = try await backend.reading { sql in
                var texts: [(Int64, String)] = []
                for row in try await sql.rows(textsRead) {
                    texts.append((try row.value(0, as: Int64.self), try row.value(1, as: String.self)))
                }
                var held: [Int32: [Int64]] = [:]
                for row in try await sql.rows(postingsRead) {
                    held[Int32(try row.value(0, as: Int64.self))] = try row.value(1, as: Data.self)
                        .withUnsafeBytes { TrigramPostings.ids(in: $0) }
                }
                return (texts, held)
            }
            #expect(held == expected(texts), "\(table)_postings")
        }
    }

    /// A second import adds its new texts' runs to the codes the first wrote; a third, dropping a quarter of the
    /// programmes, prunes the texts no programme uses and writes the indexes anew.
    @Test func importsAddToTheIndexesAndAPruneWritesThemAnew() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([("a", "20240101200000", "20240101210000", "Doctor Who"),
                                                      ("a", "20240101210000", "20240101220000", "Weather")]))
        try await fixture.importXML(StoreFixture.xml([("b", "20240101200000", "20240101210000", "The Doctors"),
                                                      ("b", "20240101210000", "20240101220000", "Doctor Foster")]),
                                    source: "other")
        try await Self.expectIndexesAgree(fixture)
        let past = StoreFixture.date("2023")
        let titles = { (terms: [String], scope: SearchQuery.Scope) in
            try await fixture.store.search(SearchQuery(terms, scope: scope, endingAfter: past)).map(\.programme.title)
        }
        #expect(try await titles(["doctor"], .title) == ["Doctor Who", "The Doctors", "Doctor Foster"])
        #expect(try await titles(["about", "doctors"], .all) == ["The Doctors"])
        try await fixture.importXML(StoreFixture.xml([("b", "20240101200000", "20240101210000", "News")]),
                                    source: "other")
        try await Self.expectIndexesAgree(fixture)
        #expect(try await titles(["doctor"], .title) == ["Doctor Who", "Doctor Foster"])
        #expect(try await titles(["news"], .all) == ["News"])
    }

    /// A row of the index that does not read (a file damaged, or edited by hand) costs its searches a read of every
    /// text, not their answers.
    @Test func aDamagedRowIsSearchedWithout() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([
            ("a", "20240101200000", "20240101210000", "Doctor Who"),
            ("a", "20240101210000", "20240101220000", "Doctors"),
        ]))
        let past = StoreFixture.date("2023")
        let query = SearchQuery(["doctor"], scope: .all, endingAfter: past)
        #expect(try await fixture.store.search(query).map(\.programme.title) == ["Doctor Who", "Doctors"])
        try await Self.expectIndexesAgree(fixture)
        let backend = try #require(fixture.store as? any SQLBackend)
        try await Self.damage(backend, code: Int64(WordTrigrams.codes(of: "doc")[0]))
        #expect(try await fixture.store.search(query).map(\.programme.title) == ["Doctor Who", "Doctors"])
        let both = SearchQuery(["about", "doctors"], scope: .all, endingAfter: past)
        #expect(try await fixture.store.search(both).map(\.programme.title) == ["Doctors"])
    }

    /// PostgreSQL keeps a code's runs as they are (v42), not compressed: pglz shrank the runs by under 1% for its CPU
    /// at every write of a row past 2 KB. Zeros, which it would shrink to a few bytes, stay 4,000 bytes.
    @Test(.enabled(if: TestDatabase.postgres != nil, "needs PostgreSQL (TVGUIDE_TEST_POSTGRES)"))
    func postgresKeepsTheRunsAsTheyAre() async throws {
        let fixture = try await StoreFixture()
        let backend = try #require(fixture.store as? any SQLBackend)
        let zeros = Data(count: 4_000)
        let tables: [(String, insert: SQLText, storage: SQLText, read: SQLText)] = [
            ("title_postings", "INSERT INTO title_postings (code, ids) VALUES (7, \(zeros))",
             "SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'title_postings'::regclass AND attname='ids'",
             "SELECT pg_column_compression(ids), pg_column_size(ids) FROM title_postings WHERE code = 7"),
            ("body_postings", "INSERT INTO body_postings (code, ids) VALUES (7, \(zeros))",
             "SELECT attstorage::text FROM pg_attribute WHERE attrelid = 'body_postings'::regclass AND attname = 'ids'",
             "SELECT pg_column_compression(ids), pg_column_size(ids) FROM body_postings WHERE code = 7"),
        ]
        for (table, insert, storageRead, read) in tables {
            let (storage, compression, size) = try await backend.transaction { sql in
                try await sql.execute(insert)
                let storage = try await sql.value(storageRead, as: String.self)
                let row = try await sql.rows(read).first
                return (storage, try row?.value(0, as: String?.self), try row?.value(1, as: Int64.self))
            }
            #expect(storage == "e", "\(table)")
            #expect(compression == nil, "\(table)")
            #expect((size ?? 0) >= 4_000, "\(table)")
        }
    }

    /// An index whose table was empty as it began inserts the codes it has not written without looking for them; a
    /// second write in the same import appends to the rows the first wrote, and an index begun on a table holding rows
    /// looks each code up. All three leave the table holding what the texts say.
    @Test func writesIntoAnEmptyTableAndAfterItAgree() throws {
        let first: [(Int64, String)] = [(1, "doctor who"), (2, "who knows"), (3, "新闻联播")]
        let second: [(Int64, String)] = [(4, "the doctor"), (5, "weather"), (6, "新闻 who")]
        let third: [(Int64, String)] = [(7, "doctor foster"), (8, "antiques roadshow")]
        let queue = try DatabaseQueue()
        let held = { (db: Database) throws -> [Int32: [Int64]] in
            var held: [Int32: [Int64]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT code, ids FROM title_postings") {
                let ids: Data = row[1]
                held[Int32(row[0] as Int64)] = ids.withUnsafeBytes { TrigramPostings.ids(in: $0) }
            }
            return held
        }
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE title_postings (code INTEGER PRIMARY KEY, ids BLOB NOT NULL)")
            var index = try TrigramIndex(db, of: "title")
            for (id, text) in first { try index.add(text, id: id, db) }
            try index.write(db)
            #expect(try held(db) == Self.expected(first))
            for (id, text) in second { try index.add(text, id: id, db) }
            try index.write(db)
            #expect(try held(db) == Self.expected(first + second))
            var later = try TrigramIndex(db, of: "title")
            for (id, text) in third { try later.add(text, id: id, db) }
            try later.write(db)
            #expect(try held(db) == Self.expected(first + second + third))
        }
    }

    /// Both indexes' row of `code` made a run whose count is past its bytes.
    private static func damage(_ backend: some SQLBackend, code: Int64) async throws {
        let changed = try await backend.transaction { sql in
            try await sql.execute("UPDATE title_postings SET ids = \(Data([5])) WHERE code = \(code)")
                + sql.execute("UPDATE body_postings SET ids = \(Data([5])) WHERE code = \(code)")
        }
        #expect(changed == 2)
    }
}

extension SchemaMigrations {
    /// Puts back the FTS5 trigram tables of v37 to v40, tokenized by `tokenizer`, in the place of v41's postings, and
    /// forgets v41 and the migrations `also` names (their identifiers' first words, as `v39:`), for a test to open the
    /// database as that version left it.
    static func putBackFTS5Indexes(_ db: Database, tokenizer: String, forgetting also: [String] = []) throws {
        for table in ["title", "body"] {
            try db.execute(sql: """
                DROP TABLE \(table)_postings;
                \(trigramIndex(on: table, tokenizer: tokenizer));
                INSERT INTO \(table)_search (\(table)_search) VALUES ('rebuild');
                """)
        }
        for version in also + ["v41:"] {
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE ?", arguments: [version + "%"])
        }
    }
}
