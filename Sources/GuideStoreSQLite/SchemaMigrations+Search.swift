import GRDB
import GuideStore

extension SchemaMigrations {
    static func registerSearch(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v29: distinct sub-titles and descriptions, indexed for search") { db in
            // Programmes kept their folded sub-titles and descriptions in a column a search of everything scanned;
            // now each distinct text is kept once, found by its hash, with a trigram index (issue 46).
            try db.execute(sql: """
                CREATE TABLE body (
                    id INTEGER PRIMARY KEY,
                    hash INTEGER NOT NULL,
                    folded TEXT NOT NULL
                );
                CREATE INDEX body_by_hash ON body(hash);
                CREATE VIRTUAL TABLE body_search USING fts5(
                    folded, content = 'body', content_rowid = 'id', tokenize = 'trigram'
                );
                INSERT INTO body (hash, folded) SELECT 0, search_text FROM programme WHERE search_text <> '' GROUP BY search_text;
                CREATE INDEX body_by_text ON body(folded);
                ALTER TABLE programme ADD COLUMN body_id INTEGER NOT NULL DEFAULT 0;
                UPDATE programme SET body_id = (SELECT b.id FROM body b WHERE b.folded = programme.search_text)
                WHERE search_text <> '';
                DROP INDEX body_by_text;
                ALTER TABLE programme DROP COLUMN search_text;
                CREATE INDEX programme_by_body ON programme(body_id);
                INSERT INTO body_search (body_search) VALUES ('rebuild');
                """)
            let update = try db.makeStatement(sql: "UPDATE body SET hash = ? WHERE id = ?")
            for row in try Row.fetchAll(db, sql: "SELECT id, folded FROM body") {
                try update.execute(arguments: [BodyHash.of(row[1] as String), row[0] as Int64])
            }
        }
        migrator.registerMigration("v30: the schedule's index holds each programme's title and body") { db in
            // A search checks each programme's title and body in the in-memory schedule, read from this index alone.
            try db.execute(sql: """
                DROP INDEX programme_by_channel;
                CREATE INDEX programme_by_channel ON programme(channel_key, start, stop, hidden, title_id, body_id);
                """)
        }
        migrator.registerMigration("v31: programmes indexed by channel alone") { db in
            // Only the pruning of unused titles and bodies looked programmes up by title or body, and every row an
            // import wrote or replaced paid for both indexes, at random places in them: 2.0 -> 0.4 s to replace one
            // day of a 1.75 M-programme guide (issue 46). The prune reads `programme_by_channel`, which holds both ids.
            try db.execute(sql: """
                DROP INDEX programme_by_title;
                DROP INDEX programme_by_body;
                """)
        }
        migrator.registerMigration("v32: the programmes a merge hides, indexed") { db in
            // A merge showing all of each channel one source is left with looked at every programme of them: 0.25 s at
            // the end of every refresh of a 10,000-channel guide (issue 46). Few programmes are hidden, and only they
            // are in this index (SourceMerge).
            try db.execute(sql: "CREATE INDEX programme_hidden ON programme(channel_key) WHERE hidden")
        }
        migrator.registerMigration("v35: unused texts pruned once a quarter of the programmes has gone") { db in
            // The programmes stored, and those dropped since titles and bodies no programme uses were last pruned.
            try db.execute(sql: """
                ALTER TABLE guide_state ADD COLUMN stored_programmes INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE guide_state ADD COLUMN dropped_since_prune INTEGER NOT NULL DEFAULT 0;
                UPDATE guide_state SET stored_programmes = (SELECT count(*) FROM programme);
                """)
        }
        migrator.registerMigration("v36: a body keeps its programmes' descriptions") { db in
            // Descriptions were two thirds of every row's details; a body now keeps them once for all its programmes
            // (DetailsCodec's version 2). Rows stored before keep theirs inline, and their bodies none (NULL).
            try db.execute(sql: "ALTER TABLE body ADD COLUMN texts BLOB")
        }
        migrator.registerMigration("v37: the trigram indexes keep no positions") { db in
            // Positions let an index answer a phrase itself; a search checks each text it is given anyway, so the
            // indexes now only say which texts hold every trigram of a term (``SQLiteListingStore/trigrams(of:)``).
            // Indexing the 0.1 M-programme guide's bodies: 1.20-1.54 -> 0.93-1.11 s, 23.8 -> 7.1 MB (issue 46).
            for table in ["title", "body"] {
                try db.execute(sql: """
                    DROP TABLE \(table)_search;
                    \(Self.trigramIndex(on: table, tokenizer: "trigram"));
                    INSERT INTO \(table)_search (\(table)_search) VALUES ('rebuild');
                    """)
            }
        }
        migrator.registerMigration("v38: the trigram indexes hold the trigrams within words, once a text") { db in
            // No search asks for a trigram across two words (``WordTrigrams``): 220 -> 101 tokens a description.
            for table in ["title", "body"] {
                try db.execute(sql: """
                    DROP TABLE \(table)_search;
                    \(Self.trigramIndex(on: table, tokenizer: WordTrigrams.name));
                    INSERT INTO \(table)_search (\(table)_search) VALUES ('rebuild');
                    """)
            }
        }
    }

    /// The trigram indexes of v38 again, their tokens spelled anew (``WordTrigrams/spell(_:into:)``).
    static func registerSpelledTrigrams(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v39: the trigram indexes' tokens spread over FTS5's hash table") { db in
            // FTS5 files each token of an insert in a hash table whose function is linear over the token's bits:
            // three letters' trigrams fell in chains of 4.3 tokens on average (15 at most), a cache miss each, where
            // the trigrams' codes spelled in five bytes fall in chains of 1.3 (issue 46).
            for table in ["title", "body"] {
                try db.execute(sql: "INSERT INTO \(table)_search (\(table)_search) VALUES ('rebuild')")
            }
        }
    }

    /// The trigram indexes as our own tables of postings (``TrigramIndex``), in the place of FTS5's.
    static func registerTrigramPostings(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v41: the trigram indexes as one row of ids a trigram code") { db in
            // FTS5 filed each new text's trigrams one at a time, two cache misses each: its body index was 0.45 s of
            // a 1.2 s import of 0.1 M programmes. An import now sorts its new texts' codes once and writes a run of
            // ids a code (issue 46). The FTS5 tables go with their tokenizer still registered, which dropping needs.
            for table in ["title", "body"] {
                try db.execute(sql: """
                    DROP TABLE \(table)_search;
                    CREATE TABLE \(table)_postings (code INTEGER PRIMARY KEY, ids BLOB NOT NULL);
                    """)
                try TrigramIndex.rebuild(db, of: table)
            }
        }
    }

    /// Bodies by hash, those that keep their texts (``bodiesByHash``).
    static func registerBodiesByHash(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration(Self.bodiesByHash.name) { db in
            try db.execute(sql: Self.bodiesByHash.sql)
        }
    }

    /// v43, the same on both stores: an import looks bodies up by hash only among those that keep their texts (no
    /// body stored before v36 matches one), and reads the hashes of all of them as it starts: from this index alone,
    /// where it read the whole table (0.5 M programmes: 0.04-0.10 s and 31 MB of pages, issue 46).
    static let bodiesByHash = (name: "v43: bodies by hash, those that keep their texts", sql: """
        DROP INDEX body_by_hash;
        CREATE INDEX body_by_hash ON body(hash) WHERE texts IS NOT NULL;
        """)

    /// The trigram index of the distinct titles or bodies (`table`) as v37 to v40 kept it in FTS5: which texts hold a
    /// trigram, without positions.
    static func trigramIndex(on table: String, tokenizer: String) -> String {
        """
        CREATE VIRTUAL TABLE \(table)_search USING fts5(
            folded, content = '\(table)', content_rowid = 'id', tokenize = '\(tokenizer)',
            detail = 'none', columnsize = 0
        )
        """
    }
}
