import GuideStore
import NIOCore
import PostgresNIO

/// PostgreSQL's trigram index of the distinct titles or bodies (v41): the tables `title_postings` and
/// `body_postings`, one row a trigram code, its `ids` the texts holding it (``TrigramPostings``), as SQLite's
/// (``TrigramIndex`` there). They took the place of GIN indexes of each text's codes, which a first import built at
/// its end (0.73 s of a 3.15 s import of 0.1 M programmes) and later imports added to a text at a time; an import now
/// gathers its new texts' codes and sends each code's runs once, at its end (or when the runs held reach their
/// bound), in one statement.
struct PostgresTrigramIndex {
    /// The indexed table, `title` or `body`.
    let table: String
    private var postings = TrigramPostings()
    /// Whether the table of postings holds no row: the next write then adds each code's row without the conflict
    /// check that appends to a row there (a first import's: 112 against 138-170 ms for the 0.1 M guide's 50,232 body
    /// codes, docs/performance.md).
    var holdsNoRow = false

    init(of table: String) {
        self.table = table
    }

    /// Adds the text `id`, folded, to what the next ``write(on:)`` sends (sending what is held, once it is at its
    /// bound).
    mutating func add(_ folded: String, id: Int64, on link: PostgresLink) async throws {
        postings.add(folded, id: id)
        if postings.needsWrite { try await write(on: link) }
    }

    /// Appends each code's gathered run to its row, or adds the row.
    mutating func write(on link: PostgresLink) async throws {
        guard !postings.isEmpty else { return }
        var codes: [Int32] = [], runs: [[UInt8]] = []
        postings.drain { code, run in
            codes.append(code)
            runs.append(run)
        }
        // Each code is drained once, so none meets another in an empty table.
        let appending = holdsNoRow ? "" : "ON CONFLICT (code) DO UPDATE SET ids = p.ids || excluded.ids"
        try await link.execute("""
            INSERT INTO \(unescaped: table)_postings AS p (code, ids)
            SELECT * FROM unnest(\(codes)::int4[], \(runs)::bytea[]) \(unescaped: appending)
            """)
        holdsNoRow = false
    }

    /// Writes the index of `table` anew from every text in it, 10,000 texts a read: at the migration that made it,
    /// and when a prune dropped texts (their ids would otherwise stay in the runs for good).
    static func rebuild(_ table: String, on link: PostgresLink) async throws {
        try await link.execute("DELETE FROM \(unescaped: table)_postings")
        var index = PostgresTrigramIndex(of: table)
        index.holdsNoRow = true
        var last: Int64 = 0
        while true {
            let rows = try await link.query("""
                SELECT id, folded FROM \(unescaped: table) WHERE id > \(last) ORDER BY id LIMIT 10000
                """)
            guard !rows.isEmpty else { break }
            for row in rows {
                let (id, folded) = try row.decode((Int64, String).self)
                try await index.add(folded, id: id, on: link)
                last = id
            }
        }
        try await index.write(on: link)
    }

    /// The texts of `table` holding `term` (which has a trigram within a word): those whose ids every one of its
    /// trigrams' codes lists, checked for the term itself (`strpos` finds bytes); nil when a row does not read (a
    /// damaged database), which the caller answers by reading every text instead.
    static func texts(of table: String, holding term: String, on link: PostgresLink) async throws -> [Int64]? {
        let codes = WordTrigrams.codes(of: term)
        var lists: [[Int64]] = []
        for row in try await link.query("""
            SELECT ids FROM \(unescaped: table)_postings WHERE code = ANY(\(codes)::int4[])
            """) {
            let ids = try row.decode(ByteBuffer.self)
            guard let list = ids.withUnsafeReadableBytes(TrigramPostings.ids(in:)) else { return nil }
            lists.append(list)
        }
        // A code no text holds: no text holds the term.
        guard lists.count == Set(codes).count else { return [] }
        let candidates = TrigramPostings.intersection(lists)
        guard !candidates.isEmpty else { return [] }
        return try await link.value("""
            SELECT array_agg(id) FROM \(unescaped: table)
            WHERE id = ANY(\(candidates)::bigint[]) AND strpos(folded, \(term)) > 0
            """, as: [Int64].self) ?? []
    }
}
