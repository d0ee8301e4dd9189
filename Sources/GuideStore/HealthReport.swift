import Foundation
import GuideCore

/// Channel health worked out from a store's schedule, without a database: each store gathers the rows, this judges.
package enum HealthReport {
    /// Gaps shorter than this are breaks between programmes, not missing listings.
    static let shortestGap: Int64 = 30 * 60

    /// A channel's sources, highest priority first.
    package typealias Listing = [(id: Int64, name: String)]

    /// Each channel with listings in `schedule`, as of `now`; `warnings` compares a channel's sources (called only
    /// for channels with more than one).
    package static func channels(_ schedule: ScheduleIndex, at now: Int64, names: [ChannelID: (key: Int64, name: String)],
                         sources: [Int64: Listing], warnings: (Int64, Listing) throws -> [String]) rethrows -> [ChannelHealth] {
        try schedule.slots.compactMap { slot -> ChannelHealth? in
            guard !slot.entries.isEmpty, let channel = names[slot.channel] else { return nil }
            let entries = schedule.entries[slot.entries]
            let end = entries.map(\.stop).max() ?? now
            var gaps: [TimeWindow] = []
            // From now, or from where the listings start if that is later: before them is not a gap.
            var covered = max(now, entries.first?.start ?? now)
            for entry in entries where entry.stop > now {
                if entry.start - covered >= shortestGap {
                    gaps.append(TimeWindow(start: date(covered), end: date(entry.start)))
                }
                covered = max(covered, entry.stop)
            }
            let listing = sources[channel.key] ?? []
            let shifted = listing.count > 1 ? try warnings(channel.key, listing) : []
            return ChannelHealth(channel: slot.channel, name: channel.name, sources: listing.map(\.name),
                                 listingsEnd: date(end), gaps: gaps, warnings: shifted)
        }
    }

    /// Compares each lower source's times with the highest source's for the same titles (`starts`: source -> title
    /// -> starts): when most pairs differ by the same amount (a quarter of an hour or more), the lower source's times
    /// look shifted.
    package static func shiftWarnings(_ starts: [Int64: [Int64: [Int64]]], sources: Listing) -> [String] {
        guard let reference = sources.first, let referenceStarts = starts[reference.id] else { return [] }
        var warnings: [String] = []
        for other in sources.dropFirst() {
            var differences: [Int64] = []
            for (title, times) in starts[other.id] ?? [:] {
                guard let candidates = referenceStarts[title] else { continue }
                for time in times {
                    // The nearest airing of the same title within six hours.
                    guard let nearest = candidates.min(by: { abs($0 - time) < abs($1 - time) }), abs(nearest - time) <= 6 * 3600 else {
                        continue
                    }
                    differences.append(time - nearest)
                }
            }
            guard differences.count >= 5 else { continue }
            differences.sort()
            let median = differences[differences.count / 2]
            let agreeing = differences.filter { abs($0 - median) <= 5 * 60 }.count
            guard abs(median) >= 15 * 60, agreeing * 10 >= differences.count * 6 else { continue }
            let minutes = abs(median) / 60
            warnings.append("\(other.name)'s times look \(minutes) min \(median > 0 ? "later" : "earlier") than \(reference.name)'s "
                            + "(\(agreeing) of \(differences.count) airings of the same titles); check its time zone or shift")
        }
        return warnings
    }

    private static func date(_ seconds: Int64) -> Date {
        Date(unixSeconds: seconds)
    }
}
