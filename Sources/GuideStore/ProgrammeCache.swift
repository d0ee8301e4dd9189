import Foundation
import GuideCore
import Synchronization

/// Programmes read from the store, kept by id between requests, so that a now/next or a guide window asks the
/// database only for rows it has not read before: 10,000 channels' now and next read 20,000 rows scattered through
/// the file (SQLite copied 600 MB of pages for each `/api/now`, issue 46).
///
/// A programme row never changes once its import commits; what changes is whether the guide shows it, which the
/// schedule knows. PostgreSQL never reuses an id, so its rows are kept across imports; SQLite may give a new
/// programme the id of one an import removed, so its rows are kept for one generation of the listings only
/// (`keptAcrossGenerations` false): a newer generation empties the cache, and rows read at an older one are not kept.
///
/// At most `summaries` summaries and `full` whole programmes: two halves each, the older dropped when the newer
/// fills, so what the guide keeps asking for stays and memory is bounded (50,000 summaries are about 25 MB: 10,000
/// channels' now and next fit in one half).
package final class ProgrammeCache: Sendable {
    private struct Halves {
        let capacity: Int
        var generation: Int64 = .min
        var newer: [Int64: StoredProgramme] = [:]
        var older: [Int64: StoredProgramme] = [:]

        /// Whether rows of `generation` may be used and kept: always across generations, else only the newest.
        mutating func admits(_ generation: Int64, acrossGenerations: Bool) -> Bool {
            if acrossGenerations { return true }
            if generation > self.generation { self = Halves(capacity: capacity, generation: generation) }
            return generation == self.generation
        }
    }

    private let keptAcrossGenerations: Bool
    private let summaries: Mutex<Halves>
    private let full: Mutex<Halves>

    package init(summaries: Int = 50_000, full: Int = 10_000, keptAcrossGenerations: Bool) {
        self.summaries = Mutex(Halves(capacity: max(2, summaries)))
        self.full = Mutex(Halves(capacity: max(2, full)))
        self.keptAcrossGenerations = keptAcrossGenerations
    }

    /// What ``lookup(_:detail:generation:)`` found: the kept programme for each id, nil where none is kept (or the id
    /// is 0, which no programme has), and the places of the ids to read from the store (none of them 0). A caller
    /// that looked for the nils itself copied every programme found to compare it with nil (at 10,000 channels,
    /// a fifth of `/api/now`'s reference counts).
    package struct Found {
        package var rows: [StoredProgramme?]
        package var missing: [Int]
    }

    package func lookup(_ ids: [Int64], detail: ProgrammeDetail, generation: Int64) -> Found {
        withHalves(detail) { halves in
            var found = Found(rows: [], missing: [])
            found.rows.reserveCapacity(ids.count)
            let admitted = halves.admits(generation, acrossGenerations: keptAcrossGenerations)
            for (index, id) in ids.enumerated() {
                if admitted, let kept = halves.newer[id] {
                    found.rows.append(kept)
                } else if admitted, let kept = halves.older[id] {
                    Self.keep(kept, id: id, in: &halves)   // Asked for again: it stays.
                    found.rows.append(kept)
                } else {
                    found.rows.append(nil)
                    if id != 0 { found.missing.append(index) }
                }
            }
            return found
        }
    }

    package func keep(_ programmes: [StoredProgramme], detail: ProgrammeDetail, generation: Int64) {
        withHalves(detail) { halves in
            guard halves.admits(generation, acrossGenerations: keptAcrossGenerations) else { return }
            for programme in programmes { Self.keep(programme, id: programme.id.rawValue, in: &halves) }
        }
    }

    private static func keep(_ programme: StoredProgramme, id: Int64, in halves: inout Halves) {
        if halves.newer.count >= halves.capacity / 2 {
            halves.older = halves.newer
            halves.newer = [:]
        }
        halves.newer[id] = programme
    }

    private func withHalves<T>(_ detail: ProgrammeDetail, _ body: (inout Halves) -> T) -> T {
        switch detail {
        case .summary: summaries.withLock { body(&$0) }
        case .full: full.withLock { body(&$0) }
        }
    }
}
