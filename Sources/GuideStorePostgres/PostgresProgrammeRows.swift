import Foundation
import GuideCore
import GuideStore
import NIOCore
import PostgresNIO

/// Reads programme rows from PostgreSQL: the columns of ``columns(_:channelID:)``, in that order.
struct PostgresProgrammeRows {
    /// Source names by id, read once per query instead of joined to every programme.
    let sources: [Int64: SourceName]
    let detail: ProgrammeDetail

    init(_ link: PostgresLink, detail: ProgrammeDetail = .full) async throws {
        var names: [Int64: SourceName] = [:]
        for row in try await link.query("SELECT id, name FROM source") {
            let (id, name) = try row.decode((Int64, String).self)
            names[id] = SourceName(name)
        }
        self.init(sources: names, detail: detail)
    }

    init(sources: [Int64: SourceName], detail: ProgrammeDetail) {
        self.sources = sources
        self.detail = detail
    }

    /// The columns a programme query selects, for a programme `p` and its channel's id: last, the descriptions its
    /// body keeps (DetailsCodec's version 2), which a summary leaves unread.
    static func columns(_ p: String = "p", channelID: String = "c.id", detail: ProgrammeDetail = .full) -> String {
        let texts = detail == .summary ? "NULL::bytea" : "(SELECT bt.texts FROM body bt WHERE bt.id = \(p).body_id)"
        return "\(p).id, \(channelID), \(p).start, \(p).stop, \(p).stop_known, \(p).details, \(p).source_id, "
            + texts
    }

    /// All the programmes `query` selects, in its order.
    func fetchAll(_ link: PostgresLink, _ query: PostgresQuery) async throws -> [StoredProgramme] {
        try await link.query(query).compactMap { try programme($0, channel: nil) }
    }

    /// The programmes with the given ids, in one statement, in the order given (nil where none or unreadable).
    func fetch(_ link: PostgresLink, ids: [Int64], channel: (Int) -> ChannelID) async throws -> [StoredProgramme?] {
        var found = [StoredProgramme?](repeating: nil, count: ids.count)
        guard !ids.isEmpty else { return found }
        let rows = try await link.query("""
            SELECT \(unescaped: Self.columns(channelID: "NULL::text", detail: detail)), j.n
            FROM unnest(\(ids)::bigint[]) WITH ORDINALITY AS j(id, n) JOIN programme p ON p.id = j.id
            """)
        for row in rows {
            let position = Int(try row.makeRandomAccess()[8].decode(Int64.self)) - 1
            guard found.indices.contains(position) else { continue }
            found[position] = try programme(row, channel: channel(position))
        }
        return found
    }

    func programme(_ row: PostgresRow, channel knownChannel: ChannelID?) throws -> StoredProgramme? {
        let columns = row.makeRandomAccess()
        let id = try columns[0].decode(Int64.self)
        let channel: ChannelID
        if let knownChannel {
            channel = knownChannel
        } else {
            guard let text = try columns[1].decode(String?.self) else { return nil }
            channel = ChannelID(text)
        }
        let start = Date(unixSeconds: try columns[2].decode(Int64.self))
        let end = Date(unixSeconds: try columns[3].decode(Int64.self))
        let isStopKnown = try columns[4].decode(Bool.self)
        let details = try columns[5].decode(ByteBuffer.self)
        let source = try columns[6].decode(Int64.self)
        let texts = try columns[7].decode(ByteBuffer?.self)
        let programme = details.withUnsafeReadableBytes { details in
            (texts ?? ByteBuffer()).withUnsafeReadableBytes { descriptions in
                DetailsCodec.decode(details, descriptions: descriptions, channel: channel, start: start,
                                    stop: isStopKnown ? end : nil, detail: detail)
            }
        }
        guard let programme else { return nil }
        return StoredProgramme(id: ProgrammeID(rawValue: id), source: sources[source] ?? SourceName(""), programme: programme, end: end)
    }
}
