import GuideCore
import GuideStore
import PostgresNIO

/// The channels an import stores, a run of them in one statement: one statement a channel was two round trips for each
/// of a 10,000-channel guide's channels on every refresh, 1.8 s of a changed day's 8 s at 2,857 channels (issue 46).
extension PostgresImportSession {
    /// Stores the channels the file describes (no id twice), each under the next position if it is new; a channel
    /// stored before keeps its position and takes the file's name, number and details.
    func store(_ channels: [GuideCore.Channel]) async throws {
        for run in channels.chunked(by: Self.batchSize) {
            let ids = run.map(\.id.rawValue), names = run.map(\.name)
            // Arrays of optionals do not bind: whether there is a number goes beside it.
            let numbers = run.map { $0.number ?? "" }, numbered = run.map { $0.number != nil }
            let positions = run.indices.map { nextChannelPosition + Int64($0 - run.startIndex) }
            let details = run.map { DetailsCodec.encode($0) }
            var stored = 0
            for row in try await link.query("""
                INSERT INTO channel (id, name, number, position, details)
                SELECT i, n, CASE WHEN h THEN u END, p, d
                FROM unnest(\(ids)::text[], \(names)::text[], \(numbers)::text[], \(numbered)::boolean[],
                            \(positions)::bigint[], \(details)::bytea[]) AS c(i, n, u, h, p, d)
                ON CONFLICT (id) DO UPDATE
                SET name = excluded.name, number = excluded.number, details = excluded.details
                RETURNING key, id
                """) {
                let (key, id) = try row.decode((Int64, String).self)
                tally.remember(ChannelID(id), key: key, described: true)
                stored += 1
            }
            guard stored == run.count else {
                throw StoreError(.failed, "\(run.count) channels were sent and \(stored) stored")
            }
            nextChannelPosition += Int64(run.count)
        }
    }

    /// The keys of channels programmes or parts name, adding a row named by its id, under the next position, for each
    /// the guide has none of yet.
    func keys(of channels: [ChannelID]) async throws -> [ChannelID: Int64] {
        var keys: [ChannelID: Int64] = [:], wanted: [ChannelID] = [], isWanted: Set<ChannelID> = []
        for channel in channels where keys[channel] == nil {
            if let key = tally.key(of: channel) {
                keys[channel] = key
            } else if isWanted.insert(channel).inserted {
                wanted.append(channel)
            }
        }
        for run in wanted.chunked(by: Self.batchSize) {
            let ids = run.map(\.rawValue)
            let details = run.map { DetailsCodec.encode(GuideCore.Channel(id: $0)) }
            // The rows already stored come from the statement's snapshot, which does not hold those it adds.
            for row in try await link.query("""
                WITH wanted AS (SELECT * FROM unnest(\(ids)::text[], \(details)::bytea[])
                                WITH ORDINALITY AS w(id, details, n)),
                missing AS (SELECT id, details, row_number() OVER (ORDER BY n) AS r FROM wanted w
                            WHERE NOT EXISTS (SELECT 1 FROM channel c WHERE c.id = w.id)),
                added AS (INSERT INTO channel (id, name, position, details)
                          SELECT id, id, \(nextChannelPosition) - 1 + r, details FROM missing
                          ON CONFLICT (id) DO NOTHING RETURNING key, id)
                SELECT key, id, true FROM added
                UNION ALL SELECT c.key, c.id, false FROM channel c JOIN wanted w ON c.id = w.id
                """) {
                let (key, id, isAdded) = try row.decode((Int64, String, Bool).self)
                let channel = ChannelID(id)
                tally.remember(channel, key: key)
                keys[channel] = key
                if isAdded { nextChannelPosition += 1 }
            }
            for channel in run where keys[channel] == nil {
                throw StoreError(.failed, "channel \(channel.rawValue) was not stored")
            }
        }
        return keys
    }
}

extension Array {
    /// The array in consecutive slices of at most `size` elements.
    fileprivate func chunked(by size: Int) -> [ArraySlice<Element>] {
        stride(from: startIndex, to: endIndex, by: size).map { self[$0..<Swift.min($0 + size, endIndex)] }
    }
}
