import Foundation
import GRDB
import GRDBSQLite
import GuideCore
import GuideStore

/// Reads programme rows through the SQLite C API: GRDB's per-value row access cost about as much as decoding the
/// programme itself when now/next reads 6,000 of them.
///
/// A query selects ``columns(_:channel:)`` and hands its statement to ``forEach(_:arguments:channel:_:)``.
struct ProgrammeRows {
    /// Source names by id: a handful of rows, read once per query instead of joined to every programme.
    let sources: [Int64: SourceName]
    let detail: ProgrammeDetail

    init(_ db: Database, detail: ProgrammeDetail = .full) throws {
        self.detail = detail
        var names: [Int64: SourceName] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, name FROM source") {
            names[row[0]] = SourceName(row[1] as String)
        }
        sources = names
    }

    /// The columns a programme query selects, in the order ``programme(_:channel:)`` reads them, for a programme
    /// `p` and its channel's id (`NULL` when the caller knows the channel): last, the descriptions its body keeps
    /// (DetailsCodec's version 2), which a summary leaves unread.
    static func columns(_ p: String = "p", channelID: String = "c.id", detail: ProgrammeDetail = .full) -> String {
        let texts = detail == .summary ? "NULL" : "(SELECT bt.texts FROM body bt WHERE bt.id = \(p).body_id)"
        return "\(p).id, \(channelID), \(p).start, \(p).stop, \(p).stop_known, \(p).details, \(p).source_id, "
            + texts
    }

    /// Runs `sql` and calls `body` with each row's id and programme (nil if its details blob is unreadable).
    func forEach(_ db: Database, sql: String, arguments: StatementArguments = [], channel: ChannelID? = nil,
                 _ body: (Int64, StoredProgramme?) throws -> Void) throws {
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        try DirectBinding(statement).forEachRow(db) { row in
            try body(sqlite3_column_int64(row, 0), programme(row, channel: channel))
        }
    }

    /// All the programmes `sql` selects, in its order.
    func fetchAll(_ db: Database, sql: String, arguments: StatementArguments = []) throws -> [StoredProgramme] {
        var programmes: [StoredProgramme] = []
        try forEach(db, sql: sql, arguments: arguments) { _, programme in
            if let programme { programmes.append(programme) }
        }
        return programmes
    }

    /// The programmes with the given ids, in one statement, in the order given: nil where no programme has the id
    /// or its details are unreadable. The statement reads no channel; `channel` names the one at each position.
    func fetch(_ db: Database, ids: [Int64], channel: (Int) -> ChannelID) throws -> [StoredProgramme?] {
        var found = [StoredProgramme?](repeating: nil, count: ids.count)
        guard !ids.isEmpty else { return found }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        // The array index comes back with each row, so rows go straight to their place whatever order SQLite
        // reads them in: no dictionary from id to place, no sorting afterwards.
        let statement = try db.makeStatement(sql: """
            SELECT \(Self.columns(channelID: "NULL", detail: detail)), j.key
            FROM json_each(?) j JOIN programme p ON p.id = j.value
            """)
        try statement.setArguments([list])
        try DirectBinding(statement).forEachRow(db) { row in
            let position = Int(sqlite3_column_int64(row, 8))
            guard found.indices.contains(position) else { return }
            found[position] = programme(row, channel: channel(position))
        }
        return found
    }

    private func programme(_ handle: OpaquePointer, channel knownChannel: ChannelID?) -> StoredProgramme? {
        let channel: ChannelID
        if let knownChannel {
            channel = knownChannel
        } else {
            guard let text = DirectBinding.text(handle, 1) else { return nil }
            channel = ChannelID(text)
        }
        let start = Date(unixSeconds: sqlite3_column_int64(handle, 2))
        let end = Date(unixSeconds: sqlite3_column_int64(handle, 3))
        let isStopKnown = sqlite3_column_int64(handle, 4) != 0
        // Decoded straight from SQLite's buffer, without copying the blob.
        let blob = sqlite3_column_blob(handle, 5)
        let details = UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(handle, 5)))
        let descriptions = UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, 7),
                                                  count: Int(sqlite3_column_bytes(handle, 7)))
        guard let programme = DetailsCodec.decode(details, descriptions: descriptions, channel: channel, start: start,
                                                   stop: isStopKnown ? end : nil, detail: detail) else {
            return nil
        }
        return StoredProgramme(id: ProgrammeID(rawValue: sqlite3_column_int64(handle, 0)),
                               source: sources[sqlite3_column_int64(handle, 6)] ?? SourceName(""), programme: programme, end: end)
    }
}
