import Foundation
import GRDB
import GRDBSQLite
import GuideCore
import GuideStore

extension SQLiteImportSession {
    /// Walks the new programmes channel by channel and applies the documented repairs (``ListingRepair``).
    /// Returns how many rows it deleted.
    func repair() throws -> Int {
        var repair = ListingRepair(issues: issues)
        // In the programme index's own order (stop before id within a start), so SQLite needs no sort.
        let rows = DirectBinding(try db.makeStatement(sql: """
            SELECT id, channel_key, start, stop, stop_known, title, clump, line FROM programme
            WHERE id >= ? ORDER BY channel_key, start, stop, id
            """))
        rows.reset()
        rows.bind(1, firstNewID)
        try rows.forEachRow(db) { row in
            let key = sqlite3_column_int64(row, 1)
            let airing = ListingRepair.Airing(
                id: sqlite3_column_int64(row, 0), start: sqlite3_column_int64(row, 2), stop: sqlite3_column_int64(row, 3),
                isStopKnown: sqlite3_column_int64(row, 4) == 1, title: DirectBinding.text(row, 5) ?? "",
                clump: DirectBinding.text(row, 6),
                line: sqlite3_column_type(row, 7) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(row, 7)))
            repair.add(airing, channelKey: key, channel: tally.channelIDs[key])
        }
        repair.finish()
        issues = repair.issues

        let updateStop = try db.makeStatement(sql: "UPDATE programme SET stop = ?, stop_known = 1 WHERE id = ?")
        for change in repair.stops {
            try updateStop.execute(arguments: [change.stop, change.id])
        }
        let delete = try db.makeStatement(sql: "DELETE FROM programme WHERE id = ?")
        for id in repair.duplicates {
            try delete.execute(arguments: [id])
        }
        return repair.duplicates.count
    }
}
