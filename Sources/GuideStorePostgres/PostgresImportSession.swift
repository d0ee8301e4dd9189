import Foundation
import GuideCore
import GuideStore
import NIOCore
import PostgresNIO

/// One import inside one PostgreSQL transaction: programmes go in batches of ``batchSize`` (one INSERT of arrays
/// each, never a row at a time), then the same repairs, replacement and merge as SQLite's import session.
final class PostgresImportSession {
    static let batchSize = 2_000
    /// How many batches the server may have to store while the session reads the next.
    static let batchesInFlight = 2

    let link: PostgresLink
    let source: SourceName
    let sourceID: Int64
    let importID: Int64
    /// The new titles' and bodies' trigrams, gathered and sent in runs (``PostgresTrigramIndex``).
    private var titleIndex = PostgresTrigramIndex(of: "title")
    private var bodyIndex = PostgresTrigramIndex(of: "body")
    var issues = IssueLog()
    var tally = ImportTally()
    var nextChannelPosition: Int64
    private var retired = 0
    private var retiredChannels: Set<Int64> = []
    /// The channels this source had programmes on when the import began (its `source_coverage`): only there can a
    /// stored row be replaced. A first import's end read back every row it had just added to find none older.
    private let coveredBefore: Set<Int64>
    /// The ids of the titles in the title table met so far.
    private var titleIDs: KnownTitles
    /// Bodies in the body table, by hash: stored before and met since.
    private var bodyIDs = KnownBodies()
    /// The bodies stored before this import, asked for when it began and not yet read (``askForStoredBodies(on:)``).
    private var storedBodies: Task<[(Int64, Int64)], any Error>?
    /// This import's rows, repaired as they go.
    private var repairs = ImportRepairs()
    /// Channels this import reads only part of, by key.
    var parts: [Int64: ListingPart] = [:]
    /// Channels read in part whose runs have ended and whose replaced rows go with the next batch, and those whose
    /// went with a batch already (``sendPartDeletes()``), through their part's end; how many rows went so.
    var partsEnded: Set<Int64> = []
    var partsReplaced: Set<Int64> = []
    var replacedEarly = 0
    /// Ends of runs (``ImportItem/runEnds(_:nextStart:cuts:)``) read but not yet taken, after how many of ``pending``.
    private var pendingEnds: [(after: Int, key: Int64, nextStart: Int64?, cuts: Bool)] = []
    /// Programmes read but not yet sent, with their channel keys.
    private var pending: [(programme: PreparedProgramme, channel: Int64)] = []
    /// The batches sent and not yet settled (``settle(_:)``), at most ``batchesInFlight``, oldest first: each with the
    /// ends of runs among its rows, the answer of its texts' statement, its rows' `COPY` and the deletes sent with it.
    private var inFlight: [InFlight] = []
    private struct InFlight {
        let batch: Batch
        let ends: [(after: Int, key: Int64, nextStart: Int64?, cuts: Bool)]
        let texts: Task<[ProbedTexts], any Error>?
        let copy: Task<Void, any Error>
        let deletes: [Task<[Int64], any Error>]
    }
    /// The ids the session hands out (``Serials``).
    private var serials: Serials

    init(link: PostgresLink, source: SourceName, startedAt: Int64) async throws {
        self.link = link
        self.source = source
        try await link.execute("INSERT INTO source (name) VALUES (\(source.rawValue)) ON CONFLICT (name) DO NOTHING")
        sourceID = try await link.value("SELECT id FROM source WHERE name = \(source.rawValue)", as: Int64.self) ?? 0
        importID = try await link.value("""
            INSERT INTO import_run (source_id, started_at) VALUES (\(sourceID), \(startedAt)) RETURNING id
            """, as: Int64.self) ?? 0
        coveredBefore = Set(try await link.query("""
            SELECT channel_key FROM source_coverage WHERE source_id = \(sourceID)
            """).map { try $0.decode(Int64.self) })
        nextChannelPosition = (try await link.value("SELECT max(position) FROM channel", as: Int64.self) ?? 0) + 1
        let empty = try await link.query("""
            SELECT NOT EXISTS (SELECT 1 FROM title), NOT EXISTS (SELECT 1 FROM title_postings),
                   NOT EXISTS (SELECT 1 FROM body_postings)
            """).first?.decode((Bool, Bool, Bool).self) ?? (false, false, false)
        titleIDs = KnownTitles(holdsEveryTitle: empty.0)
        serials = try await Serials.claim(on: link)
        titleIndex.holdsNoRow = empty.1
        bodyIndex.holdsNoRow = empty.2
        storedBodies = Self.askForStoredBodies(on: link)
        pending.reserveCapacity(Self.batchSize)
    }

    /// Asks for the bodies stored already (``KnownBodies/mostStored`` at most), for
    /// ``bodyIDs`` to start with (``knowStoredBodies()``): a batch then need not send the descriptions of those it
    /// meets again for the statement to find. A guide refreshed keeps most of its descriptions: of a changed day's
    /// 18,487 programmes at 0.1 M every body was stored, and finding them (their texts sent and compared) took 7-11 ms
    /// of each batch's 30-70. Sent at once and read at the first batch, the question is answered while the file is
    /// still read (33 ms for the 0.1 M guide's 33,334 bodies); bodies stored before v36 keep no descriptions and match
    /// none. Asked on a first import too, where the answer (none) says that every body met is new.
    private static func askForStoredBodies(on link: PostgresLink) -> Task<[(Int64, Int64)], any Error> {
        link.send("SELECT hash, id FROM body WHERE texts IS NOT NULL LIMIT \(KnownBodies.mostStored)") {
            try $0.decode((Int64, Int64).self)
        }
    }

    /// Starts ``bodyIDs`` with the answer of ``askForStoredBodies(on:)``.
    private func knowStoredBodies() async throws {
        guard let asked = storedBodies else { return }
        storedBodies = nil
        bodyIDs.know(stored: try await asked.value)
    }

    /// Applies what the reader handed over in order; a run of channels, or of parts, goes to the server in one
    /// statement (``store(_:)``, ``keys(of:)``), not one each.
    func apply(_ items: [ImportItem]) async throws {
        var rest = items[...]
        while let item = rest.first {
            switch item {
            case .channel:
                var run: [GuideCore.Channel] = [], ids: Set<ChannelID> = []
                // A channel listed twice ends the run: the second's details replace the first's, as they would alone.
                while case .channel(let channel) = rest.first, ids.insert(channel.id).inserted {
                    run.append(channel)
                    rest = rest.dropFirst()
                }
                try await store(run)
            case .part:
                var run: [ListingPart] = []
                while case .part(let part) = rest.first {
                    run.append(part)
                    rest = rest.dropFirst()
                }
                let keys = try await keys(of: run.map(\.channel))
                for part in run { if let key = keys[part.channel] { parts[key] = part } }
            default:
                try await apply(item)
                rest = rest.dropFirst()
            }
        }
    }

    func apply(_ item: ImportItem) async throws {
        switch item {
        case .channel(let channel): try await store([channel])
        case .programme(let programme): try await add(programme)
        case .retire(let kept): try await retire(allBut: kept)
        case .part(let part): parts[try await channelKey(part.channel)] = part
        case .runEnds(let channel, let nextStart, let cuts): try await endRun(channel, nextStart: nextStart, cuts: cuts)
        }
    }

    /// The key of a channel a programme names, adding a row named by its id if the guide has none yet.
    private func channelKey(_ channel: ChannelID) async throws -> Int64 {
        if let key = tally.key(of: channel) { return key }
        guard let key = try await keys(of: [channel])[channel] else {
            throw StoreError(.failed, "channel \(channel.rawValue) was not stored")
        }
        return key
    }

    /// Records where a channel's run read so far ends; the repairs take it in ``flush()``, in order with the rows.
    private func endRun(_ channel: ChannelID, nextStart: Int64?, cuts: Bool) async throws {
        let key = try await channelKey(channel)
        pendingEnds.append((pending.count, key, nextStart, cuts))
        if parts[key] != nil, !partsReplaced.contains(key) { partsEnded.insert(key) }
        if pending.isEmpty { try await flush() }
    }

    func add(_ prepared: PreparedProgramme) async throws {
        let key = try await channelKey(prepared.channel)
        pending.append((prepared, key))
        tally.add(channel: key, start: prepared.start, stop: prepared.provisionalStop)
        if pending.count >= Self.batchSize { try await flush() }
    }

    /// Sends the pending programmes' texts and rows (``Batch``), which the server stores while this session settles
    /// the batch before (``settle(_:)``) and reads the next: the two took turns, each idle while the other worked
    /// (issue 46).
    private func flush() async throws {
        guard !pending.isEmpty else {
            try await settle()
            for end in pendingEnds { repairs.end(end.key, nextStart: end.nextStart, cuts: end.cuts) }
            pendingEnds.removeAll(keepingCapacity: true)
            if repairs.hasChanges { try await applyRepairs() }
            return
        }
        try await knowStoredBodies()
        let batch = try Batch(pending, serials: &serials, titleIDs: &titleIDs, bodyIDs: &bodyIDs)
        let texts = batch.hasTexts ? link.send(batch.textsQuery()) { row in
            let (titles, bodies) = try row.decode((PostgresInt64s?, PostgresInt64s?).self)
            return ProbedTexts(titles: titles?.values ?? [], bodies: bodies?.values ?? [])
        } : nil
        let sent = InFlight(batch: batch, ends: pendingEnds, texts: texts, copy: copy(batch, texts: texts),
                            deletes: sendPartDeletes())
        inFlight.append(sent)
        pendingEnds = []
        pending = []
        pending.reserveCapacity(Self.batchSize)
        if inFlight.count > Self.batchesInFlight { try await settle(inFlight.removeFirst()) }
    }

    /// Sends `batch`'s rows by `COPY`, once `texts` has answered when they wait for it. The rows are written where
    /// the `COPY` is made, beside this session, unless they wait for the answer: then once the server is ready for
    /// them, the answer having come before. Nothing but the settling reads these rows, so the `COPY` need not reach
    /// the server in order with the statements sent after it; ``stop()`` waits for it before the transaction ends.
    private func copy(_ batch: Batch, texts: Task<[ProbedTexts], any Error>?) -> Task<Void, any Error> {
        Task { [link, sourceID, importID] in
            let ready = batch.isProbing ? nil : try batch.rows(sourceID: sourceID, importID: importID,
                                                               probed: ProbedTexts())
            try await link.copy(into: "programme", columns: Batch.columns) {
                if let ready { return ready }
                let probed = try await texts?.value.first ?? ProbedTexts()
                return try batch.rows(sourceID: sourceID, importID: importID, probed: probed)
            }
        }
    }

    /// Settles every batch sent (``settle(_:)``).
    private func settle() async throws {
        while !inFlight.isEmpty { try await settle(inFlight.removeFirst()) }
    }

    /// Waits until `sent` is stored, remembers the ids of the texts it looked for, and hands its rows to the
    /// repairs, in the order read, with the ends of runs where they were read.
    private func settle(_ sent: InFlight) async throws {
        // Both are waited for before either's failure is thrown: nothing of a batch is left running.
        let texts = await sent.texts?.result, copied = await sent.copy.result
        let probed = try texts?.get().first ?? ProbedTexts()
        try copied.get()
        let batch = sent.batch
        guard probed.titles.count == batch.probedTitles.count, probed.bodies.count == batch.probedBodies.count else {
            throw StoreError(.failed, "\(batch.probedTitles.count) titles were looked for, \(probed.titles.count) found")
        }
        var titles = batch.newTitles.map { ($0.id, $0.programme.foldedTitle) }
        var bodies = batch.newBodies.map { ($0.id, $0.programme.foldedBody) }
        for ((candidate, programme), id) in zip(batch.probedTitles, probed.titles) {
            titleIDs.remember(id, for: programme)
            if id == candidate { titles.append((id, programme.foldedTitle)) }
        }
        for ((candidate, programme), id) in zip(batch.probedBodies, probed.bodies) {
            bodyIDs.remember(id, for: programme.bodyHash)
            if id == candidate { bodies.append((id, programme.foldedBody)) }
        }
        try await index(titles: titles, bodies: bodies)
        var ends = sent.ends[...]
        for (index, (programme, key)) in batch.rows.enumerated() {
            while let end = ends.first, end.after <= index {
                repairs.end(end.key, nextStart: end.nextStart, cuts: end.cuts)
                ends = ends.dropFirst()
            }
            let clump = programme.clumpIndex.flatMap { $0.isEmpty ? nil : $0 }  // As stored: "" is NULL.
            repairs.add(ListingRepair.Airing(id: batch.firstID + Int64(index), start: programme.start,
                                             stop: programme.provisionalStop, isStopKnown: programme.knownStop != nil,
                                             title: programme.title, clump: clump, line: programme.line),
                        channel: key, named: tally.channelIDs[key])
        }
        for end in ends { repairs.end(end.key, nextStart: end.nextStart, cuts: end.cuts) }
        if repairs.hasChanges { try await applyRepairs() }
        for deleted in sent.deletes { replacedEarly += Int(try await deleted.value.first ?? 0) }
    }

    /// Waits for what was sent and not yet settled, its failures ignored: an import that failed ends its transaction
    /// after this, so that no `COPY` still to be sent runs outside it.
    func stop() async {
        for sent in inFlight {
            _ = await sent.texts?.result
            _ = await sent.copy.result
            for deleted in sent.deletes { _ = await deleted.result }
        }
        inFlight = []
    }

    func record(_ log: IssueLog) {
        issues.merge(log)
    }

    func retire(allBut kept: Set<ChannelID>) async throws {
        try await flush()
        try await settle()
        for row in try await link.query("""
            SELECT s.channel_key, c.id FROM source_coverage s JOIN channel c ON c.key = s.channel_key WHERE s.source_id = \(sourceID)
            """) {
            let (key, id) = try row.decode((Int64, String).self)
            guard !kept.contains(ChannelID(id)) else { continue }
            retired += try await link.execute("DELETE FROM programme WHERE source_id = \(sourceID) AND channel_key = \(key)")
            try await link.execute("DELETE FROM source_coverage WHERE source_id = \(sourceID) AND channel_key = \(key)")
            retiredChannels.insert(key)
            repairs.forget(channels: [key])
        }
    }

    /// Repairs the new rows and drops what they replace; the shared end of the import (``ImportFinish``) does the rest.
    func finish() async throws -> ImportFinish {
        try await flush()
        try await settle()
        try await finishRepairs()
        let removed = repairs.deleted
        let covered = tally.spans(with: parts)
        let spans = covered.map { (key: $0.key, start: $0.value.start, end: $0.value.end) }
        let whole = spans.filter { parts[$0.key] == nil && coveredBefore.contains($0.key) }
        let keys = spans.map(\.key), firsts = spans.map(\.start), lasts = spans.map(\.end)
        var replaced = try await link.execute("""
            DELETE FROM programme p
            USING unnest(\(whole.map(\.key))::bigint[], \(whole.map(\.start))::bigint[], \(whole.map(\.end))::bigint[]) AS c(key, first, last)
            WHERE p.source_id = \(sourceID) AND p.channel_key = c.key AND p.import_id <> \(importID)
              AND p.start < c.last AND (p.stop > c.first OR p.start >= c.first)
            """)
        replaced += try await replaceParts(through: covered) + replacedEarly
        try await titleIndex.write(on: link)
        try await bodyIndex.write(on: link)
        try await serials.release(on: link)
        try await countProgrammes(change: tally.programmeCount - removed - replaced - retired,
                                  dropped: replaced + retired + removed)
        try await link.execute("""
            INSERT INTO source_coverage (source_id, channel_key, first, last)
            SELECT \(sourceID), key, first, last FROM unnest(\(keys)::bigint[], \(firsts)::bigint[], \(lasts)::bigint[]) AS c(key, first, last)
            ON CONFLICT (channel_key, source_id) DO UPDATE
            SET first = least(source_coverage.first, excluded.first), last = greatest(source_coverage.last, excluded.last)
            """)
        return ImportFinish(source: source, sourceID: sourceID, importID: importID,
                            touchedChannels: Array(retiredChannels.union(covered.keys)), channels: tally.channelCount,
                            programmes: tally.programmeCount - removed, replaced: replaced + retired, issues: issues)
    }

    /// Gathers the trigrams of the titles and bodies a batch added, in the order of their ids.
    private func index(titles: [(Int64, String)], bodies: [(Int64, String)]) async throws {
        for (id, folded) in titles.sorted(by: { $0.0 < $1.0 }) { try await titleIndex.add(folded, id: id, on: link) }
        for (id, folded) in bodies.sorted(by: { $0.0 < $1.0 }) { try await bodyIndex.add(folded, id: id, on: link) }
    }

    /// Applies the documented repairs (``ListingRepair``) decided so far to this import's rows.
    private func applyRepairs() async throws {
        let changes = repairs.takeChanges()
        if !changes.stops.isEmpty {
            let ids = changes.stops.map(\.id), stops = changes.stops.map(\.stop)
            try await link.execute("""
                UPDATE programme p SET stop = s.stop, stop_known = true FROM unnest(\(ids)::bigint[], \(stops)::bigint[]) AS s(id, stop)
                WHERE p.id = s.id
                """)
        }
        if !changes.duplicates.isEmpty {
            try await link.execute("DELETE FROM programme p USING unnest(\(changes.duplicates)::bigint[]) AS d(id) WHERE p.id = d.id")
        }
    }

    /// Settles the repairs: every channel's last slot, then the channels whose rows came back out of order, read back.
    private func finishRepairs() async throws {
        repairs.finish()
        try await applyRepairs()
        for key in repairs.channelsToReread {
            var rows: [ListingRepair.Airing] = []
            for row in try await link.query("""
                SELECT id, start, stop, stop_known, details, clump, line FROM programme
                WHERE import_id = \(importID) AND channel_key = \(key)
                """) {
                let (id, start, stop, isStopKnown, details, clump, line) =
                    try row.decode((Int64, Int64, Int64, Bool, ByteBuffer, String?, Int64?).self)
                guard let title = details.withUnsafeReadableBytes(DetailsCodec.title(of:)) else {
                    throw StoreError(.failed, "programme \(id) of this import has unreadable details")
                }
                rows.append(ListingRepair.Airing(id: id, start: start, stop: stop, isStopKnown: isStopKnown, title: title, clump: clump,
                                                 line: line.map(Int.init)))
            }
            repairs.repairAgain(key, rows: rows)
            try await applyRepairs()
        }
        issues.merge(repairs.issues)
    }
}
