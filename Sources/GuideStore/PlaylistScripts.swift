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
                                 .text(PlaylistEntry.matchKey(entry.guideName ?? entry.name)), .text(details)])
                    position += 1
                }
                try await db.insert(rows) { chunk in
                    "INSERT INTO playlist_entry (source_id, position, channel_id, match_key, details) VALUES \(rows: chunk)"
                }
            }
            let urls = (header()?.guideURLs ?? []).joined(separator: "\n")
            try await db.execute("DELETE FROM playlist_header WHERE source_id = \(id)")
            try await db.execute("INSERT INTO playlist_header (source_id, guide_urls) VALUES (\(id), \(urls))")
            try await db.execute("UPDATE guide_state SET generation = generation + 1")
            return position
        }
    }

    public func playlistEntries() async throws -> [StoredPlaylistEntry] {
        try await reading { db in
            let decoder = JSONDecoder()
            return try await db.rows("""
                SELECT s.name, e.position, e.details, c.keep, c.mapped_to
                FROM playlist_entry e JOIN source s ON s.id = e.source_id
                LEFT JOIN source_channel c ON c.source_id = e.source_id AND c.channel_id = e.channel_id
                ORDER BY s.priority DESC, s.name \(.binaryOrder), e.position
                """).map { row in
                StoredPlaylistEntry(source: SourceName(try row.value(0, as: String.self)), position: Int(try row.value(1, as: Int64.self)),
                                    entry: try decoder.decode(PlaylistEntry.self, from: Data(try row.value(2, as: String.self).utf8)),
                                    keep: try row.value(3, as: Bool?.self) ?? true,
                                    mappedTo: try row.value(4, as: String?.self).map { ChannelID($0) })
            }
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
