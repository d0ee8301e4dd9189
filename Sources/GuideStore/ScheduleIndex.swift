import Foundation
import GuideCore

/// Every channel's programmes as (start, stop, id) and, beside them, their (title, body), in memory, in (start, stop,
/// id) order; SQLite reads all five from its `programme_by_channel` index.
///
/// Now/next asks two questions per channel ("what started last before T and is still on", "what starts after
/// it"). Asked of SQLite, that is four B-tree operations per channel, ~1.5 µs each, 16-20 ms for 3,000 channels;
/// here it is two binary searches per channel, and SQLite only fetches the rows found. A search checks the title and
/// body ids here (``SearchPlan``); kept apart from the times, a search that reads every programme reads 8 bytes of
/// each, not 32. 32 bytes per programme (56 MB for 1.75 M), loaded once per change of the listings
/// (``generation``) in ~0.1 s per 700,000.
package struct ScheduleIndex: Sendable {
    package struct Entry: Sendable {
        package var start: Int64
        package var stop: Int64
        package var id: Int64

        package init(start: Int64, stop: Int64, id: Int64) {
            (self.start, self.stop, self.id) = (start, stop, id)
        }
    }

    /// A programme's title and body (0: none) ids, or ``unknownText`` for one too large to keep here.
    package struct Texts: Sendable {
        package var title: Int32
        package var body: Int32

        /// What an entry holds for a text id past `Int32`: a search takes it as maybe matching, for the store to check.
        package static let unknownText = Int32.max

        package init(title: Int64, body: Int64) {
            self.title = Int32(exactly: title) ?? Self.unknownText
            self.body = Int32(exactly: body) ?? Self.unknownText
        }
    }

    package struct Slot: Sendable {
        package var channel: ChannelID
        package var entries: Range<Int>

        package init(channel: ChannelID, entries: Range<Int>) {
            (self.channel, self.entries) = (channel, entries)
        }
    }

    /// The `guide_state.generation` the index was read at.
    package let generation: Int64
    /// Channels in guide order, each with its span of ``entries``.
    package let slots: [Slot]
    package let entries: [Entry]
    /// Each entry's texts, at the same index.
    package let texts: [Texts]
    /// The longest programme: how far back "on now" has to look.
    package let longest: Int64
    /// Where each channel is in ``slots``.
    package let slotIndex: [ChannelID: Int]

    /// `texts` has one element for each of `entries` (the shorter count is kept).
    package init(generation: Int64, slots: [Slot], entries: [Entry], texts: [Texts], longest: Int64) {
        self.generation = generation
        self.slots = slots
        let count = min(entries.count, texts.count)
        self.entries = entries.count == count ? entries : Array(entries.prefix(count))
        self.texts = texts.count == count ? texts : Array(texts.prefix(count))
        self.longest = longest
        slotIndex = Dictionary(slots.enumerated().map { ($1.channel, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The slots of `channels` in that order (an unknown channel gets an empty slot), or every slot.
    package func slots(for channels: [ChannelID]?) -> [Slot] {
        guard let channels else { return slots }
        return channels.map { channel in slotIndex[channel].map { slots[$0] } ?? Slot(channel: channel, entries: 0..<0) }
    }

    /// From the first start to the stop of the last programme to start, over every channel; nil with none. Read here
    /// rather than of the store: two index seeks per channel were 20,000 page reads for 10,000 channels, most of the
    /// grid's time (issue 46).
    package var coverage: TimeWindow? {
        var first: Int64?, last: Int64?
        for slot in slots where !slot.entries.isEmpty {
            let head = entries[slot.entries.lowerBound], tail = entries[slot.entries.upperBound - 1]
            first = min(first ?? head.start, head.start)
            last = max(last ?? tail.stop, tail.stop)
        }
        guard let first, let last else { return nil }
        return TimeWindow(start: Date(unixSeconds: first), end: Date(unixSeconds: last))
    }

    /// The ids of the programmes in `slot` that overlap `start..<end` (a zero-length one counts when it is inside),
    /// by start.
    func window(_ slot: Slot, from start: Int64, to end: Int64) -> [Int64] {
        var ids: [Int64] = []
        var index = firstIndex(in: slot.entries) { $0.start >= start - longest }
        while index < slot.entries.upperBound, entries[index].start < end {
            let entry = entries[index]
            if entry.stop > start || (entry.stop == entry.start && entry.start >= start) { ids.append(entry.id) }
            index += 1
        }
        return ids
    }

    /// The ids of what is on at `time` (`start <= time < stop`) and what follows it, for each slot.
    package func nowNext(at time: Int64, in slots: [Slot]) -> [Found] {
        slots.map { slot in
            let range = slot.entries
            // Walking back from the last start at or before `time`, in the index's descending order, the first one
            // still running is on now; nothing that started more than `longest` ago can be.
            let after = firstIndex(in: range) { $0.start > time }
            var index = after
            var now: Entry?
            while index > range.lowerBound {
                index -= 1
                let entry = entries[index]
                if entry.start < time - longest { break }
                if entry.stop > time {
                    now = entry
                    break
                }
            }
            // Next: the first programme of non-zero length starting when the current one stops.
            let from = now?.stop ?? time + 1
            var next = firstIndex(in: range) { $0.start >= from }
            while next < range.upperBound, entries[next].stop <= entries[next].start { next += 1 }
            // The answer holds until the current programme stops or any programme starts (one starting inside the
            // current one is on from then); the next one starts no earlier than either.
            let holds = min(now?.stop ?? .max, after < range.upperBound ? entries[after].start : .max)
            return Found(channel: slot.channel, now: now?.id, next: next < range.upperBound ? entries[next].id : nil, holdsUntil: holds)
        }
    }

    /// A channel's now and next at an instant, by id, and the instant until which that answer holds (`Int64.max`:
    /// until the listings change).
    package struct Found: Sendable {
        package var channel: ChannelID
        package var now: Int64?
        package var next: Int64?
        package var holdsUntil: Int64
    }

    /// The first index in `range` whose entry satisfies `isAfter`, which must be false then true along the range.
    /// The range's first entry is asked first: a search of the past starts each channel there, and halving from
    /// the middle of each of 10,000 channels cost a cache miss a probe.
    func firstIndex(in range: Range<Int>, where isAfter: (Entry) -> Bool) -> Int {
        var low = range.lowerBound, high = range.upperBound
        if low < high, isAfter(entries[low]) { return low }
        while low < high {
            let middle = (low + high) / 2
            if isAfter(entries[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension Array {
    /// The elements in an array of their own size: one grown by appending may hold up to twice its count (67 MB, not
    /// 56, for 1.75 M programmes' entries), kept for as long as the listings do not change.
    package func exactly() -> [Element] {
        withUnsafeBufferPointer { Array($0) }
    }
}
