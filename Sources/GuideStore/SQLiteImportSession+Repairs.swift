import Foundation
import GRDB
import GuideCore

extension SQLiteImportSession {
    private struct Airing {
        var id: Int64
        var start: Int64
        var stop: Int64
        var isStopKnown: Bool
        var title: String
        var line: Int?
    }

    /// Walks the new programmes channel by channel in start order and applies the documented repairs:
    /// missing stop = next start, duplicates dropped, overlaps cut, zero lengths reported.
    /// Returns how many rows it deleted.
    func repair() throws -> Int {
        var stops: [(id: Int64, stop: Int64)] = []
        var duplicates: [Int64] = []
        var channel: String?
        var previous: Airing?
        var open: [Airing] = []

        func closeChannel() {
            for airing in open {
                issues.record(.stopUnknown) { ListingIssue(kind: .stopUnknown, line: airing.line, channel: channel.map { ChannelID($0) },
                                           start: date(airing.start), title: airing.title,
                                           message: "no stop time and nothing after it on the channel; shown until \(iso(airing.stop))") }
            }
            open.removeAll()
            previous = nil
        }

        let rows = try Row.fetchCursor(db, sql: """
            SELECT id, channel_id, start, stop, stop_known, title, line FROM programme
            WHERE import_id = ? ORDER BY channel_id, start, id
            """, arguments: [importID])
        while let row = try rows.next() {
            let rowChannel: String = row[1]
            let airing = Airing(id: row[0], start: row[2], stop: row[3], isStopKnown: row[4] == 1, title: row[5], line: row[6])
            if rowChannel != channel {
                closeChannel()
                channel = rowChannel
            }
            let channelID = ChannelID(rowChannel)
            if let earlier = previous, earlier.start == airing.start, earlier.title == airing.title {
                duplicates.append(airing.id)
                issues.record(.duplicate) { ListingIssue(kind: .duplicate, line: airing.line, channel: channelID, start: date(airing.start),
                                           title: airing.title, message: "the same programme again at the same time; the copy was skipped") }
                continue
            }
            if let first = open.first, airing.start > first.start {
                for waiting in open {
                    stops.append((waiting.id, airing.start))
                    issues.record(.stopFromNextStart) { ListingIssue(kind: .stopFromNextStart, line: waiting.line, channel: channelID,
                                               start: date(waiting.start), title: waiting.title,
                                               message: "no stop time; it ends when the next programme starts, \(iso(airing.start))") }
                }
                if previous.map({ !$0.isStopKnown }) == true {
                    previous?.stop = airing.start
                    previous?.isStopKnown = true
                }
                open.removeAll()
            }
            let isZeroLength = airing.isStopKnown && airing.stop == airing.start
            if var earlier = previous, earlier.isStopKnown, airing.start > earlier.start, airing.start < earlier.stop,
               !isZeroLength {
                issues.record(.overlap) { ListingIssue(kind: .overlap, line: earlier.line, channel: channelID, start: date(earlier.start),
                                           title: earlier.title,
                                           message: "overlaps \"\(airing.title)\" at \(iso(airing.start)); cut to end there (it said \(iso(earlier.stop)))") }
                earlier.stop = airing.start
                stops.append((earlier.id, airing.start))
                previous = earlier
            }
            if !airing.isStopKnown {
                open.append(airing)
            } else if isZeroLength {
                issues.record(.zeroLength) { ListingIssue(kind: .zeroLength, line: airing.line, channel: channelID, start: date(airing.start),
                                           title: airing.title, message: "starts and stops at the same time; kept, never shown as on now") }
            }
            if !isZeroLength || previous == nil { previous = airing }
        }
        closeChannel()

        let updateStop = try db.makeStatement(sql: "UPDATE programme SET stop = ?, stop_known = 1 WHERE id = ?")
        for change in stops {
            try updateStop.execute(arguments: [change.stop, change.id])
        }
        let delete = try db.makeStatement(sql: "DELETE FROM programme WHERE id = ?")
        for id in duplicates {
            try delete.execute(arguments: [id])
        }
        return duplicates.count
    }

    private func iso(_ seconds: Int64) -> String {
        CivilTime.iso8601(date(seconds))
    }

    private func date(_ seconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
