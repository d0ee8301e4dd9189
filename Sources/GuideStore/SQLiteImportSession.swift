import Foundation
import GRDB
import GuideCore

/// One import inside one write transaction: inserts as the reader goes, then repairs and replaces at the end.
final class SQLiteImportSession: ListingSink {
    let db: Database
    let source: SourceName
    let sourceID: Int64
    let importID: Int64
    var issues = IssueLog()
    private(set) var channelCount = 0
    private(set) var programmeCount = 0
    /// Per channel, the span the new listings cover: what they replace of the source's older listings.
    private var coverage: [ChannelID: (start: Int64, end: Int64)] = [:]
    private var nextChannelPosition: Int64
    private let insertProgramme: Statement
    private let insertSearch: Statement
    private let upsertChannel: Statement

    init(db: Database, source: SourceName, startedAt: Int64) throws {
        self.db = db
        self.source = source
        try db.execute(sql: "INSERT INTO source (name) VALUES (?) ON CONFLICT(name) DO NOTHING", arguments: [source.rawValue])
        sourceID = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE name = ?", arguments: [source.rawValue]) ?? 0
        try db.execute(sql: "INSERT INTO import_run (source_id, started_at) VALUES (?, ?)", arguments: [sourceID, startedAt])
        importID = db.lastInsertedRowID
        nextChannelPosition = (try Int64.fetchOne(db, sql: "SELECT max(position) FROM channel") ?? 0) + 1
        insertProgramme = try db.makeStatement(sql: """
            INSERT INTO programme (source_id, import_id, channel_id, start, stop, stop_known, title, sub_title, category, clump, line, details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertSearch = try db.makeStatement(sql: "INSERT INTO programme_search (rowid, title, body) VALUES (?, ?, ?)")
        upsertChannel = try db.makeStatement(sql: """
            INSERT INTO channel (id, name, number, position, details) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET name = excluded.name, number = excluded.number, details = excluded.details
            """)
    }

    func add(_ channel: Channel) throws {
        try upsertChannel.execute(arguments: [channel.id.rawValue, channel.name, channel.number, nextChannelPosition,
                                              Data(DetailsCodec.encode(channel))])
        nextChannelPosition += 1
        channelCount += 1
    }

    func add(_ programme: Programme, line: Int?) throws {
        let start = Int64(programme.start.timeIntervalSince1970)
        let knownStop = programme.stop.map { Int64($0.timeIntervalSince1970) }
        // Until a repair derives it, an open-ended programme lasts its stated length, or an hour.
        let stop = knownStop ?? start + Int64(programme.length.flatMap { $0 > 0 ? $0 : nil } ?? 3600)
        let title = programme.title
        try insertProgramme.execute(arguments: [
            sourceID, importID, programme.channel.rawValue, start, stop, knownStop == nil ? 0 : 1, title,
            programme.subTitle, programme.categories.first?.text, programme.clumpIndex, line,
            Data(DetailsCodec.encode(programme)),
        ])
        let id = db.lastInsertedRowID
        var body = programme.subTitles.map(\.text)
        body.append(contentsOf: programme.descriptions.map(\.text))
        try insertSearch.execute(arguments: [id, SearchText.fold(title), SearchText.fold(body.joined(separator: "\n"))])
        programmeCount += 1
        let end = max(stop, start + 1)
        if let span = coverage[programme.channel] {
            coverage[programme.channel] = (min(span.start, start), max(span.end, end))
        } else {
            coverage[programme.channel] = (start, end)
        }
    }

    func record(_ log: IssueLog) {
        issues.merge(log)
    }

    /// Repairs the new rows, drops what they replace, and returns the summary.
    func finish() throws -> ImportSummary {
        let removed = try repair()
        var replaced = 0
        let delete = try db.makeStatement(sql: """
            DELETE FROM programme
            WHERE source_id = ? AND channel_id = ? AND import_id != ? AND start < ? AND (stop > ? OR start >= ?)
            """)
        for (channel, span) in coverage {
            try delete.execute(arguments: [sourceID, channel.rawValue, importID, span.end, span.start, span.start])
            replaced += db.changesCount
        }
        let stored = programmeCount - removed
        try db.execute(sql: "UPDATE import_run SET channels = ?, programmes = ?, issues = ? WHERE id = ?",
                       arguments: [channelCount, stored, issues.total, importID])
        try db.execute(sql: "UPDATE source SET imported_at = (SELECT started_at FROM import_run WHERE id = ?) WHERE id = ?",
                       arguments: [importID, sourceID])
        return ImportSummary(source: source, channels: channelCount, programmes: stored, replaced: replaced, issues: issues)
    }
}
