import Crypto
import GuideCore

/// How both stores answer a search without reading every programme (issue 46): distinct titles and distinct bodies
/// (sub-titles and descriptions, folded) each have a trigram index, and programmes point at theirs.
///
/// - A term the indexes find in few titles and bodies, aired few times, drives the search: its programmes are read
///   by title and body and checked for the other terms (``mostTexts``, ``mostCandidates``). Searching titles, the
///   titles found for every term drive it.
/// - When every term is common (or shorter than a trigram), programmes are read in start order from the in-memory
///   schedule, ``batch`` at a time, and checked, until the page is full: a common word fills it within a few batches.
package enum SearchPlan {
    /// The most titles, or bodies, a driving term may be found in.
    package static let mostTexts = 5_000
    /// The most programmes a driving term may find.
    package static let mostCandidates = 20_000
    /// Programmes checked at a time in start order.
    package static let batch = 1_000
    /// The most programmes checked in start order before the search gives up on filling its page that way.
    package static let mostScanned = 30_000

    /// What a store does for a search: the titles and (searching everything) bodies holding a term, by their
    /// indexes (nil when either passes ``mostTexts`` or the term cannot be looked up); the programmes with one of
    /// some titles or bodies (nil past ``mostCandidates``); and of the programmes `ids`, those holding every term, by
    /// start, at most `limit`.
    package struct Store {
        package var texts: (_ term: String) async throws -> (titles: [Int64], bodies: [Int64])?
        package var programmes: (_ titles: [Int64], _ bodies: [Int64], _ most: Int) async throws -> [Int64]?
        package var matching: (_ ids: [Int64], _ limit: Int) async throws -> [StoredProgramme]

        package init(texts: @escaping (String) async throws -> (titles: [Int64], bodies: [Int64])?,
                     programmes: @escaping ([Int64], [Int64], Int) async throws -> [Int64]?,
                     matching: @escaping ([Int64], Int) async throws -> [StoredProgramme]) {
            self.texts = texts
            self.programmes = programmes
            self.matching = matching
        }
    }

    package static func run(_ query: SearchQuery, schedule: ScheduleIndex, in store: Store) async throws -> [StoredProgramme] {
        guard !query.terms.isEmpty, query.limit > 0 else { return [] }
        var found: [(titles: [Int64], bodies: [Int64])] = []
        for term in query.terms {
            if let texts = try await store.texts(term) { found.append(texts) }
        }
        // Searching titles, a programme's title holds every term: only titles found for each are candidates.
        if query.scope == .title, found.count > 1 {
            var titles = Set(found[0].titles)
            for other in found.dropFirst() { titles.formIntersection(other.titles) }
            found.append((titles.sorted(), []))
        }
        // The fewest texts first; a second try at most, each costing a read of at most mostCandidates ids.
        let fewestFirst = found.sorted { $0.titles.count + $0.bodies.count < $1.titles.count + $1.bodies.count }
        for texts in fewestFirst.prefix(2) {
            if let ids = try await store.programmes(texts.titles, texts.bodies, mostCandidates) {
                return try await store.matching(ids, query.limit)
            }
        }
        var results: [StoredProgramme] = []
        var order = schedule.inStartOrder(endingAfter: query.endingAfter?.unixSeconds)
        var scanned = 0
        while results.count < query.limit {
            // Common words that seldom meet: rather than every programme, all of the rarest word's.
            if scanned >= mostScanned, let rarest = fewestFirst.first,
               let ids = try await store.programmes(rarest.titles, rarest.bodies, Int.max) {
                return try await store.matching(ids, query.limit)
            }
            let ids = order.next(batch)
            if ids.isEmpty { break }
            scanned += ids.count
            results += try await store.matching(ids, query.limit - results.count)
        }
        return results
    }
}

extension ScheduleIndex {
    /// Every programme's id in (start, id) order across channels, from the first that ends after `endingAfter`
    /// (every programme when nil): a merge of the channels' ordered entries.
    package func inStartOrder(endingAfter: Int64?) -> StartOrder {
        StartOrder(self, endingAfter: endingAfter)
    }

    package struct StartOrder {
        private let index: ScheduleIndex
        private let endingAfter: Int64?
        /// Each channel's next entry, as a binary min-heap on (start, id).
        private var heap: [(start: Int64, id: Int64, at: Int, end: Int)] = []

        init(_ index: ScheduleIndex, endingAfter: Int64?) {
            self.index = index
            self.endingAfter = endingAfter
            for slot in index.slots where !slot.entries.isEmpty {
                // Nothing that started more than the longest programme before the instant is still on.
                var at = slot.entries.lowerBound
                if let endingAfter {
                    var low = at, high = slot.entries.upperBound
                    while low < high {
                        let middle = (low + high) / 2
                        if index.entries[middle].start >= endingAfter - index.longest { high = middle } else { low = middle + 1 }
                    }
                    at = low
                }
                if at < slot.entries.upperBound { push((index.entries[at].start, index.entries[at].id, at, slot.entries.upperBound)) }
            }
        }

        /// Up to `count` more ids; none at the end.
        package mutating func next(_ count: Int) -> [Int64] {
            var ids: [Int64] = []
            ids.reserveCapacity(count)
            while ids.count < count, let top = heap.first {
                let entry = index.entries[top.at]
                if endingAfter.map({ entry.stop > $0 }) ?? true { ids.append(top.id) }
                let following = top.at + 1
                if following < top.end {
                    heap[0] = (index.entries[following].start, index.entries[following].id, following, top.end)
                } else {
                    heap[0] = heap[heap.count - 1]
                    heap.removeLast()
                }
                siftDown(0)
            }
            return ids
        }

        private static func isBefore(_ left: (start: Int64, id: Int64, at: Int, end: Int),
                                     _ right: (start: Int64, id: Int64, at: Int, end: Int)) -> Bool {
            (left.start, left.id) < (right.start, right.id)
        }

        private mutating func push(_ element: (start: Int64, id: Int64, at: Int, end: Int)) {
            heap.append(element)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard Self.isBefore(heap[child], heap[parent]) else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        private mutating func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, Self.isBefore(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count, Self.isBefore(heap[right], heap[smallest]) { smallest = right }
                if smallest == parent { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }
}

/// The hash a body is looked up by: the first 8 bytes of its MD5, big-endian, which PostgreSQL computes too
/// (`('x' || substr(md5(folded), 1, 16))::bit(64)::bigint`, its migration). Not a secret, only a lookup key: a
/// body is always compared whole before it is reused.
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
