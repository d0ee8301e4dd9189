import GuideCore

/// The repairs (``ListingRepair``) of an import's new rows, worked out as its session inserts them, so that what the
/// import holds does not grow with the guide: guides list a channel's programmes together (a "run"), so a run is
/// repaired when the next channel's begins and only its last slot is kept, open, for a later run of the same channel
/// to join or end. Settled at ``finish()``.
///
/// A run that comes back earlier than its channel's open slot (one channel in one of the eight real guides does) cannot
/// continue where the channel stopped: that channel is repaired again at the end, over all its rows of the import as
/// the store holds them then (``channelsToReread``, ``repairAgain(_:rows:)``). Its rows settled before keep their repairs
/// and are not reported twice; a stop settled from the next start and then cut by a row that came later is reported
/// as an overlap.
package struct ImportRepairs {
    private struct Reread {
        var name: ChannelID?
        /// Rows below this id, but for ``open``, were settled (and reported) before the channel came back.
        var settledBelow: Int64
        var open: Set<Int64>
    }

    private var repair: ListingRepair
    private var runKey: Int64?
    private var runName: ChannelID?
    private var run: [ListingRepair.Airing] = []
    /// Each channel's last slot, with its name.
    private var open: [Int64: (name: ChannelID?, slot: [ListingRepair.Airing])] = [:]
    private var reread: [Int64: Reread] = [:]
    /// Rows the repairs deleted.
    package private(set) var deleted = 0

    package init() {
        repair = ListingRepair(issues: IssueLog())
    }

    /// What the repairs reported.
    package var issues: IssueLog { repair.issues }

    /// The channels to repair again at the end, their rows read back from the store.
    package var channelsToReread: [Int64] { reread.keys.sorted() }

    /// The next row as inserted, of channel `key` (named `name`).
    package mutating func add(_ airing: ListingRepair.Airing, channel key: Int64, named name: ChannelID?) {
        if key != runKey {
            endRun()
            runKey = key
            runName = name
        }
        run.append(airing)
    }

    /// Whether stops or deletions wait to be taken.
    package var hasChanges: Bool { !repair.stops.isEmpty || !repair.duplicates.isEmpty }

    /// The stops and deletions decided so far, handed over once for the store to apply.
    package mutating func takeChanges() -> (stops: [(id: Int64, stop: Int64)], duplicates: [Int64]) {
        let changes = repair.takeChanges()
        deleted += changes.duplicates.count
        return changes
    }

    /// Forgets the rows of channels whose listings the import deleted again (a source's retired channels).
    package mutating func forget(channels retired: Set<Int64>) {
        guard !retired.isEmpty else { return }
        if let runKey, retired.contains(runKey) {
            run.removeAll()
            self.runKey = nil
        }
        for key in retired {
            open[key] = nil
            reread[key] = nil
        }
    }

    /// Ends channel `key`'s rows so far: its next slot, not handed over, starts at `nextStart` (``ListingRepair/end(nextStart:cuts:)``).
    package mutating func end(_ key: Int64, nextStart: Int64?, cuts: Bool) {
        if runKey == key { endRun() }
        guard let (name, slot) = open.removeValue(forKey: key) else { return }
        for airing in slot { repair.add(airing, channelKey: key, channel: name) }
        repair.end(nextStart: nextStart, cuts: cuts)
    }

    /// Settles every open slot (each the end of its channel); then repair the channels to read back.
    package mutating func finish() {
        endRun()
        for key in open.keys.sorted() {
            guard let (name, slot) = open[key] else { continue }
            for airing in slot { repair.add(airing, channelKey: key, channel: name) }
        }
        repair.finish()
        open.removeAll()
    }

    /// Repairs one of ``channelsToReread`` over all its rows of the import, in any order, once the changes taken
    /// so far are applied.
    package mutating func repairAgain(_ key: Int64, rows: [ListingRepair.Airing]) {
        guard let entry = reread.removeValue(forKey: key) else { return }
        for var airing in rows.sorted(by: ListingRepair.Airing.inOrder) {
            airing.isSettled = airing.id < entry.settledBelow && !entry.open.contains(airing.id)
            repair.add(airing, channelKey: key, channel: entry.name)
        }
        repair.finish()
    }

    private mutating func endRun() {
        guard let key = runKey, !run.isEmpty else { return }
        defer {
            run.removeAll(keepingCapacity: true)
            runKey = nil
        }
        guard reread[key] == nil else { return }
        // Guides list a channel in order: checked first, a run is seldom sorted, and its rows are read in place.
        let inOrder = ListingRepair.Airing.inOrder
        if run.indices.dropFirst().contains(where: { inOrder(run[$0], run[$0 - 1]) }) { run.sort(by: inOrder) }
        if let earlier = open.removeValue(forKey: key) {
            guard let resumed = earlier.slot.first?.start, run[0].start >= resumed else {
                reread[key] = Reread(name: runName ?? earlier.name, settledBelow: run.map(\.id).min() ?? .max,
                                     open: Set(earlier.slot.map(\.id)))
                return
            }
            run = (earlier.slot + run).sorted(by: inOrder)
        }
        for index in run.indices { repair.add(run[index], channelKey: key, channel: runName) }
        open[key] = (runName, repair.takeOpenSlot())
    }
}

/// How many folded titles (and, apart, bodies) an import session remembers with their ids before it forgets them all
/// and asks the store again: a guide repeats far fewer than this, and a high-cardinality one (a title for every other
/// programme) no longer grows the import's memory with its size.
package enum TextCache {
    package static let limit = 100_000
}
