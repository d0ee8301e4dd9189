/// When an import drops the titles and bodies (sub-titles and descriptions) no programme points at any more, in both
/// stores. Finding them reads every programme, as no index by title or body is kept (v31): 0.4-1.4 s at 1.75 M
/// programmes, in a refresh whose own work may be a seventh of that guide. So it waits, as PostgreSQL's autovacuum
/// waits for a share of a table's rows to be dead, until the programmes dropped since the last prune reach a quarter
/// of those stored. What waits is bounded by what that quarter used, and no reader shows it: every search and page
/// reaches a title or body through a programme that points at it, and an import that meets one of those texts again
/// uses it rather than adding it twice.
///
/// Both counts live in `guide_state` (v35), moved on by each import and source removal in its transaction; counting
/// the programmes instead took PostgreSQL 0.34 s at 1.75 M. The prune reads every programme anyway and sets the
/// stored count from what it read, so a count that drifted is put right there.
package struct TextPrune: Equatable, Sendable {
    /// Programmes stored for each one dropped before a prune is due.
    package static let storedPerDropped: Int64 = 4

    /// The programmes stored (`guide_state.stored_programmes`).
    package private(set) var stored: Int64
    /// The programmes dropped since the last prune (`guide_state.dropped_since_prune`).
    package private(set) var dropped: Int64

    package init(stored: Int64, dropped: Int64) {
        (self.stored, self.dropped) = (stored, dropped)
    }

    /// Counts an import that moved the number of programmes stored by `change` and dropped `more` (stored ones it
    /// replaced, and its own it found twice). True when the texts are to be pruned now, and after that
    /// ``pruned(stored:)`` says how many programmes the prune read. Counts that do not add up (below 0, or past
    /// Int64) prune at once, which counts again.
    package mutating func count(change: Int, dropped more: Int) -> Bool {
        let (stored, storedOverflow) = stored.addingReportingOverflow(Int64(clamping: change))
        let (dropped, droppedOverflow) = dropped.addingReportingOverflow(Int64(clamping: more))
        guard !storedOverflow, !droppedOverflow, stored >= 0, dropped >= 0, more >= 0 else { return true }
        (self.stored, self.dropped) = (stored, dropped)
        let (share, shareOverflow) = dropped.multipliedReportingOverflow(by: Self.storedPerDropped)
        return more > 0 && (shareOverflow || share >= stored)
    }

    /// After a prune that read `stored` programmes: the count starts over.
    package mutating func pruned(stored: Int64) {
        (self.stored, dropped) = (max(stored, 0), 0)
    }
}
