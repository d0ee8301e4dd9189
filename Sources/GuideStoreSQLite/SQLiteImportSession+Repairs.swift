import Foundation
import GRDB
import GRDBSQLite
import GuideCore
import GuideStore

extension SQLiteImportSession {
    /// Applies the documented repairs (``ListingRepair``) decided so far to this import's rows.
    func applyRepairs() throws {
        let changes = repairs.takeChanges()
        for change in changes.stops {
            try updateStop.execute(arguments: [change.stop, change.id])
        }
        for id in changes.duplicates {
            try deleteRow.execute(arguments: [id])
        }
    }

    /// Settles the repairs: every channel's last slot, then the channels whose rows came back out of order, read back.
    func finishRepairs() throws {
        repairs.finish()
        try applyRepairs()
        for key in repairs.channelsToReread {
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, start, stop, stop_known, title, clump, line FROM programme WHERE import_id = ? AND channel_key = ?
                """, arguments: [importID, key])
            repairs.repairAgain(key, rows: rows.map {
                ListingRepair.Airing(id: $0[0], start: $0[1], stop: $0[2], isStopKnown: $0[3], title: $0[4], clump: $0[5], line: $0[6])
            })
            try applyRepairs()
        }
        issues.merge(repairs.issues)
    }
}

extension SQLiteImportSession {
    /// Drops what the channels read in part replace (``ListingPart``) that their runs' ends did not
    /// (``replacePart(_:of:through:)``): all of it for a channel whose span reaches past its part's. Returns how many
    /// went.
    func replaceParts(through spans: [Int64: (start: Int64, end: Int64)]) throws -> Int {
        var replaced = 0
        for (channel, part) in parts {
            let end = spans[channel]?.end ?? part.end
            guard !partsReplaced.contains(channel) || end > part.end else { continue }
            replaced += try replacePart(part, of: channel, through: end)
        }
        return replaced
    }

    /// Drops what `channel`'s part replaces through `end`: the rows in its span but for the kept days, and rows running
    /// into its span from before it; never this import's own rows, so it may run at any time during the import, and
    /// again with a later end. Returns how many went.
    func replacePart(_ part: ListingPart, of channel: Int64, through end: Int64) throws -> Int {
        let overlapping = try db.cachedStatement(sql: """
            DELETE FROM programme WHERE source_id = ? AND channel_key = ? AND import_id != ? AND start < ? AND stop > ?
            """)
        let within = try db.cachedStatement(sql: """
            DELETE FROM programme WHERE source_id = ? AND channel_key = ? AND import_id != ? AND start >= ? AND start < ?
            """)
        try overlapping.execute(arguments: [sourceID, channel, importID, part.first, part.first])
        var replaced = db.changesCount
        for span in part.replaced(through: end) {
            try within.execute(arguments: [sourceID, channel, importID, span.lowerBound, span.upperBound])
            replaced += db.changesCount
        }
        return replaced
    }

    /// Drops the titles and bodies no programme points at any more, and their trigrams: listings replaced day after
    /// day would otherwise leave every old episode's description in the search index for good. Which are still used
    /// comes from one pass over the programmes' channel index, which holds both ids (no index by title or body is
    /// kept, v31: every row written or replaced paid for both).
    func pruneTexts() throws {
        var usedTitles = Set<Int64>(), usedBodies = Set<Int64>()
        try DirectBinding(try db.makeStatement(sql: "SELECT title_id, body_id FROM programme INDEXED BY programme_by_channel"))
            .forEachRow(db) { row in
                usedTitles.insert(sqlite3_column_int64(row, 0))
                usedBodies.insert(sqlite3_column_int64(row, 1))
            }
        for (table, used) in [("title", usedTitles), ("body", usedBodies)] {
            let orphans = try Int64.fetchAll(db, sql: "SELECT id FROM \(table)").filter { !used.contains($0) }
            guard !orphans.isEmpty else { continue }
            let text = try db.makeStatement(sql: "SELECT folded FROM \(table) WHERE id = ?")
            let unindex = try db.makeStatement(sql: "INSERT INTO \(table)_search (\(table)_search, rowid, folded) VALUES ('delete', ?, ?)")
            let delete = try db.makeStatement(sql: "DELETE FROM \(table) WHERE id = ?")
            for id in orphans {
                guard let folded = try String.fetchOne(text, arguments: [id]) else { continue }
                try unindex.execute(arguments: [id, folded])
                try delete.execute(arguments: [id])
            }
        }
    }
}
