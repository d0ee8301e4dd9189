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
    /// Channels the file described; channels its programmes only name are added at the end.
    private var describedChannels: Set<ChannelID> = []
    private(set) var programmeCount = 0
    /// Per channel, the span the new listings cover: what they replace of the source's older listings.
    private var coverage: [ChannelID: (start: Int64, end: Int64)] = [:]
    private var nextChannelPosition: Int64
    /// Rows with a larger id are this import's (SQLite gives new rows ids above the largest).
    let firstNewID: Int64
    private let insertProgramme: DirectBinding
    private let findTitle: Statement
    private let insertTitle: Statement
    private let indexTitle: Statement
    private let upsertChannel: Statement
    /// Folded titles already in the title table, by id; a guide has far fewer titles than programmes.
    private var titleIDs: [String: Int64] = [:]

    init(db: Database, source: SourceName, startedAt: Int64) throws {
        self.db = db
        self.source = source
        try db.execute(sql: "INSERT INTO source (name) VALUES (?) ON CONFLICT(name) DO NOTHING", arguments: [source.rawValue])
        sourceID = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE name = ?", arguments: [source.rawValue]) ?? 0
        try db.execute(sql: "INSERT INTO import_run (source_id, started_at) VALUES (?, ?)", arguments: [sourceID, startedAt])
        importID = db.lastInsertedRowID
        nextChannelPosition = (try Int64.fetchOne(db, sql: "SELECT max(position) FROM channel") ?? 0) + 1
        firstNewID = (try Int64.fetchOne(db, sql: "SELECT max(id) FROM programme") ?? 0) + 1
        insertProgramme = DirectBinding(try db.makeStatement(sql: """
            INSERT INTO programme (source_id, import_id, channel_id, start, stop, stop_known, title, title_id, sub_title,
                                   category, clump, line, search_text, details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """))
        findTitle = try db.makeStatement(sql: "SELECT id FROM title WHERE folded = ?")
        insertTitle = try db.makeStatement(sql: "INSERT INTO title (folded) VALUES (?)")
        indexTitle = try db.makeStatement(sql: "INSERT INTO title_search (rowid, folded) VALUES (?, ?)")
        upsertChannel = try db.makeStatement(sql: """
            INSERT INTO channel (id, name, number, position, details) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET name = excluded.name, number = excluded.number, details = excluded.details
            """)
    }

    func add(_ channel: Channel) throws {
        try upsertChannel.execute(arguments: [channel.id.rawValue, channel.name, channel.number, nextChannelPosition,
                                              Data(DetailsCodec.encode(channel))])
        nextChannelPosition += 1
        describedChannels.insert(channel.id)
    }

    func add(_ programme: Programme, line: Int?) throws {
        let start = Int64(programme.start.timeIntervalSince1970)
        let knownStop = programme.stop.map { Int64($0.timeIntervalSince1970) }
        // Until a repair derives it, an open-ended programme lasts its stated length, or an hour.
        let stop = knownStop ?? start + Int64(programme.length.flatMap { $0 > 0 ? $0 : nil } ?? 3600)
        let title = programme.title
        var body = programme.subTitles.map(\.text)
        body.append(contentsOf: programme.descriptions.map(\.text))
        let titleID = try titleID(SearchText.fold(title))
        let insert = insertProgramme
        insert.reset()
        insert.bind(1, sourceID)
        insert.bind(2, importID)
        insert.bind(3, programme.channel.rawValue)
        insert.bind(4, start)
        insert.bind(5, stop)
        insert.bind(6, knownStop == nil ? 0 : 1)
        insert.bind(7, title)
        insert.bind(8, titleID)
        insert.bind(9, programme.subTitle)
        insert.bind(10, programme.categories.first?.text)
        insert.bind(11, programme.clumpIndex)
        insert.bind(12, line)
        insert.bind(13, SearchText.fold(body.joined(separator: "\n")))
        insert.bind(14, bytes: DetailsCodec.encode(programme))
        try insert.step(db)
        programmeCount += 1
        let end = max(stop, start + 1)
        if let span = coverage[programme.channel] {
            coverage[programme.channel] = (min(span.start, start), max(span.end, end))
        } else {
            coverage[programme.channel] = (start, end)
        }
    }

    /// The id of a folded title, adding it (and its trigrams) the first time it is seen.
    private func titleID(_ folded: String) throws -> Int64 {
        if let id = titleIDs[folded] { return id }
        let id: Int64
        if let existing = try Int64.fetchOne(findTitle, arguments: [folded]) {
            id = existing
        } else {
            try insertTitle.execute(arguments: [folded])
            id = db.lastInsertedRowID
            try indexTitle.execute(arguments: [id, folded])
        }
        titleIDs[folded] = id
        return id
    }

    func record(_ log: IssueLog) {
        issues.merge(log)
    }

    /// Repairs the new rows, drops what they replace, and returns the summary.
    func finish() throws -> ImportSummary {
        let removed = try repair()
        // A programme may name a channel the file never describes; the guide still needs a row for it.
        let addChannel = try db.makeStatement(sql: """
            INSERT INTO channel (id, name, position, details) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO NOTHING
            """)
        for channel in coverage.keys.sorted() {
            try addChannel.execute(arguments: [channel.rawValue, channel.rawValue, nextChannelPosition,
                                               Data(DetailsCodec.encode(Channel(id: channel)))])
            if db.changesCount > 0 { nextChannelPosition += 1 }
        }
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
        let channelCount = describedChannels.union(coverage.keys).count
        let longest = try Int64.fetchOne(db, sql: "SELECT max(stop - start) FROM programme WHERE id >= ?",
                                         arguments: [firstNewID]) ?? 0
        try db.execute(sql: "UPDATE import_run SET channels = ?, programmes = ?, issues = ?, longest = ? WHERE id = ?",
                       arguments: [channelCount, stored, issues.total, longest, importID])
        try db.execute(sql: "UPDATE source SET imported_at = (SELECT started_at FROM import_run WHERE id = ?) WHERE id = ?",
                       arguments: [importID, sourceID])
        return ImportSummary(source: source, channels: channelCount, programmes: stored, replaced: replaced, issues: issues)
    }
}
