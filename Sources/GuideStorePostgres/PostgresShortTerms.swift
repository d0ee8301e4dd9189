import CStringSearch
import NIOCore
import PostgresNIO

/// Every distinct folded title and body, packed in memory, for the words no trigram index can find (shorter than
/// three characters: "新闻") and those it finds only by reading again every text holding their one trigram ("the"
/// is in 10,000 of the 0.1 M guide's 33,000 descriptions). The server read the descriptions for the first in two
/// halves at once (7 ms a half) and the titles (4 ms), and rechecked the second's 10,000 (8-10 ms); in memory either
/// takes 1-3 ms (issue 46). Loaded on the first such search after each import, at most ``byteLimit`` bytes (the
/// 0.5 M guide's take 15 MB): a larger guide's are read by the server.
struct PostgresShortTerms: Sendable {
    static let byteLimit = 32 << 20
    /// The longest term looked for here, in characters: one trigram.
    static let longest = 3

    let generation: Int64
    let titles: PackedTexts
    let bodies: PackedTexts

    /// The titles and bodies as the server holds them now, or nil when they would take more than `limit` bytes.
    static func load(_ link: PostgresLink, generation: Int64, limit: Int) async throws -> PostgresShortTerms? {
        let sizes = try await link.query("""
            SELECT count(*), coalesce(sum(octet_length(folded) + 1), 0)::bigint FROM title
            UNION ALL SELECT count(*), coalesce(sum(octet_length(folded) + 1), 0)::bigint FROM body
            """).map { try $0.decode((Int, Int).self) }
        guard sizes.count == 2, sizes[0].1 + sizes[1].1 <= limit else { return nil }
        var titles = PackedTexts(reserving: sizes[0]), bodies = PackedTexts(reserving: sizes[1])
        try await read("SELECT id, folded FROM title", link, into: &titles)
        try await read("SELECT id, folded FROM body", link, into: &bodies)
        return PostgresShortTerms(generation: generation, titles: titles, bodies: bodies)
    }

    /// Each row's id and text, the text's bytes as they came (not a String each), a few thousand rows at a time.
    private static func read(_ query: PostgresQuery, _ link: PostgresLink, into texts: inout PackedTexts) async throws {
        try await link.forEachRow(query) { row in
            let cells = row.makeRandomAccess()
            if let text = cells[1].bytes { texts.append(try cells[0].decode(Int64.self), text.readableBytesView) }
        }
    }
}

/// Texts with ids in one buffer, each followed by a zero byte (which no folded text and no term holds, so no match
/// runs from one text into the next): one `memmem` over all of them finds a term's texts.
struct PackedTexts: Sendable {
    private var ids: [Int64] = []
    /// Where each text's zero byte is.
    private var ends: [Int] = []
    private var bytes: [UInt8] = []

    var count: Int { ids.count }

    /// Room for `texts` texts of `bytes` bytes in all, their zero bytes counted: the buffer is not grown (and
    /// twice the size) as they come.
    init(reserving room: (texts: Int, bytes: Int)) {
        ids.reserveCapacity(room.texts)
        ends.reserveCapacity(room.texts)
        bytes.reserveCapacity(room.bytes)
    }

    mutating func append(_ id: Int64, _ text: some Collection<UInt8>) {
        ids.append(id)
        bytes.append(contentsOf: text)
        ends.append(bytes.count)
        bytes.append(0)
    }

    /// The ids of the texts holding `term`, in two parts at once when there are many.
    func holding(_ term: String) async -> [Int64] {
        let needle = Array(term.utf8)
        guard !needle.isEmpty, !ids.isEmpty else { return needle.isEmpty ? ids : [] }
        guard ids.count >= 10_000 else { return holding(needle, in: 0..<ids.count) }
        let middle = ids.count / 2
        async let head = holding(needle, in: 0..<middle)
        let tail = holding(needle, in: middle..<ids.count)
        return await head + tail
    }

    /// The ids of the texts in `texts` (by place) holding `needle`.
    private func holding(_ needle: [UInt8], in texts: Range<Int>) -> [Int64] {
        var found: [Int64] = []
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var text = texts.lowerBound
            var from = text == 0 ? 0 : ends[text - 1] + 1
            let end = ends[texts.upperBound - 1]
            while from < end, let hit = memmem(base + from, end - from, needle, needle.count) {
                let offset = UnsafeRawPointer(hit) - base
                text = Self.place(of: offset, in: ends, from: text)
                found.append(ids[text])
                from = ends[text] + 1
                text += 1
            }
        }
        return found
    }

    /// The place of the text whose bytes hold `offset`, at or after `first`.
    private static func place(of offset: Int, in ends: [Int], from first: Int) -> Int {
        var low = first, high = ends.count - 1
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
