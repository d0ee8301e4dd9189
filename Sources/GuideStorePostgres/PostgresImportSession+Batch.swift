import GuideStore
import NIOCore
import PostgresNIO

extension PostgresImportSession {
    /// One batch of programmes: their rows, sent by `COPY` (``copy(_:texts:)``), and the titles and bodies they need
    /// that the session does not know the ids of, sent before them in one statement (``textsQuery()``).
    ///
    /// The session hands out the ids itself (``Serials``), so nothing waits for an answer to learn them: a row's,
    /// and a text's known to be new (every title in a first import, a body ``KnownBodies/isNew(_:)`` says is). A text
    /// that may be stored already is looked for by the statement, which adds it with the id the session set aside
    /// for it when it is not; its rows are written once the answer says which id it has. The rows went in before as
    /// one statement of arrays that found or added their texts, joined the rows to them and returned each row's ids:
    /// 9.3 µs of the server's time a programme at 0.5 M, where `COPY` takes 3.3-4.2 (docs/performance.md).
    struct Batch: Sendable {
        let rows: [(programme: PreparedProgramme, channel: Int64)]
        /// The first row's id; the rest follow in order.
        let firstID: Int64
        /// Each row's title and body id, or -(i + 1) for the i-th text looked for (``probedTitles``,
        /// ``probedBodies``); a body id of 0 is none.
        private(set) var titleRefs: [Int64] = [], bodyRefs: [Int64] = []
        /// Texts known to be new, with the ids given them.
        private(set) var newTitles: [(id: Int64, programme: PreparedProgramme)] = []
        private(set) var newBodies: [(id: Int64, programme: PreparedProgramme)] = []
        /// Texts that may be stored: looked for, and added with the id set aside (`candidate`) when not found.
        private(set) var probedTitles: [(candidate: Int64, programme: PreparedProgramme)] = []
        private(set) var probedBodies: [(candidate: Int64, programme: PreparedProgramme)] = []

        /// The rows of `pending` with their ids, their texts' ids taken from `titleIDs` and `bodyIDs` where known.
        /// A text known to be new gets its id here and is remembered at once, so the batches after it know it too.
        init(_ pending: [(programme: PreparedProgramme, channel: Int64)], serials: inout Serials,
             titleIDs: inout KnownTitles, bodyIDs: inout KnownBodies) throws {
            rows = pending
            firstID = try serials.programme.take(pending.count)
            titleRefs.reserveCapacity(pending.count)
            bodyRefs.reserveCapacity(pending.count)
            // The texts this batch gave ids to or looks for: one a text, even when the session forgets it meanwhile.
            var titlesHere: [UTF8Key: Int64] = [:], bodiesHere: [Int64: Int64] = [:]
            for (programme, _) in pending {
                if let id = titleIDs.id(of: programme) {
                    titleRefs.append(id)
                } else {
                    let key = UTF8Key(programme.foldedTitle)
                    if let ref = titlesHere[key] {
                        titleRefs.append(ref)
                    } else {
                        let id = try serials.title.take(), isNew = titleIDs.holdsEveryTitle
                        if isNew { titleIDs.remember(id, for: programme) }
                        let ref = Self.reference(id, of: programme, isNew: isNew, new: &newTitles, probed: &probedTitles)
                        titlesHere[key] = ref
                        titleRefs.append(ref)
                    }
                }
                let hash = programme.bodyHash
                if hash == 0 {
                    bodyRefs.append(0)
                } else if let ref = bodyIDs[hash] ?? bodiesHere[hash] {
                    bodyRefs.append(ref)
                } else {
                    let id = try serials.body.take(), isNew = bodyIDs.isNew(hash)
                    if isNew { bodyIDs.remember(id, for: hash) }
                    let ref = Self.reference(id, of: programme, isNew: isNew, new: &newBodies, probed: &probedBodies)
                    bodiesHere[hash] = ref
                    bodyRefs.append(ref)
                }
            }
        }

        /// How a row refers to a text met for the first time, given `id`: by that id when the text is new (added to
        /// `new`), else as the next of those looked for (-(i + 1) for the i-th of `probed`, `id` set aside for it).
        private static func reference(_ id: Int64, of programme: PreparedProgramme, isNew: Bool,
                                      new: inout [(id: Int64, programme: PreparedProgramme)],
                                      probed: inout [(candidate: Int64, programme: PreparedProgramme)]) -> Int64 {
            if isNew {
                new.append((id, programme))
                return id
            }
            probed.append((id, programme))
            return -Int64(probed.count)
        }

        var hasTexts: Bool {
            !newTitles.isEmpty || !newBodies.isEmpty || !probedTitles.isEmpty || !probedBodies.isEmpty
        }

        /// Whether a row waits for the answer of ``textsQuery()`` to know its texts' ids.
        var isProbing: Bool { !probedTitles.isEmpty || !probedBodies.isEmpty }

        /// Adds the new titles and bodies with their ids, and finds those that may be stored (a body with the
        /// descriptions it keeps; NULL for those stored before v36, which match none), adding those not found with
        /// the ids set aside. The answer is one row: each looked-for title's and body's id, in order. A title is
        /// probed by its own index entry, and a body by its hash's index and then compared whole (`OFFSET 0`), not
        /// "= ANY(array)" or a join: inside the import's transaction the planner's statistics describe the tables
        /// before it (a scan comparing every row with the whole array took 17 s a batch), and given `folded = text`
        /// it asked v38's trigram index of the descriptions, which held every trigram of a description (4-7 s a
        /// batch). Only this import adds titles and bodies (it holds the listings' turn), and the batch before is
        /// stored first on the same connection, so what it added is found, not added twice. (Sent by `COPY` in runs
        /// instead, the new texts cost the server no less: docs/performance.md.)
        func textsQuery() -> PostgresQuery {
            """
            WITH new_titles AS (INSERT INTO title (id, folded)
                                SELECT * FROM unnest(\(newTitles.map(\.id))::bigint[],
                                                     \(newTitles.map(\.programme.foldedTitle))::text[])),
            new_bodies AS (INSERT INTO body (id, hash, folded, texts)
                           SELECT * FROM unnest(\(newBodies.map(\.id))::bigint[],
                                                \(newBodies.map(\.programme.bodyHash))::bigint[],
                                                \(newBodies.map(\.programme.foldedBody))::text[],
                                                \(newBodies.map(\.programme.bodyTexts))::bytea[])),
            probed_titles AS MATERIALIZED (
                SELECT w.n, w.c, w.folded, (SELECT t.id FROM title t WHERE t.folded = w.folded) AS id
                FROM unnest(\(probedTitles.map(\.programme.foldedTitle))::text[],
                            \(probedTitles.map(\.candidate))::bigint[]) WITH ORDINALITY AS w(folded, c, n)),
            added_titles AS (INSERT INTO title (id, folded) SELECT c, folded FROM probed_titles WHERE id IS NULL),
            probed_bodies AS MATERIALIZED (
                SELECT w.n, w.c, w.h, w.f, w.x,
                       (SELECT b.id FROM (SELECT id, folded, texts FROM body WHERE hash = w.h AND texts IS NOT NULL
                                          OFFSET 0) AS b
                        WHERE b.folded = w.f AND b.texts = w.x LIMIT 1) AS id
                FROM unnest(\(probedBodies.map(\.programme.bodyHash))::bigint[],
                            \(probedBodies.map(\.programme.foldedBody))::text[],
                            \(probedBodies.map(\.programme.bodyTexts))::bytea[],
                            \(probedBodies.map(\.candidate))::bigint[]) WITH ORDINALITY AS w(h, f, x, c, n)),
            added_bodies AS (INSERT INTO body (id, hash, folded, texts)
                             SELECT c, h, f, x FROM probed_bodies WHERE id IS NULL)
            SELECT (SELECT array_agg(coalesce(id, c) ORDER BY n) FROM probed_titles),
                   (SELECT array_agg(coalesce(id, c) ORDER BY n) FROM probed_bodies)
            """
        }

        /// The columns of ``rows(sourceID:importID:probed:)``, in order.
        static let columns = ["id", "source_id", "import_id", "channel_key", "start", "stop", "stop_known", "title_id",
                              "clump", "line", "body_id", "details"]

        /// The rows as `COPY` reads them, the ids of the texts looked for taken from `probed`.
        func rows(sourceID: Int64, importID: Int64, probed: ProbedTexts) throws -> ByteBuffer {
            guard probed.titles.count == probedTitles.count, probed.bodies.count == probedBodies.count else {
                throw StoreError(.failed, "\(probedTitles.count) titles and \(probedBodies.count) bodies were looked "
                                 + "for and \(probed.titles.count) and \(probed.bodies.count) found or added")
            }
            func resolved(_ ref: Int64, in ids: [Int64]) -> Int64 { ref >= 0 ? ref : ids[Int(-ref - 1)] }
            // About 90 bytes of details a row at 0.5 M, written as 180 digits, and 100 for the rest.
            var text = PostgresCopyText(capacity: rows.count * 320)
            for (index, (programme, channel)) in rows.enumerated() {
                text.integer(firstID + Int64(index)); text.next()
                text.integer(sourceID); text.next()
                text.integer(importID); text.next()
                text.integer(channel); text.next()
                text.integer(programme.start); text.next()
                text.integer(programme.provisionalStop); text.next()
                text.boolean(programme.knownStop != nil); text.next()
                text.integer(resolved(titleRefs[index], in: probed.titles)); text.next()
                // As the statements before wrote it: an empty clump index is none.
                if let clump = programme.clumpIndex, !clump.isEmpty { text.text(clump) } else { text.null() }
                text.next()
                if let line = programme.line { text.integer(Int64(line)) } else { text.null() }
                text.next()
                text.integer(resolved(bodyRefs[index], in: probed.bodies)); text.next()
                text.bytes(programme.details)
                text.endRow()
            }
            return text.buffer
        }
    }

    /// The ids of the titles and bodies a batch looked for (``Batch/textsQuery()``), in order: found, or added.
    struct ProbedTexts: Sendable {
        var titles: [Int64] = [], bodies: [Int64] = []
    }
}
