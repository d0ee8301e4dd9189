import Foundation
import GRDB
import GRDBSQLite
import GuideCore
import GuideStore

/// One import inside one write transaction: inserts as the reader goes, then repairs and replaces at the end.
final class SQLiteImportSession {
    let db: Database
    let source: SourceName
    let sourceID: Int64
    let importID: Int64
    var issues = IssueLog()
    private(set) var tally = ImportTally()
    private var nextChannelPosition: Int64
    /// Programmes and channels ``retire(allBut:)`` removed.
    private var retired = 0
    private var retiredChannels: Set<Int64> = []
    /// The channels this source had programmes on when the import began (its `source_coverage`): only there can a
    /// stored row be replaced. A first import's end read back every row it had just added to find none older.
    private let coveredBefore: Set<Int64>
    private let insertProgramme: DirectBinding
    /// New programmes' ids, by the day they start (``DayIDs``).
    private var ids: DayIDs
    private let findTitle: DirectBinding
    private let insertTitle: DirectBinding
    /// The new titles' and bodies' trigrams, gathered and written in runs (``TrigramIndex``).
    private var titleIndex: TrigramIndex
    private var bodyIndex: TrigramIndex
    private let findBody: DirectBinding
    private let insertBody: DirectBinding
    private let updateChannel: Statement
    private let insertChannel: Statement
    private let addNamedChannel: Statement
    private let findChannelKey: Statement
    /// The ids of the titles in the title table met so far; a guide has far fewer titles than programmes (but a
    /// high-cardinality one has one for every other programme).
    private var titleIDs: KnownTitles
    /// Bodies (folded sub-titles and descriptions) in the body table, by hash: stored before and met since.
    private var bodyIDs = KnownBodies()
    /// This import's rows, repaired as they go.
    var repairs = ImportRepairs()
    /// Channels this import reads only part of, by key.
    var parts: [Int64: ListingPart] = [:]
    /// The channels read in part whose stored rows were already replaced, as their run ended (``replacePart``), and
    /// how many rows went.
    var partsReplaced: Set<Int64> = []
    var replacedEarly = 0
    let updateStop: Statement
    let deleteRow: Statement
    /// A channel's rows of this source from other imports running into a part's first start (given twice), and those
    /// starting within a span of it (``replacePart(_:of:through:)``).
    let deleteRunningInto: DirectBinding
    let deleteStartingWithin: DirectBinding

    init(db: Database, source: SourceName, startedAt: Int64) throws {
        self.db = db
        self.source = source
        try db.execute(sql: "INSERT INTO source (name) VALUES (?) ON CONFLICT(name) DO NOTHING", arguments: [source.rawValue])
        sourceID = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE name = ?", arguments: [source.rawValue]) ?? 0
        try db.execute(sql: "INSERT INTO import_run (source_id, started_at) VALUES (?, ?)", arguments: [sourceID, startedAt])
        importID = db.lastInsertedRowID
        coveredBefore = Set(try Int64.fetchAll(db, sql: "SELECT channel_key FROM source_coverage WHERE source_id = ?",
                                               arguments: [sourceID]))
        nextChannelPosition = (try Int64.fetchOne(db, sql: "SELECT max(position) FROM channel") ?? 0) + 1
        ids = try DayIDs(db)
        insertProgramme = DirectBinding(try db.makeStatement(sql: """
            INSERT INTO programme (id, source_id, import_id, channel_key, start, stop, stop_known, title_id, clump,
                                   line, body_id, details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """))
        findTitle = DirectBinding(try db.makeStatement(sql: "SELECT id FROM title WHERE folded = ?"))
        insertTitle = DirectBinding(try db.makeStatement(sql: "INSERT INTO title (folded) VALUES (?)"))
        titleIDs = KnownTitles(holdsEveryTitle: try db.holdsNoRow("title"))
        titleIndex = try TrigramIndex(db, of: "title")
        findBody = DirectBinding(try db.makeStatement(sql: Self.bodiesOfHash))
        insertBody = DirectBinding(try db.makeStatement(sql: "INSERT INTO body (hash, folded, texts) VALUES (?, ?, ?)"))
        bodyIndex = try TrigramIndex(db, of: "body")
        bodyIDs.know(stored: try Self.storedBodies(db))
        updateChannel = try db.makeStatement(sql: "UPDATE channel SET name = ?, number = ?, details = ? WHERE id = ?")
        insertChannel = try db.makeStatement(sql: """
            INSERT INTO channel (id, name, number, position, details) VALUES (?, ?, ?, ?, ?)
            """)
        addNamedChannel = try db.makeStatement(sql: """
            INSERT INTO channel (id, name, position, details) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO NOTHING
            """)
        findChannelKey = try db.makeStatement(sql: "SELECT key FROM channel WHERE id = ?")
        updateStop = try db.makeStatement(sql: "UPDATE programme SET stop = ?, stop_known = 1 WHERE id = ?")
        deleteRow = try db.makeStatement(sql: "DELETE FROM programme WHERE id = ?")
        deleteRunningInto = DirectBinding(try db.makeStatement(sql: """
            DELETE FROM programme
            WHERE source_id = ? AND channel_key = ? AND import_id != ? AND start < ? AND stop > ?
            """))
        deleteStartingWithin = DirectBinding(try db.makeStatement(sql: """
            DELETE FROM programme
            WHERE source_id = ? AND channel_key = ? AND import_id != ? AND start >= ? AND start < ?
            """))
    }

    func apply(_ item: ImportItem) throws {
        switch item {
        case .channel(let channel): try add(channel)
        case .programme(let programme): try add(programme)
        case .retire(let kept): try retire(allBut: kept)
        case .part(let part): parts[try channelKey(part.channel)] = part
        case .runEnds(let channel, let nextStart, let cuts):
            let key = try channelKey(channel)
            repairs.end(key, nextStart: nextStart, cuts: cuts)
            if repairs.hasChanges { try applyRepairs() }
            // What the channel's new days replace goes now, while the reader parses the next channel: at the end it kept
            // the reader's thread waiting (a second at 1.75 M programmes, one day of each channel replaced).
            if let part = parts[key], partsReplaced.insert(key).inserted {
                replacedEarly += try replacePart(part, of: key, through: part.end)
            }
        }
    }

    /// A channel is updated by its id, or added when there is none: two plain statements, where one upsert (`ON
    /// CONFLICT DO UPDATE ... RETURNING`) was a statement SQLite may have to undo alone, so it kept the pages it
    /// changed that the import had changed before in a statement journal, written to a temporary file past 64 KB:
    /// three 32 KB pages a channel, 993 MB at 10,000 channels, more than the import wrote to the database and its WAL
    /// together (strace). Neither of these needs one. (A programme's bare channel, `addNamedChannel`, journalled
    /// nothing as it is.)
    func add(_ channel: Channel) throws {
        let details = Data(DetailsCodec.encode(channel))
        try updateChannel.execute(arguments: [channel.name, channel.number, details, channel.id.rawValue])
        let key: Int64?
        if db.changesCount > 0 {
            key = try Int64.fetchOne(findChannelKey, arguments: [channel.id.rawValue])
        } else {
            try insertChannel.execute(arguments: [channel.id.rawValue, channel.name, channel.number, nextChannelPosition,
                                                  details])
            key = db.lastInsertedRowID
        }
        guard let key else { throw DatabaseError(message: "channel \(channel.id.rawValue) was not stored") }
        nextChannelPosition += 1
        tally.remember(channel.id, key: key, described: true)
    }

    /// The key of a channel a programme names, adding a row named by its id if the guide has none yet.
    private func channelKey(_ channel: ChannelID) throws -> Int64 {
        if let key = tally.key(of: channel) { return key }
        try addNamedChannel.execute(arguments: [channel.rawValue, channel.rawValue, nextChannelPosition,
                                                Data(DetailsCodec.encode(Channel(id: channel)))])
        if db.changesCount > 0 { nextChannelPosition += 1 }
        guard let key = try Int64.fetchOne(findChannelKey, arguments: [channel.rawValue]) else {
            throw DatabaseError(message: "channel \(channel.rawValue) was not stored")
        }
        tally.remember(channel, key: key)
        return key
    }

    func add(_ prepared: PreparedProgramme) throws {
        let start = prepared.start, stop = prepared.provisionalStop
        let titleID = try titleID(of: prepared)
        let bodyID = try bodyID(of: prepared)
        let channelKey = try channelKey(prepared.channel)
        let insert = insertProgramme
        insert.reset()
        if let id = try ids.id(startingAt: start) { insert.bind(1, id) }
        insert.bind(2, sourceID)
        insert.bind(3, importID)
        insert.bind(4, channelKey)
        insert.bind(5, start)
        insert.bind(6, stop)
        insert.bind(7, prepared.knownStop == nil ? 0 : 1)
        insert.bind(8, titleID)
        insert.bind(9, prepared.clumpIndex)
        insert.bind(10, prepared.line)
        insert.bind(11, bodyID)
        try insert.withBlob(12, prepared.details) { try insert.step(db) }
        tally.add(channel: channelKey, start: start, stop: stop)
        repairs.add(ListingRepair.Airing(id: db.lastInsertedRowID, start: start, stop: stop, isStopKnown: prepared.knownStop != nil,
                                         title: prepared.title, clump: prepared.clumpIndex, line: prepared.line),
                    channel: channelKey, named: prepared.channel)
        if repairs.hasChanges { try applyRepairs() }
    }

    /// The id of a programme's title, adding it (and its trigrams) the first time it is seen.
    private func titleID(of prepared: PreparedProgramme) throws -> Int64 {
        if let id = titleIDs.id(of: prepared) { return id }
        // There from an earlier import, or new to the table and its trigram index.
        let folded = prepared.foldedTitle
        let id: Int64
        if !titleIDs.holdsEveryTitle, let existing = try firstInteger(findTitle, folded) {
            id = existing
        } else {
            insertTitle.reset()
            insertTitle.bind(1, folded)
            try insertTitle.step(db)
            id = db.lastInsertedRowID
            try titleIndex.add(folded, id: id, db)
        }
        titleIDs.remember(id, for: prepared)
        return id
    }

    /// The id of a programme's body (0 for none): its folded text and its descriptions, adding it (and its trigrams)
    /// the first time it is seen. A body is known by its hash (``KnownBodies``); one not known is looked for by its
    /// hash and texts, unless no stored body can have that hash.
    private func bodyID(of prepared: PreparedProgramme) throws -> Int64 {
        // By its hash first: the folded text is the reading thread's, shared by every programme of that body.
        let hash = prepared.bodyHash
        guard hash != 0 else { return 0 }
        if let id = bodyIDs[hash] { return id }
        let folded = prepared.foldedBody, texts = prepared.bodyTexts
        var id: Int64?
        if !bodyIDs.isNew(hash) {
            findBody.reset()
            findBody.bind(1, hash)
            try findBody.forEachRow(db) { row in
                if id == nil, DirectBinding.text(row, 1, is: folded), DirectBinding.blob(row, 2, is: texts) {
                    id = sqlite3_column_int64(row, 0)
                }
            }
        }
        if id == nil {
            insertBody.reset()
            insertBody.bind(1, hash)
            insertBody.bind(2, folded)
            try insertBody.withBlob(3, texts) { try insertBody.step(db) }
            id = db.lastInsertedRowID
            try bodyIndex.add(folded, id: db.lastInsertedRowID, db)
        }
        bodyIDs.remember(id ?? 0, for: hash)
        return id ?? 0
    }

    /// The bodies of a hash that keep their texts (a body stored before v36 matches none), by their index (v43).
    static let bodiesOfHash = "SELECT id, folded, texts FROM body WHERE hash = ? AND texts IS NOT NULL"
    /// What ``storedBodies(_:)`` reads.
    static let storedBodiesRead = "SELECT hash, id FROM body WHERE texts IS NOT NULL LIMIT \(KnownBodies.mostStored)"

    /// The hashes and ids of the bodies stored before the import (``KnownBodies/mostStored`` at most), from the index
    /// of their hashes alone (v43). Bodies stored before v36 keep no descriptions and match none.
    private static func storedBodies(_ db: Database) throws -> [(Int64, Int64)] {
        let select = DirectBinding(try db.makeStatement(sql: storedBodiesRead))
        var stored: [(Int64, Int64)] = []
        try select.forEachRow(db) { stored.append((sqlite3_column_int64($0, 0), sqlite3_column_int64($0, 1))) }
        return stored
    }

    /// The first column of the first row `statement` returns for `text`.
    private func firstInteger(_ statement: DirectBinding, _ text: String) throws -> Int64? {
        statement.reset()
        statement.bind(1, text)
        var value: Int64?
        try statement.forEachRow(db) { row in
            if value == nil { value = sqlite3_column_int64(row, 0) }
        }
        return value
    }

    func record(_ log: IssueLog) {
        issues.merge(log)
    }

    func retire(allBut kept: Set<ChannelID>) throws {
        let rows = try Row.fetchAll(db, sql: """
            SELECT s.channel_key, c.id FROM source_coverage s JOIN channel c ON c.key = s.channel_key WHERE s.source_id = ?
            """, arguments: [sourceID])
        var keys: Set<Int64> = []
        for row in rows where !kept.contains(ChannelID(row[1] as String)) {
            let key: Int64 = row[0]
            try db.execute(sql: "DELETE FROM programme WHERE source_id = ? AND channel_key = ?", arguments: [sourceID, key])
            retired += db.changesCount
            try db.execute(sql: "DELETE FROM source_coverage WHERE source_id = ? AND channel_key = ?", arguments: [sourceID, key])
            keys.insert(key)
        }
        retiredChannels.formUnion(keys)
        repairs.forget(channels: keys)
    }

    /// Repairs the new rows and drops what they replace; the shared end of the import (``ImportFinish``) does the rest.
    func finish() throws -> ImportFinish {
        try finishRepairs()
        try titleIndex.write(db)
        try bodyIndex.write(db)
        let removed = repairs.deleted
        var replaced = 0
        let delete = try db.makeStatement(sql: """
            DELETE FROM programme
            WHERE source_id = ? AND channel_key = ? AND import_id != ? AND start < ? AND (stop > ? OR start >= ?)
            """)
        let spans = tally.spans(with: parts)
        for (channel, span) in spans where parts[channel] == nil && coveredBefore.contains(channel) {
            try delete.execute(arguments: [sourceID, channel, importID, span.end, span.start, span.start])
            replaced += db.changesCount
        }
        replaced += try replaceParts(through: spans) + replacedEarly
        try countProgrammes(change: tally.programmeCount - removed - replaced - retired,
                            dropped: replaced + retired + removed)
        let spread = try db.makeStatement(sql: """
            INSERT INTO source_coverage (source_id, channel_key, first, last) VALUES (?, ?, ?, ?)
            ON CONFLICT DO UPDATE SET first = min(first, excluded.first), last = max(last, excluded.last)
            """)
        for (channel, span) in spans {
            try spread.execute(arguments: [sourceID, channel, span.start, span.end])
        }
        return ImportFinish(source: source, sourceID: sourceID, importID: importID,
                            touchedChannels: Array(retiredChannels.union(spans.keys)), channels: tally.channelCount,
                            programmes: tally.programmeCount - removed, replaced: replaced + retired, issues: issues)
    }
}
