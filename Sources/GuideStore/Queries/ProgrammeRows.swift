import Foundation
import GRDB
import GRDBSQLite
import GuideCore

/// Reads programme rows through the SQLite C API: GRDB's per-value row access cost about as much as decoding the
/// programme itself when now/next reads 6,000 of them.
///
/// A query selects ``columns(_:channel:)`` and hands its statement to ``forEach(_:arguments:channel:_:)``.
struct ProgrammeRows {
    /// Source names by id: a handful of rows, read once per query instead of joined to every programme.
    let sources: [Int64: SourceName]

    init(_ db: Database) throws {
        var names: [Int64: SourceName] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, name FROM source") {
            names[row[0]] = SourceName(row[1] as String)
        }
        sources = names
    }

    /// The columns a programme query selects, in the order ``programme(_:channel:)`` reads them, for a programme
    /// `p` and its channel's id (`NULL` when the caller knows the channel).
    static func columns(_ p: String = "p", channelID: String = "c.id") -> String {
        "\(p).id, \(channelID), \(p).start, \(p).stop, \(p).stop_known, \(p).details, \(p).source_id"
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

    /// The programmes with the given ids, in one statement, handed to `body` in no particular order, with
    /// ``unknownChannel`` for their channel: the statement reads none, the caller knows it.
    func forEach(_ db: Database, ids: [Int64], _ body: (Int64, StoredProgramme) throws -> Void) throws {
        guard !ids.isEmpty else { return }
        // Ascending ids read the table in its own order.
        let list = "[" + ids.sorted().map(String.init).joined(separator: ",") + "]"
        try forEach(db, sql: """
            SELECT \(Self.columns(channelID: "NULL")) FROM json_each(?) j JOIN programme p ON p.id = j.value
            """, arguments: [list], channel: Self.unknownChannel) { id, programme in
            if let programme { try body(id, programme) }
        }
    }

    /// Stands for the channel while a row read without one is decoded; the caller sets the real one.
    static let unknownChannel = ChannelID("")

    private func programme(_ handle: OpaquePointer, channel knownChannel: ChannelID?) -> StoredProgramme? {
        let channel: ChannelID
        if let knownChannel {
            channel = knownChannel
        } else {
            guard let text = DirectBinding.text(handle, 1) else { return nil }
            channel = ChannelID(text)
        }
        let start = Date(timeIntervalSince1970: TimeInterval(sqlite3_column_int64(handle, 2)))
        let end = Date(timeIntervalSince1970: TimeInterval(sqlite3_column_int64(handle, 3)))
        let isStopKnown = sqlite3_column_int64(handle, 4) != 0
        // Decoded straight from SQLite's buffer, without copying the blob.
        let blob = sqlite3_column_blob(handle, 5)
        let details = UnsafeRawBufferPointer(start: blob, count: Int(sqlite3_column_bytes(handle, 5)))
        guard let programme = DetailsCodec.decode(details, channel: channel, start: start, stop: isStopKnown ? end : nil) else {
            return nil
        }
        return StoredProgramme(id: ProgrammeID(rawValue: sqlite3_column_int64(handle, 0)),
                               source: sources[sqlite3_column_int64(handle, 6)] ?? SourceName(""), programme: programme, end: end)
    }
}
