import GuideStore
import PostgresNIO

/// The codes of the trigrams within words (``WordTrigrams/codes(of:)``) of texts sent in one statement: one flat
/// array, and where each text's codes start and end in it (1-based and inclusive, as PostgreSQL's slice
/// `codes[start:end]` takes them; a text without any has its end before its start).
///
/// PostgreSQL's title and body indexes of v38 to v40 were GIN indexes of these codes, where they had been pg_trgm's
/// indexes of the whole text: pg_trgm cut each description into 161 trigrams on average (across words, with word ends
/// padded), these are 101, and the server no longer cut and lowered the texts itself. v41 replaced them with
/// ``PostgresTrigramIndex``; the migration to v38 still fills the column they indexed.
struct PostgresTrigrams {
    /// The most codes one statement sends (400 MB): an array of PostgreSQL's holds at most 1 GB.
    static let limit = 100_000_000
    private(set) var codes: [Int32] = []
    private(set) var starts: [Int32] = []
    private(set) var ends: [Int32] = []

    init() {}

    /// Adds the codes of `folded`, a text folded for search, in ascending order: GIN sorts each row's entries as it
    /// indexes them, and finds them sorted with one pass (the 0.1 M guide's descriptions' index: 1.56-1.80 s built
    /// from codes in their texts' order, 1.08-1.13 s sorted).
    mutating func append(_ folded: String) throws {
        let more = WordTrigrams.codes(of: folded).sorted()
        guard more.count <= Self.limit - codes.count else {
            throw StoreError(.failed, "the texts of one batch hold more than \(Self.limit) trigrams")
        }
        // Both within `limit`, far below Int32.max.
        starts.append(Int32(codes.count + 1))
        codes.append(contentsOf: more)
        ends.append(Int32(codes.count))
    }

    /// Fills the `trigrams` of every row of `table` (title or body) from its folded text, 2,000 rows a statement in
    /// the order of their ids: v38 added the column to tables already holding texts.
    static func fill(_ table: String, on link: PostgresLink) async throws {
        var last: Int64 = 0
        while true {
            let rows = try await link.query("""
                SELECT id, folded FROM \(unescaped: table) WHERE id > \(last) ORDER BY id LIMIT 2000
                """)
            guard !rows.isEmpty else { return }
            var ids: [Int64] = [], trigrams = PostgresTrigrams()
            for row in rows {
                let (id, folded) = try row.decode((Int64, String).self)
                ids.append(id)
                try trigrams.append(folded)
            }
            last = ids.last ?? last
            try await link.execute("""
                UPDATE \(unescaped: table) t SET trigrams = (\(trigrams.codes)::int4[])[w.s:w.e]
                FROM unnest(\(ids)::bigint[], \(trigrams.starts)::int4[], \(trigrams.ends)::int4[]) AS w(id, s, e)
                WHERE t.id = w.id
                """)
        }
    }
}
