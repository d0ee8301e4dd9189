import Foundation
import GuideCore

/// The ``PlaylistStore`` both stores implement, written once over ``SQLStatements``.
extension PlaylistStore where Self: SQLBackend & SourceStore {
    public func replacePlaylist(of source: SourceName, next: () async throws -> [PlaylistEntry]?,
                                header: () -> PlaylistHeader?) async throws -> Int {
        try await transaction { db in
            let id = try await configuredSourceID(db, source)
            try await db.execute("DELETE FROM playlist_entry WHERE source_id = \(id)")
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            var position = 0
            while let batch = try await next() {
                var rows: [[SQLValue]] = []
                rows.reserveCapacity(batch.count)
                for entry in batch {
                    let details = String(decoding: try encoder.encode(entry), as: UTF8.self)
                    rows.append([.integer(id), .integer(Int64(position)), .text(entry.offeredID.rawValue),
                                 entry.guideID.map(SQLValue.text) ?? .null, .text(PlaylistEntry.matchKey(entry.guideName ?? entry.name)),
                                 .integer(Int64(entry.shiftMinutes)), .text(details)])
                    position += 1
                }
                try await db.insert(rows) { chunk in
                    "INSERT INTO playlist_entry (source_id, position, channel_id, guide_id, match_key, shift_minutes, details) VALUES \(rows: chunk)"
                }
            }
            let urls = (header()?.guideURLs ?? []).joined(separator: "\n")
            try await db.execute("DELETE FROM playlist_header WHERE source_id = \(id)")
            try await db.execute("INSERT INTO playlist_header (source_id, guide_urls) VALUES (\(id), \(urls))")
            try await db.execute("UPDATE guide_state SET generation = generation + 1")
            return position
        }
    }

    public func playlistCandidates() async throws -> [PlaylistCandidate] {
        try await reading { db in
            try await db.rows("""
                SELECT e.source_id, e.position, e.channel_id, e.guide_id, e.match_key, e.shift_minutes, c.keep, c.mapped_to
                FROM playlist_entry e JOIN source s ON s.id = e.source_id
                LEFT JOIN source_channel c ON c.source_id = e.source_id AND c.channel_id = e.channel_id
                ORDER BY s.priority DESC, s.name \(.binaryOrder), e.position
                """).map { row in
                PlaylistCandidate(key: PlaylistCandidate.key(source: try row.value(0, as: Int64.self), position: try row.value(1, as: Int64.self)),
                                  offeredID: ChannelID(try row.value(2, as: String.self)), guideID: try row.value(3, as: String?.self),
                                  matchKey: try row.value(4, as: String.self), shiftMinutes: Int(try row.value(5, as: Int64.self)),
                                  keep: try row.value(6, as: Bool?.self) ?? true, mappedTo: try row.value(7, as: String?.self).map { ChannelID($0) })
            }
        }
    }

    public func hasShiftedPlaylistEntries() async throws -> Bool {
        try await reading { db in
            try await db.value("SELECT 1 FROM playlist_entry WHERE shift_minutes <> 0 LIMIT 1", as: Int64.self) != nil
        }
    }

    public func playlistEntries(_ keys: [Int64]) async throws -> [Int64: PlaylistEntry] {
        guard !keys.isEmpty else { return [:] }
        return try await reading { db in
            let decoder = JSONDecoder()
            var entries: [Int64: PlaylistEntry] = [:]
            for row in try await db.rows("""
                SELECT source_id, position, details FROM playlist_entry WHERE source_id * 4294967296 + position IN \(keys: keys)
                """) {
                let key = PlaylistCandidate.key(source: try row.value(0, as: Int64.self), position: try row.value(1, as: Int64.self))
                entries[key] = try decoder.decode(PlaylistEntry.self, from: Data(try row.value(2, as: String.self).utf8))
            }
            return entries
        }
    }

    public func playlistEntries(of source: SourceName, limit: Int) async throws -> [PlaylistEntry] {
        try await reading { db in
            let id = try await configuredSourceID(db, source)
            let decoder = JSONDecoder()
            return try await db.rows("""
                SELECT details FROM playlist_entry WHERE source_id = \(id) ORDER BY position LIMIT \(Int64(limit))
                """).map { try decoder.decode(PlaylistEntry.self, from: Data(try $0.value(0, as: String.self).utf8)) }
        }
    }

    public func playlistHeader(of source: SourceName) async throws -> PlaylistHeader? {
        try await reading { db in
            let urls = try await db.value("""
                SELECT h.guide_urls FROM playlist_header h JOIN source s ON s.id = h.source_id WHERE s.name = \(source.rawValue)
                """, as: String.self)
            return urls.map { PlaylistHeader(guideURLs: $0.split(separator: "\n").map(String.init)) }
        }
    }
}
