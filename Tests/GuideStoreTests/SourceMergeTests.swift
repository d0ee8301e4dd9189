import Foundation
import GRDB
import GuideCore
@testable import GuideStore
@testable import GuideStoreSQLite
import Testing

/// The merge rule alone: per channel and time the higher priority wins, lower sources fill whole gaps only.
@Suite struct SourceMergeTests {
    typealias Row = SourceMerge.Row

    func row(_ id: Int64, _ start: Int64, _ stop: Int64, priority: Int, source: Int64) -> Row {
        Row(id: id, start: start, stop: stop, priority: priority, source: source, hidden: false)
    }

    @Test func higherPriorityWinsAndLowerFillsWholeGaps() {
        let rows = [
            // High: 0-60 and 120-180, a gap from 60 to 120.
            row(1, 0, 60, priority: 10, source: 2), row(2, 120, 180, priority: 10, source: 2),
            // Low: a duplicate of the first, one that fits the gap, one that overlaps the gap's end, one after all.
            row(3, 0, 60, priority: 0, source: 1), row(4, 60, 90, priority: 0, source: 1),
            row(5, 90, 130, priority: 0, source: 1), row(6, 180, 240, priority: 0, source: 1),
        ]
        #expect(SourceMerge.hidden(rows) == [3, 5])
    }

    @Test func equalPrioritiesGoToTheSourceConfiguredFirst() {
        let rows = [row(1, 0, 60, priority: 5, source: 7), row(2, 30, 90, priority: 5, source: 3)]
        #expect(SourceMerge.hidden(rows) == [1])
    }

    @Test func zeroLengthProgrammesNeverHideAndHideOnlyInsideAnother() {
        let rows = [
            row(1, 60, 60, priority: 10, source: 1),     // a marker: hides nothing
            row(2, 0, 120, priority: 0, source: 2),      // shown
            row(3, 200, 260, priority: 10, source: 1),
            row(4, 230, 230, priority: 0, source: 2),    // inside a higher programme: hidden
            row(5, 260, 260, priority: 0, source: 2),    // at its stop: shown
        ]
        #expect(SourceMerge.hidden(rows) == [4])
    }

    @Test func aThirdSourceSeesWhatBothAboveItShow() {
        let rows = [row(1, 0, 60, priority: 3, source: 1), row(2, 60, 120, priority: 2, source: 2),
                    row(3, 30, 90, priority: 1, source: 3), row(4, 120, 150, priority: 1, source: 3)]
        #expect(SourceMerge.hidden(rows) == [3])
    }

    /// Showing all of the channels one source is left with reads the hidden programmes alone, not every programme of
    /// those channels (SQLite's plan of the statement the merge runs).
    @Test func showingAChannelWholeReadsOnlyItsHiddenProgrammes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("merge-plan-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteListingStore(path: folder.appendingPathComponent("guide.sqlite").path, now: { Date() })
        let (text, arguments) = SQLiteStatements.render(SourceMerge.showingAll([1, 2, 3]))
        let plan = try await store.pool.read { db in
            try GRDB.Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + text, arguments: arguments)
                .map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING INDEX programme_hidden") }, "\(plan)")
        #expect(!plan.contains { $0.contains("programme_by_channel") }, "\(plan)")
    }
}

