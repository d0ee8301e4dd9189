import GuideCore
import Synchronization

/// Programme summaries as JSON (``ProgrammeSummary``), kept for the listings they were written from: `/api/now` asked
/// at a new instant names almost the programmes it named the minute before, and writing 20,000 summaries was most of
/// its 55-75 ms for 10,000 channels; the guide window's pages name the same programmes again too. At most
/// ``mostBytes`` are kept; when they are full they start again.
///
/// A summary is kept under the listings' generation its route saw before asking the store; an import landing between
/// the two can file a newer summary of a programme under the older generation, as ``NowNextAnswers`` can an answer:
/// what is served is then newer, never older, and the next request after the import sees the new generation and
/// starts again.
final class SummaryFragments: Sendable {
    static let mostBytes = 8 << 20

    fileprivate struct Kept {
        var generation = Int64.min
        var bytes: [UInt8] = []
        var spans: [Int64: Range<Int>] = [:]
    }

    /// The summaries one answer uses: those kept when it began, and those it writes.
    struct Use {
        fileprivate var kept: Kept
        fileprivate var written = Kept()

        /// Whether a summary was kept for a programme when this answer began: what the store need not read for it.
        var isKept: @Sendable (ProgrammeID) -> Bool {
            let spans = kept.spans
            return { spans[$0.rawValue] != nil }
        }

        /// Writes the summary of the programme `id` names (null for none) as kept, or else `stored()`'s. The caller
        /// reads the id where the programme lies: handing the programme over copies it, a reference count for each of
        /// its texts, and at 10,000 channels `/api/now` spent a tenth of its time on those when all its summaries were
        /// kept.
        mutating func write(_ id: ProgrammeID?, into json: inout JSONWriter, else stored: () -> StoredProgramme?) {
            guard let id = id?.rawValue else { return json.null() }
            guard !writeKept(id, into: &json) else { return }
            switch stored() {
            case .some(let programme): writeNew(programme, id: id, into: &json)
            case .none: json.null()
            }
        }

        /// Writes `programme`'s summary into `json`, as kept when it is.
        mutating func write(_ programme: borrowing StoredProgramme, into json: inout JSONWriter) {
            let id = programme.id.rawValue
            guard !writeKept(id, into: &json) else { return }
            writeNew(programme, id: id, into: &json)
        }

        /// Writes the summary kept for `id`, if one is; whether it did.
        private func writeKept(_ id: Int64, into json: inout JSONWriter) -> Bool {
            if let span = kept.spans[id] { json.written(kept.bytes[span]) } else if let span = written.spans[id] {
                json.written(written.bytes[span])
            } else {
                return false
            }
            return true
        }

        /// Writes `programme`'s summary (of `id`, none kept) and keeps it while the bound allows.
        private mutating func writeNew(_ programme: borrowing StoredProgramme, id: Int64, into json: inout JSONWriter) {
            let start = json.count
            ProgrammeSummary.write(programme, into: &json)
            let value = json.value(since: start)
            // An answer's summaries past the bound are written, not held twice (a 48-hour window can run to 20 MB).
            guard written.bytes.count + value.count <= SummaryFragments.mostBytes else { return }
            written.spans[id] = written.bytes.count..<(written.bytes.count + value.count)
            written.bytes.append(contentsOf: value)
        }
    }

    private let kept = Mutex(Kept())

    /// The summaries kept for `generation`'s listings, to write an answer with.
    func use(generation: Int64) -> Use {
        let kept = kept.withLock { $0 }
        return Use(kept: kept.generation == generation ? kept : Kept(generation: generation),
                   written: Kept(generation: generation))
    }

    /// Keeps the summaries `use` wrote, unless the listings have moved on since. `use` is emptied first, so that the
    /// kept bytes it shared are not copied when more are added to them.
    func keep(_ use: inout Use) {
        let written = use.written
        use = Use(kept: Kept(), written: Kept())
        guard !written.spans.isEmpty, written.bytes.count <= Self.mostBytes else { return }
        kept.withLock { kept in
            guard written.generation >= kept.generation else { return }
            if written.generation > kept.generation || kept.bytes.count + written.bytes.count > Self.mostBytes {
                kept = written
                return
            }
            let offset = kept.bytes.count
            kept.bytes.append(contentsOf: written.bytes)
            for (id, span) in written.spans where kept.spans[id] == nil {
                kept.spans[id] = (span.lowerBound + offset)..<(span.upperBound + offset)
            }
        }
    }

    /// How many summaries are kept and their bytes.
    var size: (summaries: Int, bytes: Int) {
        kept.withLock { ($0.spans.count, $0.bytes.count) }
    }
}
