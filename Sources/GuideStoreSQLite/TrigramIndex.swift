import GRDB
import GRDBSQLite
import GuideStore

/// The trigram index of the distinct titles or bodies (v41): a table `title_postings` or `body_postings` of one row a
/// trigram code, its `ids` the texts holding it (``TrigramPostings``). It took the place of FTS5's tables, which filed
/// each text's trigrams one at a time as it was added; an import now gathers its new texts' codes and writes each
/// code's runs once, at its end (or when the runs held reach their bound).
struct TrigramIndex {
    /// The indexed table, `title` or `body`.
    let table: String
    private var postings = TrigramPostings()
    private let append: DirectBinding
    private let insert: DirectBinding
    /// The codes this index has written, when its table held no row as it began (a first import, a rebuild): any
    /// other code has no row to append to, and is inserted without being looked for first (at 0.1 M programmes,
    /// 70,000 codes each looked for in vain at the end of a first import). Nil when the table held rows, or past
    /// ``mostCodesWritten``: each code is then looked for.
    private var codesWritten: Set<Int32>?
    /// More codes than the title and body trigrams of the large guides hold (50,000 and 20,000 at 0.1 M programmes).
    static let mostCodesWritten = 1 << 20

    init(_ db: Database, of table: String) throws {
        self.table = table
        codesWritten = try db.holdsNoRow("\(table)_postings") ? [] : nil
        // SQLite's || makes text of two blobs (their bytes as they are): the cast keeps the column a blob.
        append = DirectBinding(try db.makeStatement(sql: """
            UPDATE \(table)_postings SET ids = CAST(ids || ? AS BLOB) WHERE code = ?
            """))
        insert = DirectBinding(try db.makeStatement(sql: "INSERT INTO \(table)_postings (code, ids) VALUES (?, ?)"))
    }

    /// Adds the text `id`, folded, to what the next ``write(_:)`` writes (writing what is held, once it is at its
    /// bound).
    mutating func add(_ folded: String, id: Int64, _ db: Database) throws {
        postings.add(folded, id: id)
        if postings.needsWrite { try write(db) }
    }

    /// Appends each code's gathered run to its row, or adds the row. Two plain statements rather than an upsert,
    /// which SQLite may have to undo alone and so journals (``SQLiteImportSession/add(_:)-channel``).
    mutating func write(_ db: Database) throws {
        guard !postings.isEmpty else { return }
        var written = codesWritten
        defer { codesWritten = written }
        try postings.drain { code, run in
            if written?.count ?? 0 >= Self.mostCodesWritten { written = nil }
            if written?.insert(code).inserted != true {
                append.reset()
                append.bind(2, Int64(code))
                try append.withBlob(1, run) { try append.step(db) }
                guard db.changesCount == 0 else { return }
            }
            insert.reset()
            insert.bind(1, Int64(code))
            try insert.withBlob(2, run) { try insert.step(db) }
        }
    }

    /// Writes the index of `table` anew from every text in it: at the migration that made it, and when a prune
    /// dropped texts (their ids would otherwise stay in the runs for good).
    static func rebuild(_ db: Database, of table: String) throws {
        try db.execute(sql: "DELETE FROM \(table)_postings")
        var index = try TrigramIndex(db, of: table)
        let texts = DirectBinding(try db.makeStatement(sql: "SELECT id, folded FROM \(table) ORDER BY id"))
        try texts.forEachRow(db) { row in
            try index.add(DirectBinding.text(row, 1) ?? "", id: sqlite3_column_int64(row, 0), db)
        }
        try index.write(db)
    }

    /// The ids of the texts of `table` holding every trigram within the words of `term`, ascending (a text may hold
    /// them apart, so each is to be checked); nil for a term with no trigram, or a damaged row, which the caller
    /// answers by reading every text instead.
    static func texts(_ db: Database, of table: String, holding term: String) throws -> [Int64]? {
        let codes = WordTrigrams.codes(of: term)
        guard !codes.isEmpty else { return nil }
        let select = DirectBinding(try db.cachedStatement(sql: "SELECT ids FROM \(table)_postings WHERE code = ?"))
        var lists: [[Int64]] = []
        for code in codes {
            select.reset()
            select.bind(1, Int64(code))
            var ids: [Int64]? = []
            try select.forEachRow(db) { row in
                let count = Int(sqlite3_column_bytes(row, 0))
                ids = sqlite3_column_blob(row, 0).flatMap {
                    TrigramPostings.ids(in: UnsafeRawBufferPointer(start: $0, count: count))
                }
            }
            guard let ids else { return nil }
            // A code no text holds: no text holds the term.
            if ids.isEmpty { return [] }
            lists.append(ids)
        }
        return TrigramPostings.intersection(lists)
    }
}
