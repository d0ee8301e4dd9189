/// A trigram index of our own for distinct texts (titles, bodies): for each trigram code (``WordTrigrams/code(of:)``),
/// the ids of the texts holding it, as PostgreSQL's GIN build makes its index. An import gathers the codes of the
/// texts it adds as (code, id) pairs, sorts them by a radix sort when a million are gathered and holds each code's run
/// of ids, and a store writes the runs held (one row a code) when they reach ``mostHeldBytes`` and at the import's
/// end, where FTS5 filed each text's trigrams one at a time in a hash table (two cache misses a trigram: 0.45 s of a
/// 1.2 s import of 0.1 M programmes, issue 46).
///
/// A code's ids are stored as runs appended one after another: each run is its count, its first id, then each id's
/// gap from the one before, all as LEB128 (``run(of:)``). A write appends the runs it held to what the code held,
/// so a store never reads a code's ids to add to them; ``ids(in:)`` reads every run back.
package struct TrigramPostings {
    /// The most pairs gathered before they are sorted into runs: 8 MB, and as much again while they are sorted.
    package static let mostPairs = 1 << 20
    /// The most bytes of runs held before a store writes them. Writing the runs of each million pairs took
    /// PostgreSQL 85-260 ms a time at 0.1 M programmes (50,000 codes updated each time, four times); the 0.1 M
    /// guide's descriptions' runs are 4 MB in all, so an import of up to a few million programmes writes once.
    package static let mostHeldBytes = 24 << 20

    /// Each pair: the code (as unsigned) in the high 32 bits, the id less ``base`` in the low 32.
    private var pairs: [UInt64] = []
    /// The sort's other buffer, kept with `pairs` from one sort to the next: both are allocated once, not at each sort
    /// (8 MB of new pages each time; page faults were 6% of a first import's writing thread at 0.1 M programmes).
    private var sorting: [UInt64] = []
    private var base: Int64 = 0
    private var last: Int64 = 0
    /// The runs of each sort so far (a sort takes up to ``mostPairs`` pairs), and their bytes.
    private var held: [SortedRuns] = []
    private var heldBytes = 0

    /// The runs of one sort: its codes ascending (as unsigned), each code's run ending at its offset in `bytes`.
    private struct SortedRuns {
        var codes: [UInt32] = []
        var ends: [Int] = []
        var bytes: [UInt8] = []

        /// The code at `index`; nil past the last.
        func code(at index: Int) -> UInt32? { index < codes.count ? codes[index] : nil }

        /// The run of the code at `index`.
        func run(at index: Int) -> ArraySlice<UInt8> { bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]] }
    }

    package init() {}

    package var isEmpty: Bool { pairs.isEmpty && held.isEmpty }

    /// The most sorts held before a store writes their runs: the drain merges the sorts' codes, each code's look
    /// across all of them, and ids that do not ascend (a hand-edited table past its largest rowid gives new rows
    /// random ones) sort at every text. A first import's bodies at 1.75 M programmes take 7 sorts.
    package static let mostSorts = 32

    /// Whether the runs held have reached ``mostHeldBytes`` or ``mostSorts``, for the store to write them
    /// (``drain(_:)``).
    package var needsWrite: Bool { heldBytes >= Self.mostHeldBytes || held.count >= Self.mostSorts }

    /// Gathers the codes of the trigrams within the words of `folded`, for text `id`. The pairs gathered are sorted
    /// into runs first when its trigrams (at most one a byte) could take them past their bound, or when `id` does
    /// not follow the last one added within 2^32 (a store's new texts take ascending ids).
    package mutating func add(_ folded: String, id: Int64) {
        var folded = folded
        folded.withUTF8 { bytes in
            let isFull = bytes.count > Self.mostPairs - pairs.count
            // id > last >= base there, so the difference, unsigned, is exact even from Int64.min to Int64.max.
            let isFar = id > last && UInt64(bitPattern: id &- base) > UInt64(UInt32.max)
            if !pairs.isEmpty, isFull || id <= last || isFar { sortIntoRuns() }
            if pairs.isEmpty {
                base = id
                pairs.reserveCapacity(Self.mostPairs)
            }
            last = id
            let offset = UInt64(truncatingIfNeeded: id &- base)
            WordTrigrams.forEach(in: bytes) { _, key in
                pairs.append(UInt64(UInt32(bitPattern: WordTrigrams.code(of: key))) << 32 | offset)
                return true
            }
        }
    }

    /// Hands `body` each code held, in ascending order of its bits, with its runs of ids (``run(of:)``) in the order
    /// they were gathered, then starts over.
    package mutating func drain(_ body: (Int32, [UInt8]) throws -> Void) rethrows {
        sortIntoRuns()
        let held = held
        (self.held, heldBytes) = ([], 0)
        // Each sort's codes are ascending: merged, smallest first, a code's runs joined in the order of the sorts.
        var next = [Int](repeating: 0, count: held.count)
        while let code = held.indices.lazy.compactMap({ held[$0].code(at: next[$0]) }).min() {
            var joined: [UInt8] = []
            for sort in held.indices where held[sort].code(at: next[sort]) == code {
                joined.append(contentsOf: held[sort].run(at: next[sort]))
                next[sort] += 1
            }
            try body(Int32(bitPattern: code), joined)
        }
    }

    /// Sorts the pairs gathered by their codes (stable: the ids were gathered ascending, so each code's stay so), and
    /// keeps each code's run.
    private mutating func sortIntoRuns() {
        guard !pairs.isEmpty else { return }
        defer { pairs.removeAll(keepingCapacity: true) }
        Self.sortByCode(&pairs, using: &sorting)
        var sorted = SortedRuns()
        var writer = BinaryWriter(capacity: pairs.count * 2)
        pairs.withUnsafeBufferPointer { pairs in
            var start = 0
            while start < pairs.count {
                let code = pairs[start] >> 32
                var end = start + 1
                while end < pairs.count, pairs[end] >> 32 == code { end += 1 }
                Self.write(run: pairs[start..<end].lazy.map { [base] in base &+ Int64($0 & 0xFFFF_FFFF) },
                           to: &writer)
                sorted.codes.append(UInt32(code))
                sorted.ends.append(writer.length)
                start = end
            }
        }
        sorted.bytes = writer.bytes
        heldBytes += sorted.bytes.count
        held.append(sorted)
    }

    /// A run of ascending ids: their count, the first (ZigZag, so that an id below 0, which only a database edited
    /// by hand holds, comes back as it was), then each one's gap from the one before.
    package static func run(of ids: [Int64]) -> [UInt8] {
        BinaryWriter.bytes { write(run: ids, to: &$0) }
    }

    private static func write(run ids: some Collection<Int64>, to writer: inout BinaryWriter) {
        writer.count(ids.count)
        var previous: Int64?
        for id in ids {
            writer.unsigned(previous.map { UInt64(bitPattern: id &- $0) } ?? UInt64(bitPattern: id << 1 ^ id >> 63))
            previous = id
        }
    }

    /// Every id of the runs in `bytes`, ascending and each once; nil when they are damaged (a count past the bytes
    /// left, ids adding up past 2^63, a cut value), so that the caller can search without them.
    package static func ids(in bytes: UnsafeRawBufferPointer) -> [Int64]? {
        var reader = BinaryReader(bytes: bytes)
        var ids: [Int64] = []
        var isAscending = true
        while !reader.isAtEnd {
            // Every id takes a byte at least: a count past the bytes left is damage, not a reason to allocate.
            let count = reader.unsigned()
            guard reader.isValid, count > 0, count <= UInt64(bytes.count - reader.offset) else { return nil }
            let first = reader.unsigned()
            var id = Int64(bitPattern: first >> 1) ^ -Int64(bitPattern: first & 1)
            for index in 0..<Int(count) {
                if index > 0 {
                    // Past Int64.max is damage: the room left above `id`, as an unsigned value.
                    let gap = reader.unsigned()
                    guard gap <= UInt64(bitPattern: Int64.max &- id) else { return nil }
                    id = id &+ Int64(bitPattern: gap)
                }
                guard reader.isValid else { return nil }
                if let last = ids.last, id <= last { isAscending = false }
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

    /// Sorts pairs by their high 32 bits, keeping the order of pairs with the same: three counting passes of 11, 11 and
    /// 10 bits, their counts taken in one read (2,048 counts a digit stay in the first cache, where the 65,536 of two
    /// passes of 16 bits did not), each pass writing into the other buffer (`other`, grown as needed, never shrunk).
    private static func sortByCode(_ pairs: inout [UInt64], using other: inout [UInt64]) {
        let count = pairs.count
        guard count > 1 else { return }
        if other.count < count { other = [UInt64](repeating: 0, count: max(count, pairs.capacity)) }
        let digits: [(shift: UInt64, mask: UInt64)] = [(32, 0x7FF), (43, 0x7FF), (54, 0x3FF)]   // As counted below.
        var counts = [Int](repeating: 0, count: digits.count << 11)
        counts.withUnsafeMutableBufferPointer { counts in
            for pair in pairs {
                counts[Int(pair >> 32 & 0x7FF)] += 1
                counts[1 << 11 | Int(pair >> 43 & 0x7FF)] += 1
                counts[2 << 11 | Int(pair >> 54)] += 1
            }
            for digit in digits.indices {
                var total = 0
                for value in digit << 11..<(digit + 1) << 11 { (counts[value], total) = (total, total + counts[value]) }
            }
        }
        pairs.withUnsafeMutableBufferPointer { pairs in
            other.withUnsafeMutableBufferPointer { other in
                counts.withUnsafeMutableBufferPointer { offsets in
                    for (digit, (shift, mask)) in digits.enumerated() {
                        let (from, to) = digit % 2 == 0 ? (pairs, other) : (other, pairs)
                        for pair in from[0..<count] {
                            let value = digit << 11 | Int(pair >> shift & mask)
                            to[offsets[value]] = pair
                            offsets[value] += 1
                        }
                    }
                }
                // Three passes end in `other`.
                _ = pairs.update(fromContentsOf: other[0..<count])
            }
        }
    }
}
