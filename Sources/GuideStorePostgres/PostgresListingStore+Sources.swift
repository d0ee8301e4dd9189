import Foundation
import GuideCore
import GuideStore
import PostgresNIO

/// What PostgreSQL's ``SourceStore`` adds to the shared scripts (SourceScripts.swift): health and refresh claims.
extension PostgresListingStore {
    public func channelHealth(at instant: Date) async throws -> [ChannelHealth] {
        let now = instant.unixSeconds
        return try await snapshot { link in
            let schedule = try await scheduleIndex(link).index
            var names: [ChannelID: (key: Int64, name: String)] = [:]
            for row in try await link.query("SELECT key, id, name FROM channel") {
                let (key, id, name) = try row.decode((Int64, String, String).self)
                names[ChannelID(id)] = (key, name)
            }
            var sources: [Int64: HealthReport.Listing] = [:]
            for row in try await link.query("""
                SELECT c.channel_key, s.id, s.name FROM source_coverage c JOIN source s ON s.id = c.source_id ORDER BY s.priority DESC, s.id
                """) {
                let (channel, id, name) = try row.decode((Int64, Int64, String).self)
                sources[channel, default: []].append((id, name))
            }
            // Shift warnings compare sources, so only channels with several are read.
            var warnings: [Int64: [String]] = [:]
            for (channel, listing) in sources where listing.count > 1 {
                var starts: [Int64: [Int64: [Int64]]] = [:]
                for row in try await link.query("SELECT source_id, title_id, start FROM programme WHERE channel_key = \(channel)") {
                    let (source, title, start) = try row.decode((Int64, Int64, Int64).self)
                    starts[source, default: [:]][title, default: []].append(start)
                }
                warnings[channel] = HealthReport.shiftWarnings(starts, sources: listing)
            }
            return HealthReport.channels(schedule, at: now, names: names, sources: sources) { channel, _ in warnings[channel] ?? [] }
        }
    }

    /// The claim is a session-level advisory lock on a connection kept for `body`: PostgreSQL releases it if the
    /// process dies.
    public func withRefreshClaim<T: Sendable>(of name: SourceName, _ body: @Sendable () async throws -> T) async throws -> T? {
        let refresh = locks.refresh(name.rawValue)
        return try await pool.withConnection { link -> T? in
            guard try await link.value(refresh.lock, as: Bool.self) == true else { return nil }
            do {
                let result = try await body()
                try await link.execute(refresh.unlock)
                return result
            } catch {
                if (try? await link.execute(refresh.unlock)) == nil {
                    try? await link.connection.close()   // A lock that could not be released goes with its session.
                }
                throw error
            }
        }
    }

    static func date(_ seconds: Int64?) -> Date? {
        seconds.map { Date(unixSeconds: $0) }
    }
}
