import Foundation
import Crypto
import GuideCore

/// How both stores answer a search without reading every programme (issue 46): distinct titles and distinct bodies
/// (sub-titles and descriptions, folded) each have a trigram index, and the in-memory schedule knows each
/// programme's title and body.
///
/// Each term's titles and bodies are found by their indexes (a few thousand at most, even for "the"), kept as bit
/// sets, and the schedule's entries are checked against them in memory: a few nanoseconds a programme, each channel
/// read only until it can no longer improve the page. The store then reads the page's programmes and checks their
/// text, so what the indexes say is never taken on trust.
package enum SearchPlan {
    /// What a store does for a search: the titles and (searching everything) bodies holding a term, by their
    /// indexes; and of the programmes `ids`, those holding every term, by start, at most `limit`.
    package struct Store {
        package var texts: @Sendable (_ term: String) async throws -> (titles: [Int64], bodies: [Int64])
        package var matching: (_ ids: [Int64], _ limit: Int) async throws -> [StoredProgramme]

        package init(texts: @escaping @Sendable (String) async throws -> (titles: [Int64], bodies: [Int64]),
                     matching: @escaping ([Int64], Int) async throws -> [StoredProgramme]) {
            self.texts = texts
            self.matching = matching
        }
    }

    package static func run(_ query: SearchQuery, schedule: ScheduleIndex, in store: Store) async throws -> [StoredProgramme] {
        // A guide with no programmes finds nothing, and asks the store nothing.
        guard !query.terms.isEmpty, query.limit > 0, !schedule.entries.isEmpty else { return [] }
        let terms: [Term] = try await texts(of: query.terms, in: store).map {
            (titles: TextSet($0.titles), bodies: TextSet(query.scope == .title ? [] : $0.bodies))
        }
        var results: [StoredProgramme] = []
        var after: ScheduleIndex.Entry?
        // One round unless the store's check turns candidates down (a text the index over-reports): then the next
        // candidates after the last one asked about.
        while results.count < query.limit {
            let wanted = query.limit - results.count
            let candidates = await Self.candidates(wanted, in: schedule, endingAfter: query.endingAfter?.unixSeconds,
                                                   after: after, terms: terms)
            guard let last = candidates.last else { break }
            results += try await store.matching(candidates.map(\.id), wanted)
            if candidates.count < wanted { break }
            after = last
        }
        return results
    }

    /// The schedule's first `count` entries holding every term, its channels read in as many parts at once as there
    /// are cores (up to four) once it holds ``partlyFrom`` programmes: a rare word reads every programme's texts, at
    /// 1.75 M programmes 10-14 ms on one core.
    private static func candidates(_ count: Int, in schedule: ScheduleIndex, endingAfter: Int64?,
                                   after: ScheduleIndex.Entry?, terms: [Term]) async -> [ScheduleIndex.Entry] {
        let parts = schedule.entries.count < partlyFrom ? 1 : min(4, ProcessInfo.processInfo.activeProcessorCount)
        let slots = schedule.slotParts(parts)
        guard slots.count > 1 else {
            return schedule.first(count, endingAfter: endingAfter, after: after) { holds($0, terms) }
        }
        return await withTaskGroup(of: [ScheduleIndex.Entry].self) { group in
            for part in slots {
                group.addTask {
                    schedule.first(count, endingAfter: endingAfter, after: after, in: part) { holds($0, terms) }
                }
            }
            var found: [ScheduleIndex.Entry] = []
            for await some in group { found += some }
            return Array(found.sorted { ($0.start, $0.id) < ($1.start, $1.id) }.prefix(count))
        }
    }

    /// From how many programmes a search reads the schedule in parts.
    static let partlyFrom = 200_000

    /// A term's titles and bodies.
    typealias Term = (titles: TextSet, bodies: TextSet)

    @inline(__always)
    private static func holds(_ texts: ScheduleIndex.Texts, _ terms: [Term]) -> Bool {
        terms.allSatisfy { $0.titles.contains(texts.title) || $0.bodies.contains(texts.body) }
    }

    /// Each term's titles and bodies, asked of the store a few terms at once (their index reads are independent: three
    /// words in everything on PostgreSQL took 43-50 ms one after another).
    private static func texts(of terms: [String], in store: Store) async throws -> [(titles: [Int64], bodies: [Int64])] {
        let atOnce = 3, lookUp = store.texts
        return try await withThrowingTaskGroup(of: (Int, (titles: [Int64], bodies: [Int64])).self) { group in
            var found: [(titles: [Int64], bodies: [Int64])] = Array(repeating: ([], []), count: terms.count)
            for (index, term) in terms.enumerated() {
                if index >= atOnce, let (done, texts) = try await group.next() { found[done] = texts }
                group.addTask { (index, try await lookUp(term)) }
            }
            for try await (done, texts) in group { found[done] = texts }
            return found
        }
    }

    /// Text ids as a bit set, or, when they are few and far between (PostgreSQL never reuses an id, so a store years
    /// old may have ids in the millions), as a hash set: a bit set's words never pass four for each id (or 16,384).
    /// An entry whose id did not fit the schedule (``ScheduleIndex/Texts/unknownText``) may hold anything: it is a
    /// candidate, checked by the store.
    struct TextSet {
        private var words: [UInt64] = []
        private var sparse: Set<Int32>?

        init(_ ids: [Int64]) {
            let kept = ids.filter { $0 >= 0 && $0 < Int64(ScheduleIndex.Texts.unknownText) }.map { Int32($0) }
            guard let largest = kept.max() else { return }
            guard Int(largest) >> 6 < max(16_384, 4 * kept.count) else {
                sparse = Set(kept)
                return
            }
            words = [UInt64](repeating: 0, count: Int(largest) >> 6 + 1)
            for id in kept { words[Int(id) >> 6] |= 1 << UInt64(id & 63) }
        }

        @inline(__always)
        func contains(_ id: Int32) -> Bool {
            if id == ScheduleIndex.Texts.unknownText { return true }
            if let sparse { return sparse.contains(id) }
            let word = Int(id) >> 6
            return id >= 0 && word < words.count && words[word] & (1 << UInt64(id & 63)) != 0
        }
    }
}

extension ScheduleIndex {
    /// The first `count` entries, in (start, id) order across channels, that end after `endingAfter` (when given),
    /// come after `after` (when given) and whose texts satisfy `isWanted`. Each channel is read from the first
    /// programme that can still be on until its starts pass the worst of the `count` kept; until `count` are kept,
    /// only the texts of those not wanted are read (a rare word reads every programme's).
    @inline(__always)
    package func first(_ count: Int, endingAfter: Int64?, after: Entry? = nil, in part: Range<Int>? = nil,
                       where isWanted: (Texts) -> Bool) -> [Entry] {
        guard count > 0 else { return [] }
        var kept = Heap(count)
        let earliest = max(endingAfter.map { $0.subtractingReportingOverflow(longest) }.map { $0.overflow ? Int64.min : $0.partialValue } ?? .min,
                           after?.start ?? .min)
        // The latest start that can still be kept: any, while fewer than `count` are.
        var latest = Int64.max
        entries.withUnsafeBufferPointer { entries in
            texts.withUnsafeBufferPointer { texts in
                // Read unchecked: each slot's range is kept inside the entries (and texts, as many) first.
                for slot in slots[part?.clamped(to: slots.indices) ?? slots.indices] {
                    let range = slot.entries.clamped(to: 0..<min(entries.count, texts.count))
                    var index = firstIndex(in: range) { $0.start >= earliest }
                    while index < range.upperBound {
                        let at = index
                        index += 1
                        if latest != .max, entries[at].start > latest { break }
                        guard isWanted(texts[at]) else { continue }
                        let entry = entries[at]
                        if let endingAfter, entry.stop <= endingAfter { continue }
                        if let after, (entry.start, entry.id) <= (after.start, after.id) { continue }
                        kept.offer(entry)
                        if kept.isFull, let worst = kept.worst { latest = worst.start }
                    }
                }
            }
        }
        return kept.sorted()
    }

    /// The slots in at most `parts` runs, each of about as many entries.
    func slotParts(_ parts: Int) -> [Range<Int>] {
        guard parts > 1, !slots.isEmpty else { return [slots.indices] }
        let each = max(1, entries.count / parts)
        var runs: [Range<Int>] = [], start = 0, held = 0
        for (index, slot) in slots.enumerated() {
            held += slot.entries.count
            if held >= each, runs.count < parts - 1 {
                runs.append(start..<index + 1)
                (start, held) = (index + 1, 0)
            }
        }
        if start < slots.count { runs.append(start..<slots.count) }
        return runs
    }

    /// The `size` least entries by (start, id) offered to it: a binary max-heap, its worst on top.
    private struct Heap {
        private var entries: [Entry] = []
        private let size: Int

        init(_ size: Int) {
            self.size = size
            entries.reserveCapacity(Swift.min(size, 10_000))
        }

        var isFull: Bool { entries.count >= size }
        var worst: Entry? { entries.first }

        private static func isBefore(_ left: Entry, _ right: Entry) -> Bool { (left.start, left.id) < (right.start, right.id) }

        mutating func offer(_ entry: Entry) {
            if entries.count < size {
                entries.append(entry)
                var child = entries.count - 1
                while child > 0 {
                    let parent = (child - 1) / 2
                    guard Self.isBefore(entries[parent], entries[child]) else { break }
                    entries.swapAt(child, parent)
                    child = parent
                }
            } else if let worst = entries.first, Self.isBefore(entry, worst) {
                entries[0] = entry
                var parent = 0
                while true {
                    let left = 2 * parent + 1, right = left + 1
                    var largest = parent
                    if left < entries.count, Self.isBefore(entries[largest], entries[left]) { largest = left }
                    if right < entries.count, Self.isBefore(entries[largest], entries[right]) { largest = right }
                    if largest == parent { break }
                    entries.swapAt(parent, largest)
                    parent = largest
                }
            }
        }

        func sorted() -> [Entry] { entries.sorted(by: Self.isBefore) }
    }
}

/// The hash bodies were found by before v36: the first 8 bytes of their folded text's MD5, big-endian, as PostgreSQL
/// computed it too (`('x' || substr(md5(folded), 1, 16))::bit(64)::bigint`, its migration); SQLite's v29 gives it to
/// the bodies it makes. Since v36 a body also keeps its descriptions, and imports find it by an XXH64 of both
/// (``PreparedProgramme/bodyHash``); the bodies made before keep none and match no programme imported since. Not a
/// secret, only a lookup key: a body is always compared whole before it is reused.
package enum BodyHash {
    package static func of(_ text: String) -> Int64 {
        var text = text
        // Hashed where the string keeps its bytes: copying each body into an array cost the reading thread 1 s in 1.75 M.
        var hasher = Insecure.MD5()
        text.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        let digest = hasher.finalize()
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }
}
