import Foundation
import GuideCore
import GuideStore
import Synchronization

/// Programmes read from PostgreSQL, kept by id between requests. A programme row never changes once its import
/// commits (its id is never reused; what changes is whether the guide shows it, which the schedule knows), so
/// nothing kept here goes stale: a now/next or a guide window asks the database only for rows it has not read before.
///
/// At most `capacity` programmes of each detail: two halves, the older dropped when the newer fills, so what the
/// guide keeps asking for stays and memory is bounded (30,000 summaries are about 15 MB).
final class ProgrammeCache: Sendable {
    private struct Halves {
        var newer: [Int64: StoredProgramme] = [:]
        var older: [Int64: StoredProgramme] = [:]
    }

    let capacity: Int
    private let summaries = Mutex(Halves())
    private let full = Mutex(Halves())

    init(capacity: Int = 30_000) {
        self.capacity = max(2, capacity)
    }

    /// The kept programme for each id, nil where none is kept (or the id is 0, which no programme has).
    func lookup(_ ids: [Int64], detail: ProgrammeDetail) -> [StoredProgramme?] {
        withHalves(detail) { halves in
            ids.map { id in
                if let kept = halves.newer[id] { return kept }
                guard let kept = halves.older[id] else { return nil }
                Self.keep(kept, id: id, in: &halves, capacity: capacity)   // Asked for again: it stays.
                return kept
            }
        }
    }

    func keep(_ programmes: [StoredProgramme], detail: ProgrammeDetail) {
        withHalves(detail) { halves in
            for programme in programmes { Self.keep(programme, id: programme.id.rawValue, in: &halves, capacity: capacity) }
        }
    }

    private static func keep(_ programme: StoredProgramme, id: Int64, in halves: inout Halves, capacity: Int) {
        if halves.newer.count >= capacity / 2 {
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
