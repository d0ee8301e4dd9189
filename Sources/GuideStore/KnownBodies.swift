/// The ids of the bodies an import has met, by ``PreparedProgramme/bodyHash`` (at most ``limit``), started with those
/// the store held before it (``know(stored:)``). A refresh keeps most of its descriptions, and finding each in the
/// store again (by its hash, its texts compared) was a fifth of SQLite's writer in a changed day at 1.75 M programmes.
/// A stored body is known by its 64-bit hash alone, as one met earlier in the import is: two different bodies sharing
/// one, about one chance in 10^10 among 63,000, would share the first's texts. A hash two stored bodies share is left
/// out, for the store to tell them apart.
package struct KnownBodies {
    private var ids: [Int64: Int64] = [:]
    /// Hashes two or more stored bodies share: never known, always looked for.
    private var shared: Set<Int64> = []
    /// Whether ``ids`` holds every stored body (but those of ``shared``): a hash it lacks is then not stored.
    private var holdsEveryStored = false

    /// The most ids remembered: pairs of integers, about 10 MB. (``TextCache/limit`` bounds the texts; the 1.75 M
    /// guide has 63,000 bodies, and at half of that limit a fifth of them were looked for again.)
    package static let limit = 400_000
    /// The most stored bodies an import starts with: half of ``limit``, leaving room for the new.
    package static let mostStored = limit / 2

    package init() {}

    /// Starts with the bodies stored before the import, pairs of hash and id (at most ``mostStored``): all of them
    /// when there were fewer.
    package mutating func know(stored: [(Int64, Int64)]) {
        ids.reserveCapacity(stored.count)
        for (hash, id) in stored where ids.updateValue(id, forKey: hash) != nil {
            shared.insert(hash)
        }
        for hash in shared { ids[hash] = nil }
        holdsEveryStored = stored.count < Self.mostStored
    }

    /// The id of the body of this hash, if known.
    package subscript(hash: Int64) -> Int64? { ids[hash] }

    /// Whether no body of this hash is stored: true only while every stored body and every one added since is known.
    package func isNew(_ hash: Int64) -> Bool {
        holdsEveryStored && ids[hash] == nil && !shared.contains(hash)
    }

    /// Remembers a body's id, found or added; past ``limit`` the ids known so far are forgotten (and with them the
    /// knowledge that a hash not known is new).
    package mutating func remember(_ id: Int64, for hash: Int64) {
        if ids.count >= Self.limit {
            ids.removeAll(keepingCapacity: true)
            holdsEveryStored = false
        }
        ids[hash] = id
    }
}
