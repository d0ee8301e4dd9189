/// A trigram index of our own for distinct texts (titles, bodies): for each trigram code (``WordTrigrams/code(of:)``),
/// the ids of the texts holding it, as PostgreSQL's GIN build makes its index. An import gathers the codes of the
/// texts it adds as (code, id) pairs, sorts them once and writes one run of ids a code, where FTS5 filed each text's
/// trigrams one at a time in a hash table (two cache misses a trigram: 0.45 s of a 1.2 s import of 0.1 M programmes,
/// issue 46).
///
/// A code's ids are stored as runs appended one after another: each run is its count, then each id's gap from the one
/// before (the first's from 0), all as LEB128 (``run(of:)``). A write appends the run it gathered to what the code
/// held, so a store never reads a code's ids to add to them; ``ids(in:)`` reads every run back.
package struct TrigramPostings {
    /// The most pairs gathered before they must be written: 8 MB, and as much again while they are sorted.
    package static let mostPairs = 1 << 20

    /// Each pair: the code (as unsigned) in the high 32 bits, the id less ``base`` in the low 32.
    private var pairs: [UInt64] = []
    private var base: Int64 = 0
    private var last: Int64 = 0

    package init() {}

    package var isEmpty: Bool { pairs.isEmpty }

    /// Whether what was gathered must be written before text `id`, of `bytes` bytes, is added: when its trigrams
    /// (at most one a byte) could take the pairs past their bound, or `id` does not follow the last one added within
    /// 2^32 (a store's new texts take ascending ids).
    package func needsWrite(before id: Int64, bytes: Int) -> Bool {
        guard !pairs.isEmpty else { return false }
        return bytes > Self.mostPairs - pairs.count || id <= last || id - base > Int64(UInt32.max)
    }

    /// Gathers the codes of the trigrams within the words of `folded`, for text `id` (after
    /// ``needsWrite(before:bytes:)`` said no, or what was gathered was written).
    package mutating func add(_ folded: String, id: Int64) {
        if pairs.isEmpty {
            base = id
            pairs.reserveCapacity(Self.mostPairs)
        }
        last = id
        let offset = UInt64(truncatingIfNeeded: id &- base)
        var folded = folded
        _ = folded.withUTF8 { bytes in
            WordTrigrams.forEach(in: bytes) { _, key in
                pairs.append(UInt64(UInt32(bitPattern: WordTrigrams.code(of: key))) << 32 | offset)
                return true
            }
        }
    }

    /// Hands `body` each code gathered, in ascending order of its bits, with the run of its ids (``run(of:)``), then
    /// starts over. The pairs are sorted by their codes in two stable passes of 16 bits; the ids were gathered
    /// ascending, so each code's stay so.
    package mutating func drain(_ body: (Int32, [UInt8]) throws -> Void) rethrows {
        defer { pairs = [] }
        Self.sortByCode(&pairs)
        var start = 0
        var ids: [Int64] = []
        while start < pairs.count {
            let code = pairs[start] >> 32
            var end = start
            ids.removeAll(keepingCapacity: true)
            while end < pairs.count, pairs[end] >> 32 == code {
                ids.append(base + Int64(pairs[end] & 0xFFFF_FFFF))
                end += 1
            }
            try body(Int32(bitPattern: UInt32(code)), Self.run(of: ids))
            start = end
        }
    }

    /// A run of ascending ids (each at least 0): their count, the first, then each one's gap from the one before.
    package static func run(of ids: [Int64]) -> [UInt8] {
        var writer = BinaryWriter()
        writer.count(ids.count)
        var previous: Int64 = 0
        for id in ids {
            writer.count(Int(id &- previous))
            previous = id
        }
        return writer.bytes
    }

    /// Every id of the runs in `bytes`, ascending and each once; nil when they are damaged (a count past the bytes
    /// left, an id past 2^63, a cut value), so that the caller can search without them.
    package static func ids(in bytes: UnsafeRawBufferPointer) -> [Int64]? {
        var reader = BinaryReader(bytes: bytes)
        var ids: [Int64] = []
        var isAscending = true
        while !reader.isAtEnd {
            // Every id takes a byte at least: a count past the bytes left is damage, not a reason to allocate.
            let count = reader.unsigned()
            guard reader.isValid, count > 0, count <= UInt64(bytes.count - reader.offset) else { return nil }
            var id: Int64 = 0
            for _ in 0..<Int(count) {
                let gap = reader.unsigned()
                guard reader.isValid, gap <= UInt64(Int64.max) else { return nil }
                let (next, overflow) = id.addingReportingOverflow(Int64(gap))
                guard !overflow else { return nil }
                if let last = ids.last, next <= last { isAscending = false }
                id = next
                ids.append(id)
            }
        }
        return isAscending ? ids : Array(Set(ids)).sorted()
    }

    /// The ids in every one of `lists` (each ascending, each once), ascending: the shortest list checked against
    /// the others.
    package static func intersection(_ lists: [[Int64]]) -> [Int64] {
        let ordered = lists.sorted { $0.count < $1.count }
        guard var found = ordered.first else { return [] }
        for list in ordered.dropFirst() {
            guard !found.isEmpty else { break }
            var kept: [Int64] = []
            var index = 0
            for id in found {
                while index < list.count, list[index] < id { index += 1 }
                if index < list.count, list[index] == id { kept.append(id) }
            }
            found = kept
        }
        return found
    }

    /// Sorts pairs by their high 32 bits, keeping the order of pairs with the same: two counting passes of 16 bits.
    private static func sortByCode(_ pairs: inout [UInt64]) {
        guard pairs.count > 1 else { return }
        var other = [UInt64](repeating: 0, count: pairs.count)
        for shift: UInt64 in [32, 48] {
            var counts = [Int](repeating: 0, count: 1 << 16 + 1)
            for pair in pairs { counts[Int(pair >> shift & 0xFFFF) + 1] += 1 }
            for digit in 1..<counts.count { counts[digit] += counts[digit - 1] }
            for pair in pairs {
                let digit = Int(pair >> shift & 0xFFFF)
                other[counts[digit]] = pair
                counts[digit] += 1
            }
            swap(&pairs, &other)
        }
    }
}
