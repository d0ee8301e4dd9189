import Foundation
import GuideCore

/// The documented repairs (docs/repairs.md) of one import's new programmes, the rules `tv_sort` follows, worked out
/// without a database: a store hands over its new rows channel by channel, in (start, stop, id) order, and applies the
/// stops and deletions this decides.
/// - a missing stop is the earliest known stop in its slot (a clump shares its slot), else the next slot's start;
/// - the same title at the same start and stop (and clump position) again is a duplicate; a copy without a stop
///   counts as the same, and the one without a stop goes;
/// - a programme still running when the next slot starts is cut there (zero-length ones never cut anything);
/// - zero-length programmes are kept and reported.
package struct ListingRepair {
    package struct Airing {
        package var id: Int64
        var start: Int64
        var stop: Int64
        var isStopKnown: Bool
        var title: String
        var clump: String?
        var line: Int?
        /// Settled (and reported) by an earlier pass over part of its channel (``ImportRepairs``).
        var isSettled = false

        package init(id: Int64, start: Int64, stop: Int64, isStopKnown: Bool, title: String, clump: String?, line: Int?) {
            (self.id, self.start, self.stop, self.isStopKnown, self.title, self.clump, self.line) =
                (id, start, stop, isStopKnown, title, clump, line)
        }

        /// The order a channel's rows are repaired in.
        static func inOrder(_ left: Airing, _ right: Airing) -> Bool {
            (left.start, left.stop, left.id) < (right.start, right.stop, right.id)
        }
    }

    /// New stops for rows, by id.
    package private(set) var stops: [(id: Int64, stop: Int64)] = []
    /// Rows to delete.
    package private(set) var duplicates: [Int64] = []
    package private(set) var issues: IssueLog
    private var channelKey: Int64?
    private var channel: ChannelID?
    /// The programmes starting at one time (a "slot").
    private var slot: [Airing] = []
    /// The previous slot's programmes, once their stops are settled.
    private var previous: [Airing] = []

    package init(issues: IssueLog) {
        self.issues = issues
    }

    /// The next row: of channel `key` (named `channel`), in order.
    package mutating func add(_ airing: Airing, channelKey key: Int64, channel name: ChannelID?) {
        if key != channelKey {
            settle(nextStart: nil)
            previous.removeAll()
            channelKey = key
            channel = name
        } else if let current = slot.first, airing.start != current.start {
            settle(nextStart: airing.start)
            // A zero-length programme marks an instant; it does not end what is running.
            let isZeroLength = airing.isStopKnown && airing.stop == airing.start
            if !isZeroLength { cutOverlaps(at: airing.start) }
        }
        slot.append(airing)
    }

    /// Settles the last slot; call after the last row.
    package mutating func finish() {
        settle(nextStart: nil)
    }

    /// Ends the channel's rows here: the next slot, not handed over (its row is stored already), starts at `nextStart`
    /// (nil: none), and cuts what is still running then unless it is zero-length. The next row starts afresh.
    package mutating func end(nextStart: Int64?, cuts: Bool) {
        settle(nextStart: nextStart)
        if let nextStart, cuts { cutOverlaps(at: nextStart) }
        slot = []
        previous.removeAll()
        channelKey = nil
        channel = nil
    }

    /// The last slot of the channel, left open (a later row may join it or end it), and the channel forgotten: the
    /// next row starts afresh.
    package mutating func takeOpenSlot() -> [Airing] {
        defer {
            slot = []
            previous.removeAll()
            channelKey = nil
            channel = nil
        }
        return slot
    }

    /// The stops and deletions decided so far, handed over once.
    package mutating func takeChanges() -> (stops: [(id: Int64, stop: Int64)], duplicates: [Int64]) {
        defer {
            stops.removeAll(keepingCapacity: true)
            duplicates.removeAll(keepingCapacity: true)
        }
        return (stops, duplicates)
    }

    private mutating func settle(nextStart: Int64?) {
        guard let channel else { return }
        // Most slots hold one programme: no duplicates to look for, and no arrays made (the walk is every row).
        if slot.count > 1 { dropDuplicates(in: channel) }
        var clumpStop: Int64?
        for airing in slot where airing.isStopKnown { clumpStop = min(clumpStop ?? airing.stop, airing.stop) }
        for index in slot.indices where !slot[index].isStopKnown {
            let airing = slot[index]
            if let stop = clumpStop ?? nextStart {
                slot[index].stop = stop
                slot[index].isStopKnown = true
                stops.append((airing.id, stop))
                issues.record(.stopFromNextStart) {
                    ListingIssue(kind: .stopFromNextStart, line: airing.line, channel: channel, start: Self.date(airing.start),
                                 title: airing.title,
                                 message: clumpStop != nil
                                    ? Sentence(saying: "no stop time; it shares the stop of the programme beside it, {stop}", ["stop": Self.iso(stop)])
                                    : Sentence(saying: "no stop time; it ends when the next programme starts, {stop}", ["stop": Self.iso(stop)]))
                }
            } else {
                issues.record(.stopUnknown) {
                    ListingIssue(kind: .stopUnknown, line: airing.line, channel: channel, start: Self.date(airing.start),
                                 title: airing.title,
                                 message: Sentence(saying: "no stop time and nothing after it on the channel; shown until {stop}", ["stop": Self.iso(airing.stop)]))
                }
            }
        }
        for airing in slot where airing.isStopKnown && airing.stop == airing.start && !airing.isSettled {
            issues.record(.zeroLength) {
                ListingIssue(kind: .zeroLength, line: airing.line, channel: channel, start: Self.date(airing.start),
                             title: airing.title, message: Sentence(saying: "starts and stops at the same time; kept, never shown as on now"))
            }
        }
        swap(&previous, &slot)
        slot.removeAll(keepingCapacity: true)
    }

    /// Keeps one programme per title and clump position in the slot, preferring one with a stop.
    private mutating func dropDuplicates(in channel: ChannelID) {
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
                    ListingIssue(kind: .duplicate, line: drop.line, channel: channel, start: Self.date(drop.start), title: drop.title,
                                 message: Sentence(saying: "the same programme again at the same time; the copy was skipped"))
                }
            } else {
                kept.append(airing)
            }
        }
        slot = kept
    }

    private mutating func cutOverlaps(at start: Int64) {
        guard let channel else { return }
        for airing in previous where airing.isStopKnown && airing.stop > start && airing.stop != airing.start {
            stops.append((airing.id, start))
            issues.record(.overlap) {
                ListingIssue(kind: .overlap, line: airing.line, channel: channel, start: Self.date(airing.start), title: airing.title,
                             message: Sentence(saying: "still running when the next programme starts at {start}; cut to end there (it said {stop})",
                                              ["start": Self.iso(start), "stop": Self.iso(airing.stop)]))
            }
        }
    }

    private static func iso(_ seconds: Int64) -> String {
        CivilTime.iso8601(date(seconds))
    }

    private static func date(_ seconds: Int64) -> Date {
        Date(unixSeconds: seconds)
    }
}
