import Foundation
import GRDB
import GRDBSQLite
import GuideCore

extension SQLiteImportSession {
    private struct Airing {
        var id: Int64
        var start: Int64
        var stop: Int64
        var isStopKnown: Bool
        var title: String
        var clump: String?
        var line: Int?
    }

    /// Walks the new programmes channel by channel, one start time (a "slot") at a time, and applies the documented
    /// repairs (docs/repairs.md), the rules `tv_sort` follows:
    /// - a missing stop is the earliest known stop in its slot (a clump shares its slot), else the next slot's start;
    /// - the same title at the same start and stop (and clump position) again is a duplicate; a copy without a stop
    ///   counts as the same, and the one without a stop goes;
    /// - a programme still running when the next slot starts is cut there (zero-length ones never cut anything);
    /// - zero-length programmes are kept and reported.
    /// Returns how many rows it deleted.
    func repair() throws -> Int {
        var stops: [(id: Int64, stop: Int64)] = []
        var duplicates: [Int64] = []
        var channelKey: Int64?
        var channel: ChannelID?
        var slot: [Airing] = []
        /// The previous slot's programmes, once their stops are settled.
        var previous: [Airing] = []

        func settle(nextStart: Int64?) {
            guard let channel else { return }
            // Duplicates: keep one per title and clump position, preferring one with a stop.
            var kept: [Airing] = []
            for airing in slot {
                if let index = kept.firstIndex(where: {
                    $0.title == airing.title && $0.clump == airing.clump
                        && ($0.stop == airing.stop || !$0.isStopKnown || !airing.isStopKnown)
                }) {
                    var drop = airing
                    if !kept[index].isStopKnown && airing.isStopKnown {
                        drop = kept[index]
                        kept[index] = airing
                    }
                    duplicates.append(drop.id)
                    issues.record(.duplicate) {
                        ListingIssue(kind: .duplicate, line: drop.line, channel: channel, start: date(drop.start), title: drop.title,
                                     message: "the same programme again at the same time; the copy was skipped")
                    }
                } else {
                    kept.append(airing)
                }
            }
            let clumpStop = kept.filter(\.isStopKnown).map(\.stop).min()
            for index in kept.indices where !kept[index].isStopKnown {
                let airing = kept[index]
                if let stop = clumpStop ?? nextStart {
                    kept[index].stop = stop
                    kept[index].isStopKnown = true
                    stops.append((airing.id, stop))
                    issues.record(.stopFromNextStart) {
                        ListingIssue(kind: .stopFromNextStart, line: airing.line, channel: channel, start: date(airing.start),
                                     title: airing.title,
                                     message: clumpStop != nil ? "no stop time; it shares the stop of the programme beside it, \(iso(stop))"
                                         : "no stop time; it ends when the next programme starts, \(iso(stop))")
                    }
                } else {
                    issues.record(.stopUnknown) {
                        ListingIssue(kind: .stopUnknown, line: airing.line, channel: channel, start: date(airing.start),
                                     title: airing.title,
                                     message: "no stop time and nothing after it on the channel; shown until \(iso(airing.stop))")
                    }
                }
            }
            for airing in kept where airing.isStopKnown && airing.stop == airing.start {
                issues.record(.zeroLength) {
                    ListingIssue(kind: .zeroLength, line: airing.line, channel: channel, start: date(airing.start),
                                 title: airing.title, message: "starts and stops at the same time; kept, never shown as on now")
                }
            }
            previous = kept
            slot.removeAll()
        }

        func cutOverlaps(at start: Int64) {
            guard let channel else { return }
            for airing in previous where airing.isStopKnown && airing.stop > start && airing.stop != airing.start {
                stops.append((airing.id, start))
                issues.record(.overlap) {
                    ListingIssue(kind: .overlap, line: airing.line, channel: channel, start: date(airing.start), title: airing.title,
                                 message: "still running when the next programme starts at \(iso(start)); cut to end there (it said \(iso(airing.stop)))")
                }
            }
        }

        // In the programme index's own order (stop before id within a start), so SQLite needs no sort.
        let rows = DirectBinding(try db.makeStatement(sql: """
            SELECT id, channel_key, start, stop, stop_known, title, clump, line FROM programme
            WHERE id >= ? ORDER BY channel_key, start, stop, id
            """))
        rows.reset()
        rows.bind(1, firstNewID)
        try rows.forEachRow(db) { row in
            let rowChannel = sqlite3_column_int64(row, 1)
            let airing = Airing(id: sqlite3_column_int64(row, 0), start: sqlite3_column_int64(row, 2),
                                stop: sqlite3_column_int64(row, 3), isStopKnown: sqlite3_column_int64(row, 4) == 1,
                                title: DirectBinding.text(row, 5) ?? "", clump: DirectBinding.text(row, 6),
                                line: sqlite3_column_type(row, 7) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(row, 7)))
            if rowChannel != channelKey {
                settle(nextStart: nil)
                previous.removeAll()
                channelKey = rowChannel
                channel = channelIDs[rowChannel]
            } else if let current = slot.first, airing.start != current.start {
                settle(nextStart: airing.start)
                // A zero-length programme marks an instant; it does not end what is running.
                let isZeroLength = airing.isStopKnown && airing.stop == airing.start
                if !isZeroLength { cutOverlaps(at: airing.start) }
            }
            slot.append(airing)
        }
        settle(nextStart: nil)

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
