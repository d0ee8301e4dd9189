import Foundation
import GRDB
import GuideCore
import GuideStore

extension SQLiteListingStore {
    public func channelHealth(at instant: Date) async throws -> [ChannelHealth] {
        let now = instant.unixSeconds
        return try await mapErrors {
            try await read { db in
                let schedule = try scheduleIndex(db)
                var names: [ChannelID: (key: Int64, name: String)] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT key, id, name FROM channel") {
                    names[ChannelID(row[1] as String)] = (row[0], row[2])
                }
                var sources: [Int64: HealthReport.Listing] = [:]
                for row in try Row.fetchAll(db, sql: """
                    SELECT c.channel_key, s.id, s.name FROM source_coverage c JOIN source s ON s.id = c.source_id
                    ORDER BY s.priority DESC, s.id
                    """) {
                    sources[row[0], default: []].append((row[1], row[2]))
                }
                return try HealthReport.channels(schedule, at: now, names: names, sources: sources) { channel, listing in
                    var starts: [Int64: [Int64: [Int64]]] = [:]   // source -> title -> starts
                    for row in try Row.fetchAll(db, sql: "SELECT source_id, title_id, start FROM programme WHERE channel_key = ?",
                                                arguments: [channel]) {
                        starts[row[0], default: [:]][row[1], default: []].append(row[2])
                    }
                    return HealthReport.shiftWarnings(starts, sources: listing)
                }
            }
        }
    }
}
