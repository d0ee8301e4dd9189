// Written by SchemaSnapshotTests from what GRDB's migrator (SchemaMigrations.migrator) makes, not by hand:
// TVGUIDE_WRITE_SCHEMA_SNAPSHOT=1 swift test --filter SchemaSnapshotTests

extension SchemaMigrations {
    /// A new database as the steps leave it: made from this in one transaction, it holds what they
    /// make one by one (SchemaSnapshotTests), and is used only while its steps are the present ones.
    enum Snapshot {
        /// The steps it was made by, in order.
        static let steps: [String] = [
            #"v1: sources, channels, programmes, search"#,
            #"v2: programmes name their channel by an integer key"#,
            #"v3: profiles, their channels, sessions and API tokens"#,
            #"v4: configured sources, their channels, and merged listings"#,
            #"v5: web API answers cached for offline use"#,
            #"v6: followed shows, their episodes, reminder settings"#,
            #"v7: refreshes that never finished, sign-in throttles per address and profile"#,
            #"v8: API token scopes, calendar feed secrets stored hashed"#,
            #"v9: a followed show's channel may be a web channel"#,
            #"v10: reminders, delivery channels, what was sent, saved searches, the server's push key"#,
            #"v11: IPTV playlists' entries and headers"#,
            #"v12: a profile's theme"#,
            #"v13: the logos admins choose for channels"#,
            #"v14: channel groups, favourites, the guests' group"#,
            #"v15: timeshift channels, and what matching reads of a playlist entry in columns"#,
            #"v16: feeds for media servers"#,
            #"v17: what Schedules Direct sources keep between refreshes"#,
            #"v18: watched episodes per profile"#,
            #"v19: a profile's TVmaze account, synced both ways"#,
            #"v20: a feed's own tuner port, for Plex"#,
            #"v21: a recorder, its channels, who may record, and what was asked of it"#,
            #"v22: a saved search that records what it finds"#,
            #"v23: a profile's language and clock"#,
            #"v24: one schema: import_run without the longest programme"#,
            #"v25: who chose a source channel's mapping, and the matcher's suggestions"#,
            #"v26: a show's other titles, to find it in listings"#,
            #"v27: a profile's listings languages"#,
            #"v28: what a feed's bytes were when they were last imported"#,
            #"v29: distinct sub-titles and descriptions, indexed for search"#,
            #"v30: the schedule's index holds each programme's title and body"#,
            #"v31: programmes indexed by channel alone"#,
            #"v32: the programmes a merge hides, indexed"#,
            #"v35: unused texts pruned once a quarter of the programmes has gone"#,
            #"v36: a body keeps its programmes' descriptions"#,
            #"v37: the trigram indexes keep no positions"#,
            #"v38: the trigram indexes hold the trigrams within words, once a text"#,
            #"v39: the trigram indexes' tokens spread over FTS5's hash table"#,
            #"v40: a programme's title kept once, in its details"#,
            #"v41: the trigram indexes as one row of ids a trigram code"#,
            #"v43: bodies by hash, those that keep their texts"#,
            #"v44: each source's programmes counted, the hidden ones indexed with their source"#,
        ]

        /// Each schema entry's SQL (the tables first, then the rest, each in the order made) and
        /// each row the steps insert but their own records, one statement after another.
        static let script = #"""
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            CREATE TABLE source (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                priority INTEGER NOT NULL DEFAULT 0,
                imported_at INTEGER
            , definition TEXT, last_attempt INTEGER, last_success INTEGER, last_error TEXT, last_outcome TEXT,\#
             last_bytes INTEGER NOT NULL DEFAULT 0, last_programmes INTEGER NOT NULL DEFAULT 0, last_repairs INTEGER\#
             NOT NULL DEFAULT 0, last_duration REAL NOT NULL DEFAULT 0, refresh_started_at INTEGER, failures_in_row\#
             INTEGER NOT NULL DEFAULT 0, stored_programmes INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE title (
                id INTEGER PRIMARY KEY,
                folded TEXT NOT NULL UNIQUE
            );
            CREATE TABLE "channel" (
                key INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                name TEXT NOT NULL,
                number TEXT,
                position INTEGER NOT NULL,
                details BLOB NOT NULL
            );
            CREATE TABLE "programme" (
                id INTEGER PRIMARY KEY,
                source_id INTEGER NOT NULL,
                import_id INTEGER NOT NULL,
                channel_key INTEGER NOT NULL,
                start INTEGER NOT NULL,
                stop INTEGER NOT NULL,
                stop_known INTEGER NOT NULL,
                title_id INTEGER NOT NULL,
                clump TEXT,
                line INTEGER,
                -- Folded sub-titles and descriptions, scanned (not indexed) by a search of all text.
                details BLOB NOT NULL
            , hidden INTEGER NOT NULL DEFAULT 0, body_id INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE guide_state (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                generation INTEGER NOT NULL
            , stored_programmes INTEGER NOT NULL DEFAULT 0, dropped_since_prune INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE profile (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                role TEXT NOT NULL,
                secret_kind TEXT NOT NULL,
                secret_hash TEXT NOT NULL,
                day_start_hour INTEGER NOT NULL DEFAULT 5,
                time_zone TEXT,
                created_at INTEGER NOT NULL
            , theme TEXT NOT NULL DEFAULT 'system', can_record INTEGER NOT NULL DEFAULT 0, language TEXT, hours TEXT\#
             NOT NULL DEFAULT 'locale', listing_languages TEXT);
            CREATE TABLE profile_channel (
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                channel_id TEXT NOT NULL,
                PRIMARY KEY (profile_id, channel_id)
            );
            CREATE TABLE session (
                token_hash TEXT PRIMARY KEY,
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL
            );
            CREATE TABLE api_token (
                id INTEGER PRIMARY KEY,
                token_hash TEXT NOT NULL UNIQUE,
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                last_used_at INTEGER
            , scope TEXT NOT NULL DEFAULT 'admin');
            CREATE TABLE source_fetch (
                source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                url TEXT NOT NULL,
                etag TEXT,
                last_modified TEXT, content TEXT,
                PRIMARY KEY (source_id, url)
            );
            CREATE TABLE source_channel (
                source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                channel_id TEXT NOT NULL,
                name TEXT NOT NULL,
                keep INTEGER NOT NULL,
                mapped_to TEXT,
                last_seen INTEGER, chosen_by TEXT, candidates TEXT,
                PRIMARY KEY (source_id, channel_id)
            );
            CREATE TABLE source_coverage (
                source_id INTEGER NOT NULL,
                channel_key INTEGER NOT NULL,
                first INTEGER NOT NULL,
                last INTEGER NOT NULL,
                PRIMARY KEY (channel_key, source_id)
            );
            CREATE TABLE api_cache (
                key TEXT PRIMARY KEY,
                status INTEGER NOT NULL,
                body BLOB NOT NULL,
                fetched_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE series_show (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                status TEXT,
                channel TEXT,
                zone TEXT,
                url TEXT,
                image TEXT,
                updated INTEGER,
                checked_at INTEGER NOT NULL
            , web_channel INTEGER NOT NULL DEFAULT 0, akas TEXT);
            CREATE TABLE series_episode (
                id INTEGER PRIMARY KEY,
                show_id INTEGER NOT NULL REFERENCES series_show(id) ON DELETE CASCADE,
                season INTEGER,
                number INTEGER,
                name TEXT,
                type TEXT,
                airdate TEXT,
                airtime TEXT,
                airstamp TEXT,
                runtime INTEGER,
                url TEXT
            );
            CREATE TABLE followed_show (
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                show_id INTEGER NOT NULL REFERENCES series_show(id) ON DELETE CASCADE,
                reminders INTEGER NOT NULL DEFAULT 1,
                added_at INTEGER NOT NULL,
                PRIMARY KEY (profile_id, show_id)
            );
            CREATE TABLE series_settings (
                profile_id INTEGER PRIMARY KEY REFERENCES profile(id) ON DELETE CASCADE,
                lead_minutes INTEGER NOT NULL,
                shift_minutes INTEGER NOT NULL,
                past_days INTEGER NOT NULL,
                future_days INTEGER NOT NULL,
                calendar_token TEXT UNIQUE
            );
            CREATE TABLE signin_throttle (
                address TEXT NOT NULL,
                name TEXT NOT NULL,
                failures INTEGER NOT NULL,
                locked_until INTEGER NOT NULL,
                trusted_until INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (address, name)
            ) WITHOUT ROWID;
            CREATE TABLE reminder (
                id INTEGER PRIMARY KEY,
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                channel_id TEXT NOT NULL,
                channel_name TEXT NOT NULL,
                title TEXT NOT NULL,
                start INTEGER NOT NULL,
                stop INTEGER NOT NULL,
                lead_minutes INTEGER NOT NULL,
                due_at INTEGER NOT NULL,
                state TEXT NOT NULL,
                note TEXT,
                attempts INTEGER NOT NULL,
                lease_owner TEXT,
                lease_until INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                finished_at INTEGER,
                UNIQUE (profile_id, channel_id, start, title)
            );
            CREATE TABLE delivery_channel (
                id INTEGER PRIMARY KEY,
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                name TEXT NOT NULL,
                target TEXT NOT NULL,
                secret TEXT,
                created_at INTEGER NOT NULL,
                last_sent_at INTEGER,
                last_error TEXT
            );
            CREATE TABLE reminder_delivery (
                reminder_id INTEGER NOT NULL REFERENCES reminder(id) ON DELETE CASCADE,
                channel_id INTEGER NOT NULL REFERENCES delivery_channel(id) ON DELETE CASCADE,
                delivered INTEGER NOT NULL,
                at INTEGER NOT NULL,
                PRIMARY KEY (reminder_id, channel_id)
            ) WITHOUT ROWID;
            CREATE TABLE delivery_log (
                id INTEGER PRIMARY KEY,
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                channel_id INTEGER NOT NULL,
                reminder_id INTEGER,
                title TEXT NOT NULL,
                at INTEGER NOT NULL,
                error TEXT
            );
            CREATE TABLE server_secret (
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE saved_search (
                id INTEGER PRIMARY KEY,
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                words TEXT NOT NULL,
                channels TEXT NOT NULL,
                lead_minutes INTEGER NOT NULL,
                created_at INTEGER NOT NULL
            , records INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE playlist_entry (
                source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                channel_id TEXT NOT NULL,
                match_key TEXT NOT NULL,
                details TEXT NOT NULL, guide_id TEXT, shift_minutes INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (source_id, position)
            );
            CREATE TABLE playlist_header (
                source_id INTEGER PRIMARY KEY REFERENCES source(id) ON DELETE CASCADE,
                guide_urls TEXT NOT NULL
            );
            CREATE TABLE channel_logo (channel_id TEXT PRIMARY KEY, url TEXT NOT NULL);
            CREATE TABLE channel_group (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE channel_group_member (
                group_id INTEGER NOT NULL REFERENCES channel_group(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                channel_id TEXT NOT NULL,
                PRIMARY KEY (group_id, position)
            );
            CREATE TABLE favourite_channel (
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                channel_id TEXT NOT NULL,
                position INTEGER NOT NULL,
                PRIMARY KEY (profile_id, channel_id)
            );
            CREATE TABLE remembered_group (
                profile_id INTEGER PRIMARY KEY REFERENCES profile(id) ON DELETE CASCADE,
                name TEXT NOT NULL
            );
            CREATE TABLE guide_setting (name TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE timeshift_channel (
                id TEXT PRIMARY KEY,
                base_id TEXT NOT NULL,
                offset_minutes INTEGER NOT NULL,
                name TEXT NOT NULL,
                number TEXT,
                logo TEXT
            );
            CREATE TABLE lineup_feed (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                kind TEXT NOT NULL,
                profile_id INTEGER REFERENCES profile(id) ON DELETE CASCADE,
                group_name TEXT,
                days INTEGER NOT NULL,
                shape TEXT NOT NULL,
                token_hash TEXT NOT NULL UNIQUE,
                created_at INTEGER NOT NULL
            , tuner_port INTEGER);
            CREATE TABLE reload_target (
                id INTEGER PRIMARY KEY,
                feed_id INTEGER NOT NULL REFERENCES lineup_feed(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                address TEXT NOT NULL,
                secret TEXT,
                last_outcome TEXT,
                last_succeeded INTEGER,
                last_at INTEGER,
                fingerprint TEXT
            );
            CREATE TABLE sd_document (
                key TEXT PRIMARY KEY,
                version TEXT NOT NULL,
                body BLOB NOT NULL,
                used_at INTEGER NOT NULL
            );
            CREATE TABLE watched_episode (
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                episode_id INTEGER NOT NULL,
                show_id INTEGER NOT NULL,
                season INTEGER,
                number INTEGER,
                watched_at INTEGER,
                plays INTEGER NOT NULL DEFAULT 1,
                marked_at INTEGER NOT NULL,
                PRIMARY KEY (profile_id, episode_id)
            ) WITHOUT ROWID;
            CREATE TABLE tvmaze_account (
                profile_id INTEGER PRIMARY KEY REFERENCES profile(id) ON DELETE CASCADE,
                username TEXT NOT NULL,
                api_key TEXT NOT NULL,
                premium INTEGER NOT NULL DEFAULT 0,
                synced_at INTEGER,
                outcome TEXT,
                succeeded INTEGER
            );
            CREATE TABLE tvmaze_synced (
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                item_id INTEGER NOT NULL,
                PRIMARY KEY (profile_id, kind, item_id)
            ) WITHOUT ROWID;
            CREATE TABLE watched_unmarked (
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                episode_id INTEGER NOT NULL,
                unmarked_at INTEGER NOT NULL,
                PRIMARY KEY (profile_id, episode_id)
            ) WITHOUT ROWID;
            CREATE TABLE recorder (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                kind TEXT NOT NULL,
                address TEXT NOT NULL,
                username TEXT,
                secret TEXT,
                profile TEXT,
                updated_at INTEGER NOT NULL
            );
            CREATE TABLE recorder_channel (
                channel_id TEXT PRIMARY KEY,
                recorder_channel TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE recording (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                profile_id INTEGER NOT NULL REFERENCES profile(id) ON DELETE CASCADE,
                series INTEGER NOT NULL,
                channel_id TEXT NOT NULL,
                title TEXT NOT NULL,
                subtitle TEXT,
                start INTEGER NOT NULL,
                stop INTEGER NOT NULL,
                recorder_id TEXT,
                state TEXT NOT NULL,
                status TEXT,
                requested_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                UNIQUE (channel_id, start, series)
            );
            CREATE TABLE "import_run" (
                id INTEGER PRIMARY KEY,
                source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                started_at INTEGER NOT NULL,
                channels INTEGER NOT NULL DEFAULT 0,
                programmes INTEGER NOT NULL DEFAULT 0,
                issues INTEGER NOT NULL DEFAULT 0
            );
            CREATE TABLE body (
                id INTEGER PRIMARY KEY,
                hash INTEGER NOT NULL,
                folded TEXT NOT NULL
            , texts BLOB);
            CREATE TABLE title_postings (code INTEGER PRIMARY KEY, ids BLOB NOT NULL);
            CREATE TABLE body_postings (code INTEGER PRIMARY KEY, ids BLOB NOT NULL);
            CREATE INDEX channel_by_position ON channel(position);
            CREATE INDEX session_by_profile ON session(profile_id);
            CREATE INDEX series_episode_by_show ON series_episode(show_id, airdate);
            CREATE INDEX followed_by_show ON followed_show(show_id);
            CREATE INDEX signin_throttle_by_age ON signin_throttle(updated_at);
            CREATE INDEX reminder_due ON reminder(state, due_at);
            CREATE INDEX reminder_by_profile ON reminder(profile_id, state, due_at);
            CREATE INDEX delivery_channel_by_profile ON delivery_channel(profile_id);
            CREATE INDEX delivery_log_by_profile ON delivery_log(profile_id, id);
            CREATE INDEX sd_document_used ON sd_document (used_at);
            CREATE INDEX watched_by_show ON watched_episode (profile_id, show_id);
            CREATE UNIQUE INDEX lineup_feed_tuner_port ON lineup_feed (tuner_port) WHERE tuner_port IS NOT NULL;
            CREATE INDEX recording_by_time ON recording (stop, start);
            CREATE INDEX programme_by_channel ON programme(channel_key, start, stop, hidden, title_id, body_id);
            CREATE INDEX body_by_hash ON body(hash) WHERE texts IS NOT NULL;
            CREATE INDEX programme_hidden ON programme(channel_key, source_id) WHERE hidden;
            INSERT INTO "guide_state" VALUES(1,1,0,0);
            """#
    }
}
