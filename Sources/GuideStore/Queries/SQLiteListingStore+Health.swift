import Foundation
import GRDB
import GuideCore

extension SQLiteListingStore {
    /// Gaps shorter than this are breaks between programmes, not missing listings.
    static let shortestGap: Int64 = 30 * 60

    public func channelHealth(at instant: Date) throws -> [ChannelHealth] {
        let now = Int64(instant.timeIntervalSince1970)
        return try mapErrors {
            try pool.read { db in
                let schedule = try scheduleIndex(db)
                var names: [ChannelID: (key: Int64, name: String)] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT key, id, name FROM channel") {
                    names[ChannelID(row[1] as String)] = (row[0], row[2])
                }
                // Each channel's sources, highest priority first.
                var sources: [Int64: [(id: Int64, name: String)]] = [:]
                for row in try Row.fetchAll(db, sql: """
                    SELECT c.channel_key, s.id, s.name FROM source_coverage c JOIN source s ON s.id = c.source_id
                    ORDER BY s.priority DESC, s.id
                    """) {
                    sources[row[0], default: []].append((row[1], row[2]))
                }
                return try schedule.slots.compactMap { slot -> ChannelHealth? in
                    guard !slot.entries.isEmpty, let channel = names[slot.channel] else { return nil }
                    let entries = schedule.entries[slot.entries]
                    let end = entries.map(\.stop).max() ?? now
                    var gaps: [TimeWindow] = []
                    // From now, or from where the listings start if that is later: before them is not a gap.
                    var covered = max(now, entries.first?.start ?? now)
                    for entry in entries where entry.stop > now {
                        if entry.start - covered >= Self.shortestGap {
                            gaps.append(TimeWindow(start: Self.date(covered), end: Self.date(entry.start)))
                        }
                        covered = max(covered, entry.stop)
                    }
                    let listing = sources[channel.key] ?? []
                    let warnings = listing.count > 1 ? try Self.shiftWarnings(db, channel: channel.key, sources: listing) : []
                    return ChannelHealth(channel: slot.channel, name: channel.name, sources: listing.map(\.name),
                                         listingsEnd: Self.date(end), gaps: gaps, warnings: warnings)
                }
            }
        }
    }

    /// Compares each lower source's times with the highest source's for the same titles: when most pairs differ by the
    /// same amount (a quarter of an hour or more), the lower source's times look shifted.
    private static func shiftWarnings(_ db: Database, channel: Int64, sources: [(id: Int64, name: String)]) throws -> [String] {
        var starts: [Int64: [Int64: [Int64]]] = [:]   // source -> title -> starts
        for row in try Row.fetchAll(db, sql: "SELECT source_id, title_id, start FROM programme WHERE channel_key = ?",
                                    arguments: [channel]) {
            starts[row[0], default: [:]][row[1], default: []].append(row[2])
        }
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
        Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
