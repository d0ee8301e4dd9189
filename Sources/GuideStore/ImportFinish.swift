import Foundation
import GuideCore

/// The end of an import both stores share: the session has inserted, repaired and replaced its rows, and this
/// merges the channels it touched, records the run and moves the generation on, in the import's transaction.
package struct ImportFinish: Sendable {
    package var source: SourceName
    package var sourceID: Int64
    package var importID: Int64
    /// Channels whose listings the import changed (stored or retired): they are merged again.
    package var touchedChannels: [Int64]
    package var channels: Int
    package var programmes: Int
    package var replaced: Int
    package var issues: IssueLog

    package init(source: SourceName, sourceID: Int64, importID: Int64, touchedChannels: [Int64], channels: Int,
                 programmes: Int, replaced: Int, issues: IssueLog) {
        (self.source, self.sourceID, self.importID, self.touchedChannels) = (source, sourceID, importID, touchedChannels)
        (self.channels, self.programmes, self.replaced, self.issues) = (channels, programmes, replaced, issues)
    }

    package func run(_ db: some SQLStatements) async throws -> ImportSummary {
        let started = try await db.value("SELECT started_at FROM import_run WHERE id = \(importID)", as: Int64.self) ?? 0
        let hidden = try await SourceMerge.remerge(db, channels: touchedChannels, counting: sourceID, at: Date(unixSeconds: started))
        try await db.execute("""
            UPDATE import_run SET channels = \(channels), programmes = \(programmes), issues = \(issues.total) WHERE id = \(importID)
            """)
        try await db.execute("UPDATE guide_state SET generation = generation + 1")
        try await db.execute("""
            UPDATE source SET imported_at = (SELECT started_at FROM import_run WHERE id = \(importID)) WHERE id = \(sourceID)
            """)
        return ImportSummary(source: source, channels: channels, programmes: programmes, replaced: replaced, hidden: hidden,
                             issues: issues, importedAt: Date(unixSeconds: started))
    }
}
