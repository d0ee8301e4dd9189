import Foundation
import GuideCore

/// How a store turns the in-memory schedule into the grid's listings and now/next: the schedule picks the ids, the
/// store fetches their rows in one statement (in the order given), and these put the rows back in place.
extension ScheduleIndex {
    /// The ids of every slot's programmes overlapping `start..<end`, end to end in slot order; `owners` says which
    /// slot each id is of, and slot `i`'s ids end at `ends[i]`.
    package func windows(_ slots: [Slot], from start: Int64, to end: Int64) -> (ids: [Int64], owners: [Int], ends: [Int]) {
        var ids: [Int64] = []
        var owners: [Int] = []
        var ends: [Int] = []
        ends.reserveCapacity(slots.count)
        for (index, slot) in slots.enumerated() {
            ids.append(contentsOf: window(slot, from: start, to: end))
            owners.append(contentsOf: repeatElement(index, count: ids.count - owners.count))
            ends.append(ids.count)
        }
        return (ids, owners, ends)
    }

    /// The channels of `slots` with a programme overlapping `start..<end`, in slot order.
    package func listed(_ slots: [Slot], from start: Int64, to end: Int64) -> [ChannelID] {
        slots.filter { !window($0, from: start, to: end).isEmpty }.map(\.channel)
    }

    /// Each slot's listings from the rows fetched for ``windows(_:from:to:)``'s ids (nil rows are left out).
    /// `rows` is consumed: each is moved into place, not copied (a copy retains each of a programme's texts).
    package static func listings(_ slots: [Slot], ends: [Int], rows: consuming [StoredProgramme?]) -> [ChannelListings] {
        var from = 0
        return zip(slots, ends).map { slot, end in
            var programmes: [StoredProgramme] = []
            programmes.reserveCapacity(end - from)
            for position in from..<end {
                if let programme = rows[position].take() { programmes.append(programme) }
            }
            from = end
            return ChannelListings(channel: slot.channel, programmes: programmes)
        }
    }

    /// Each channel's now and next ids side by side, 0 (which no programme has) for none or one `omitting` names:
    /// what to fetch for them.
    package static func ids(_ found: [Found], omitting: ((ProgrammeID) -> Bool)? = nil) -> [Int64] {
        func wanted(_ id: Int64?) -> Int64 {
            guard let id, omitting?(ProgrammeID(rawValue: id)) != true else { return 0 }
            return id
        }
        var ids: [Int64] = []
        ids.reserveCapacity(2 * found.count)
        for entry in found {
            ids.append(wanted(entry.now))
            ids.append(wanted(entry.next))
        }
        return ids
    }

    /// Now/next from the rows fetched for ``ids(_:)``. Each row is swapped into its answer: an answer made with its
    /// rows (taken out of `rows`) was copied into the array and the one made destroyed, a reference count for each of
    /// its programmes' texts (at 10,000 channels, a tenth of a fresh `/api/now`'s reference counts).
    package static func nowNext(_ found: [Found], rows: consuming [StoredProgramme?]) -> [NowNext] {
        var answers = found.map {
            NowNext(channel: $0.channel, now: nil, next: nil,
                    holdsUntil: $0.holdsUntil == .max ? nil : Date(unixSeconds: $0.holdsUntil),
                    nowID: $0.now.map(ProgrammeID.init(rawValue:)), nextID: $0.next.map(ProgrammeID.init(rawValue:)))
        }
        for index in answers.indices {
            swap(&answers[index].now, &rows[2 * index])
            swap(&answers[index].next, &rows[2 * index + 1])
        }
        return answers
    }
}
