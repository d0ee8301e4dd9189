import GuideStore
import PostgresNIO

extension PostgresImportSession {
    /// One batch of programmes as the statement that stores it (``query(sourceID:importID:)``), with the titles and
    /// bodies the session does not know the ids of yet: those are found or added by the statement itself, so a batch
    /// is sent without waiting for an answer first. A probe for them went before each batch and waited behind the
    /// batch in flight, and the server sat idle while the session read the answer and sent the rows (PostgreSQL's
    /// changed day at 0.5 M: 45 such turns).
    struct Batch {
        var keys: [Int64] = [], starts: [Int64] = [], stops: [Int64] = [], known: [Bool] = []
        var clumps: [String] = [], lines: [Int64] = [], details: [[UInt8]] = []
        /// Each row's title id, or 0 and its folded title ("" when the id is known).
        var titleIDs: [Int64] = [], foldedTitles: [String] = []
        /// Each row's body id, or 0 and its hash (0 for a row without a body, or whose body id is known).
        var bodyIDs: [Int64] = [], bodyHashes: [Int64] = []
        /// The folded titles, and the bodies by hash (folded, and the descriptions they keep), whose ids the
        /// statement finds (each once), and whether each may be stored already (else it is added without looking).
        var wantedTitles: [String] = [], titlesMayBeStored: [Bool] = []
        var wantedHashes: [Int64] = [], wantedBodies: [String] = [], wantedTexts: [[UInt8]] = []
        var bodiesMayBeStored: [Bool] = []
        /// The same titles and bodies, for the batch after this one, which is made while this one is stored.
        var wanted = Wanted()

        /// The titles and bodies of a batch whose ids it finds or adds.
        struct Wanted {
            var titles: Set<UTF8Key> = [], bodies: Set<Int64> = []
        }

        init() {}

        /// The rows of `pending`, their texts' ids taken from `titleIDs` and `bodyIDs` where known. A text neither
        /// knows is looked for in the tables unless it is known to be new: a title when `titleIDs` holds every title
        /// stored, a body when `bodyIDs` says so (``KnownBodies/isNew(_:)``), and neither when the batch before
        /// (`inFlight`), whose ids are not known yet, wants it too.
        init(_ pending: [(programme: PreparedProgramme, channel: Int64)], titleIDs knownTitles: inout KnownTitles,
             bodyIDs knownBodies: KnownBodies, inFlight: Wanted) {
            var bodiesWanted: [Int64: PreparedProgramme] = [:]
            for (programme, key) in pending {
                keys.append(key)
                starts.append(programme.start)
                stops.append(programme.provisionalStop)
                known.append(programme.knownStop != nil)
                // Arrays of optionals do not bind: "" and -1 stand for none, turned back into NULL by the statement.
                clumps.append(programme.clumpIndex ?? "")
                lines.append(programme.line.map(Int64.init) ?? -1)
                details.append(programme.details)
                let titleID = knownTitles.id(of: programme) ?? 0
                titleIDs.append(titleID)
                foldedTitles.append(titleID == 0 ? programme.foldedTitle : "")
                if titleID == 0 { wanted.titles.insert(UTF8Key(programme.foldedTitle)) }
                let hash = programme.bodyHash, bodyID = hash == 0 ? 0 : knownBodies[hash] ?? 0
                bodyIDs.append(bodyID)
                bodyHashes.append(bodyID == 0 ? hash : 0)
                if hash != 0, bodyID == 0, bodiesWanted[hash] == nil { bodiesWanted[hash] = programme }
            }
            wantedTitles = wanted.titles.map(\.text)
            let holdingEveryTitle = knownTitles.holdsEveryTitle
            titlesMayBeStored = wanted.titles.map { !holdingEveryTitle || inFlight.titles.contains($0) }
            wantedHashes = Array(bodiesWanted.keys)
            wanted.bodies = Set(wantedHashes)
            wantedBodies = wantedHashes.map { bodiesWanted[$0]?.foldedBody ?? "" }
            wantedTexts = wantedHashes.map { bodiesWanted[$0]?.bodyTexts ?? [] }
            bodiesMayBeStored = wantedHashes.map { !knownBodies.isNew($0) || inFlight.bodies.contains($0) }
        }

        /// Finds the wanted titles and bodies (a body with the descriptions it keeps, NULL for those stored before v36,
        /// which match none), adds those not stored, and inserts the rows; each row comes back as its id, title id and
        /// body id, and the ids of the titles and bodies added, for their trigrams (``PostgresTrigramIndex``). A title
        /// is probed by its own index entry, and a body by its hash's index and then compared whole (`OFFSET 0`), not
        /// "= ANY(array)" or a join: inside the import's transaction the planner's statistics describe the tables
        /// before it (a scan comparing every row with the whole array took 17 s a batch), and given `folded = text` it
        /// asked v38's trigram index of the descriptions, which held every trigram of a description (4-7 s a batch).
        /// Only this import adds titles and bodies (it holds the listings' turn), and the batch before is stored first
        /// on the same connection, so what it added is found, not added twice. One the session knows to be new is not
        /// looked for (`m` false): in a first import, all but those the batch before wants too (at 0.1 M programmes
        /// the server's time for the batches fell by 6-7%, docs/performance.md). The rows go in in the order of the
        /// arrays (`ORDER BY n`), so the ids the sequence hands them, sorted, are theirs in order: the answer is one
        /// row of three arrays (ids, title ids, body ids) in the order of the ids and the two of the texts added, not a
        /// row a programme (at 1.75 M, 1.76 million rows the session and PostgresNIO took apart one cell at a time).
        func query(sourceID: Int64, importID: Int64) -> PostgresQuery {
            """
            WITH probed_titles AS MATERIALIZED (
                SELECT w.folded, CASE WHEN w.m THEN (SELECT t.id FROM title t WHERE t.folded = w.folded) END AS id
                FROM unnest(\(wantedTitles)::text[], \(titlesMayBeStored)::boolean[]) AS w(folded, m)),
            new_titles AS (INSERT INTO title (folded) SELECT folded FROM probed_titles WHERE id IS NULL
                           RETURNING id, folded),
            found_titles AS (SELECT folded, id FROM probed_titles WHERE id IS NOT NULL
                             UNION ALL SELECT folded, id FROM new_titles),
            probed_bodies AS MATERIALIZED (
                SELECT w.h, w.f, w.x,
                       CASE WHEN w.m THEN
                       (SELECT b.id FROM (SELECT id, folded, texts FROM body WHERE hash = w.h AND texts IS NOT NULL
                                          OFFSET 0) AS b
                        WHERE b.folded = w.f AND b.texts = w.x LIMIT 1) END AS id
                FROM unnest(\(wantedHashes)::bigint[], \(wantedBodies)::text[], \(wantedTexts)::bytea[],
                            \(bodiesMayBeStored)::boolean[]) AS w(h, f, x, m)),
            new_bodies AS (INSERT INTO body (hash, folded, texts) SELECT h, f, x FROM probed_bodies WHERE id IS NULL
                           RETURNING id, hash),
            found_bodies AS (SELECT h, id FROM probed_bodies WHERE id IS NOT NULL
                             UNION ALL SELECT hash, id FROM new_bodies),
            stored AS (
            INSERT INTO programme (source_id, import_id, channel_key, start, stop, stop_known, title_id, clump, line,
                                   body_id, details)
            SELECT \(sourceID), \(importID), u.k, u.s, u.e, u.sk, coalesce(nullif(u.ti, 0), ft.id, 0),
                   nullif(u.cl, ''), nullif(u.ln, -1), coalesce(nullif(u.bi, 0), fb.id, 0), u.d
            FROM unnest(\(keys)::bigint[], \(starts)::bigint[], \(stops)::bigint[], \(known)::boolean[],
                        \(titleIDs)::bigint[], \(foldedTitles)::text[], \(clumps)::text[], \(lines)::bigint[],
                        \(bodyIDs)::bigint[], \(bodyHashes)::bigint[], \(details)::bytea[])
                 WITH ORDINALITY AS u(k, s, e, sk, ti, tf, cl, ln, bi, bh, d, n)
            LEFT JOIN found_titles ft ON u.ti = 0 AND ft.folded = u.tf
            LEFT JOIN found_bodies fb ON u.bi = 0 AND u.bh <> 0 AND fb.h = u.bh
            ORDER BY u.n
            RETURNING id, title_id, body_id)
            SELECT array_agg(id ORDER BY id), array_agg(title_id ORDER BY id), array_agg(body_id ORDER BY id),
                   (SELECT array_agg(id) FROM new_titles), (SELECT array_agg(id) FROM new_bodies)
            FROM stored
            """
        }
    }

    /// Moves `guide_state`'s counts of programmes stored and dropped on by this import's, and prunes the texts no
    /// programme uses when that is due (``TextPrune``).
    func countProgrammes(change: Int, dropped: Int) async throws {
        var counts = TextPrune(stored: 0, dropped: 0)
        if let row = try await link.query("SELECT stored_programmes, dropped_since_prune FROM guide_state").first {
            let (stored, pending) = try row.decode((Int64, Int64).self)
            counts = TextPrune(stored: stored, dropped: pending)
        }
        if counts.count(change: change, dropped: dropped) { counts.pruned(stored: try await pruneTexts()) }
        try await link.execute("""
            UPDATE guide_state SET stored_programmes = \(counts.stored), dropped_since_prune = \(counts.dropped)
            """)
        // The source's own count (v44), which only its imports and its removal move; one edited past 2^62 is read as
        // 2^62 (as SQLite's), so that the sum stays within bigint rather than failing the import.
        try await link.execute("""
            UPDATE source SET stored_programmes = greatest(0, least(stored_programmes, 4611686018427387904) + \(change))
            WHERE id = \(sourceID)
            """)
    }

    /// Titles and bodies no programme points at any more leave the tables, and the trigram indexes of those that lost
    /// any are written anew (``PostgresTrigramIndex/rebuild(_:on:)``). No index by title or body is kept (v31), so
    /// this reads every programme, once for both tables: an anti-join for each, each reading and hashing every
    /// programme, took 222 and 264 ms at 0.5 M programmes (88,246 of them replaced), and the pairs in use gathered
    /// once (85,242 of them) 315 ms for both (docs/performance.md). Returns how many programmes it read.
    func pruneTexts() async throws -> Int64 {
        let row = try await link.query("""
            WITH used AS MATERIALIZED (SELECT title_id, body_id, count(*) AS n FROM programme
                                       GROUP BY title_id, body_id),
                 unused_titles AS (DELETE FROM title t WHERE NOT EXISTS (SELECT 1 FROM used u WHERE u.title_id = t.id)
                                   RETURNING 1),
                 unused_bodies AS (DELETE FROM body b WHERE NOT EXISTS (SELECT 1 FROM used u WHERE u.body_id = b.id)
                                   RETURNING 1)
            SELECT coalesce(sum(n), 0)::bigint, (SELECT count(*) FROM unused_titles),
                   (SELECT count(*) FROM unused_bodies)
            FROM used
            """).first
        guard let (programmes, titles, bodies) = try row?.decode((Int64, Int64, Int64).self) else { return 0 }
        if titles > 0 { try await PostgresTrigramIndex.rebuild("title", on: link) }
        if bodies > 0 { try await PostgresTrigramIndex.rebuild("body", on: link) }
        return programmes
    }
}
