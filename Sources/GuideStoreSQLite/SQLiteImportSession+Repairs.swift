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
                SELECT id, start, stop, stop_known, details, clump, line FROM programme
                WHERE import_id = ? AND channel_key = ?
                """, arguments: [importID, key])
            repairs.repairAgain(key, rows: try rows.map { row in
                let details: Data = row[4]
                guard let title = details.withUnsafeBytes(DetailsCodec.title(of:)) else {
                    throw DatabaseError(message: "programme \(row[0] as Int64) of this import has unreadable details")
                }
                return ListingRepair.Airing(id: row[0], start: row[1], stop: row[2], isStopKnown: row[3], title: title,
                                            clump: row[5], line: row[6])
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
        var replaced = try delete(deleteRunningInto, channel, part.first, part.first)
        for span in part.replaced(through: end) {
            replaced += try delete(deleteStartingWithin, channel, span.lowerBound, span.upperBound)
        }
        return replaced
    }

    /// Runs one of the part's deletes for `channel` (this source's rows of other imports) between `first` and `last`,
    /// bound directly (two a channel: through GRDB, each looked up its cached statement and boxed its arguments).
    private func delete(_ statement: DirectBinding, _ channel: Int64, _ first: Int64, _ last: Int64) throws -> Int {
        statement.reset()
        statement.bind(1, sourceID)
        statement.bind(2, channel)
        statement.bind(3, importID)
        statement.bind(4, first)
        statement.bind(5, last)
        try statement.step(db)
        return db.changesCount
    }

    /// Moves `guide_state`'s counts of programmes stored and dropped on by this import's, and prunes the texts no
    /// programme uses when that is due (``TextPrune``).
    func countProgrammes(change: Int, dropped: Int) throws {
        // As integers whatever the columns hold (a file edited by hand may hold 1e308 or text there): a value GRDB
        // could not read as Int64 would stop the process. TextPrune prunes at once on counts that do not add up.
        let row = try Row.fetchOne(db, sql: """
            SELECT coalesce(CAST(stored_programmes AS INTEGER), 0), coalesce(CAST(dropped_since_prune AS INTEGER), 0)
            FROM guide_state
            """)
        let stored: Int64 = row?[0] ?? 0, pending: Int64 = row?[1] ?? 0
        var counts = TextPrune(stored: stored, dropped: pending)
        if counts.count(change: change, dropped: dropped) { counts.pruned(stored: try pruneTexts()) }
        try db.execute(sql: "UPDATE guide_state SET stored_programmes = ?, dropped_since_prune = ?",
                       arguments: [counts.stored, counts.dropped])
        // The source's own count (v44), which only its imports and its removal move; one edited to text or past
        // 2^62 is read within range, so the sum stays an integer.
        try db.execute(sql: """
            UPDATE source SET stored_programmes = max(0, min(CAST(stored_programmes AS INTEGER), 1 << 62) + ?)
            WHERE id = ?
            """, arguments: [change, sourceID])
    }

    /// Drops the titles and bodies no programme points at any more, and writes their trigram indexes anew: listings
    /// replaced day after day would otherwise leave every old episode's description in the search index for good.
    /// Which are still used comes from one pass over the programmes' channel index, which holds both ids (no index
    /// by title or body is kept, v31: every row written or replaced paid for both). Returns how many programmes it
    /// read.
    func pruneTexts() throws -> Int64 {
        var programmes: Int64 = 0
        var usedTitles = try UsedIDs(upTo: Int64.fetchOne(db, sql: "SELECT max(id) FROM title") ?? 0)
        var usedBodies = try UsedIDs(upTo: Int64.fetchOne(db, sql: "SELECT max(id) FROM body") ?? 0)
        try DirectBinding(try db.makeStatement(sql: "SELECT title_id, body_id FROM programme INDEXED BY programme_by_channel"))
            .forEachRow(db) { row in
                programmes += 1
                usedTitles.insert(sqlite3_column_int64(row, 0))
                usedBodies.insert(sqlite3_column_int64(row, 1))
            }
        for (table, used) in [("title", usedTitles), ("body", usedBodies)] {
            let orphans = try Int64.fetchAll(db, sql: "SELECT id FROM \(table)").filter { !used.contains($0) }
            guard !orphans.isEmpty else { continue }
            // Two statements for all of them: one statement each took 24 us an orphan (33,000 titles gone in a
            // refresh of one changed day, 0.8 s; 0.2 s so).
            let ids = "[" + orphans.map(String.init).joined(separator: ",") + "]"
            try db.execute(sql: "DELETE FROM \(table) WHERE id IN (SELECT value FROM json_each(?))", arguments: [ids])
            try TrigramIndex.rebuild(db, of: table)
        }
        return programmes
    }
}

/// The ids of one table that programmes use, as bits while the table's ids are dense enough (a set of 1.75 M
/// programmes' ids took 0.15 s of a refresh's end, bits 0.01 s).
struct UsedIDs {
    private var bits: [UInt64]
    private var others: Set<Int64> = []
    /// Ids beyond this, or below 0, go to the set.
    private let most: Int64

    /// `upTo` is the table's largest id; more than 64 M of them are kept in a set.
    init(upTo largest: Int64) {
        most = min(max(largest, 0), 1 << 26)
        bits = Array(repeating: 0, count: Int(most / 64) + 1)
    }

    mutating func insert(_ id: Int64) {
        if id >= 0, id <= most { bits[Int(id / 64)] |= 1 << UInt64(id % 64) } else { others.insert(id) }
    }

    func contains(_ id: Int64) -> Bool {
        id >= 0 && id <= most ? bits[Int(id / 64)] & (1 << UInt64(id % 64)) != 0 : others.contains(id)
    }
}
