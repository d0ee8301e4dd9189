import Foundation
import GRDB
import GuideCore
import GuideStore

extension SQLiteImportSession {
    /// Applies the documented repairs (``ListingRepair``) to this import's rows; how many it deleted.
    func repair() throws -> Int {
        let repair = airings.repairs(issues: issues, channels: tally.channelIDs)
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
