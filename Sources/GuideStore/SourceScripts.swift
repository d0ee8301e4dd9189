import Foundation
import GuideCore

/// The ``SourceStore`` both stores implement, written once over ``SQLStatements``: a backend that supplies
/// statements (``SQLBackend``) gets it, and writes only what is its own (refresh claims, channel health).
extension SourceStore where Self: SQLBackend {
    public func sources(counting: Bool) async throws -> [SourceStatus] {
        try await reading { db in
            // Each source's programmes as its imports counted them (v44), less its hidden ones, found by their own
            // index: counting the rows read every programme (1.0-2.4 s at 1.75 M, at each scrape of /metrics).
            var hidden: [Int64: Int] = [:]
            let counted = counting ? try await db.rows("""
                SELECT source_id, count(*) FROM programme\(.hiddenProgrammes) WHERE hidden GROUP BY source_id
                """) : []
            for row in counted { hidden[try row.value(0)] = try row.value(1) }
            return try await db.rows("""
                SELECT id, definition, last_attempt, last_success, last_outcome, last_error, last_bytes, last_programmes,
                       last_repairs, last_duration, failures_in_row, refresh_started_at, imported_at, stored_programmes
                FROM source WHERE definition IS NOT NULL ORDER BY priority DESC, name\(.binaryOrder)
                """).compactMap { row in
                guard let definition = StoredDefinition.definition(try row.value(1)) else { return nil }
                // A count edited by hand into something else reads as none.
                let stored = counting ? max((try? row.value(13, as: Int.self)) ?? 0, 0) : 0
                let count = (total: stored, hidden: hidden[try row.value(0)] ?? 0)
                return SourceStatus(definition: definition, lastAttempt: try date(row, 2), lastSuccess: try date(row, 3),
                                    lastOutcome: try row.value(4, as: String?.self).flatMap(RefreshOutcome.init(rawValue:)),
                                    lastFailure: try row.value(5, as: String?.self).map(Sentence.init(stored:)), lastBytes: try row.value(6), lastProgrammes: try row.value(7),
                                    lastRepairs: try row.value(8), lastDuration: try row.value(9), programmes: count.total,
                                    hidden: count.hidden, failuresInRow: try row.value(10), unfinishedSince: try date(row, 11),
                                    importedAt: try date(row, 12))
            }
        }
    }

    public func addSource(_ definition: SourceDefinition) async throws {
        try await transaction { db in
            try check(definition)
            let name = definition.name.rawValue
            let existing = try await db.rows("SELECT id, definition FROM source WHERE name = \(name)\(.lockRows)").first
            if let existing, try existing.value(1, as: String?.self) != nil {
                throw StoreError(.conflict, saying: "there is already a source called {name}", ["name": "\(definition.name)"])
            }
            // A path or URL imported by hand before becomes this configured source, listings and all.
            try await db.execute("""
                INSERT INTO source (name, priority, definition) VALUES (\(name), \(definition.priority), \(try StoredDefinition.json(definition)))
                ON CONFLICT (name) DO UPDATE SET priority = excluded.priority, definition = excluded.definition
                """)
            let id = try await sourceID(db, definition.name)
            for channel in definition.channels {
                try await db.execute("""
                    INSERT INTO source_channel (source_id, channel_id, name, keep) VALUES (\(id), \(channel), \(channel), \(true))
                    ON CONFLICT (source_id, channel_id) DO UPDATE SET keep = \(true)
                    """)
            }
            if existing != nil { try await SourceMerge.remergeAll(db, source: id, at: now()) }
            // A source of one's own: the guide is no longer the sample alone (the grid stops saying so).
            try await db.execute("DELETE FROM guide_setting WHERE name = \(GuideSettingName.sample)")
        }
    }

    public func updateSource(_ definition: SourceDefinition) async throws {
        try await transaction { db in
            try check(definition)
            let id = try await configuredSourceID(db, definition.name)
            let old = try await db.value("SELECT priority FROM source WHERE id = \(id)", as: Int.self)
            try await db.execute("""
                UPDATE source SET priority = \(definition.priority), definition = \(try StoredDefinition.json(definition)) WHERE id = \(id)
                """)
            for channel in definition.channels {
                try await db.execute("""
                    INSERT INTO source_channel (source_id, channel_id, name, keep) VALUES (\(id), \(channel), \(channel), \(true))
                    ON CONFLICT (source_id, channel_id) DO NOTHING
                    """)
            }
            if old != definition.priority { try await SourceMerge.remergeAll(db, source: id, at: now()) }
            try await forgetFetches(db, of: id)
        }
    }

    /// Forgets what a source's feeds were (validators and content digests) once what is made of them changes (its
    /// channels, their mapping, its time shift): the next refresh imports them again even if they did not change.
    private func forgetFetches(_ db: some SQLStatements, of source: Int64) async throws {
        try await db.execute("DELETE FROM source_fetch WHERE source_id = \(source)")
    }

    public func removeSource(_ name: SourceName) async throws -> Int {
        try await transaction { db in
            // Not under an import of it.
            try await db.takeTurn(.listings)
            let id = try await sourceID(db, name)
            let channels = try await db.column("SELECT channel_key FROM source_coverage WHERE source_id = \(id)", as: Int64.self)
            let removed = try await db.execute("DELETE FROM programme WHERE source_id = \(id)")
            // Their titles and bodies go with the next import's prune once it is due (TextPrune).
            try await db.execute("""
                UPDATE guide_state SET stored_programmes = stored_programmes - \(removed),
                                       dropped_since_prune = dropped_since_prune + \(removed)
                """)
            try await db.execute("DELETE FROM source_coverage WHERE source_id = \(id)")
            try await db.execute("DELETE FROM import_run WHERE source_id = \(id)")
            try await db.execute("DELETE FROM source WHERE id = \(id)")
            // A grabber's configuration and a server's password go with their source.
            try await db.execute("DELETE FROM guide_setting WHERE name = \(name.grabberConfigurationSetting)")
            try await db.execute("DELETE FROM guide_setting WHERE name = \(name.credentialsSetting)")
            try await SourceMerge.remerge(db, channels: channels, at: now())
            try await db.execute("UPDATE guide_state SET generation = generation + 1")
            return removed
        }
    }

    public func sourceChannels(of name: SourceName) async throws -> [SourceChannel] {
        try await reading { db in
            let id = try await configuredSourceID(db, name)
            return try await db.rows("""
                SELECT channel_id, name, keep, mapped_to, last_seen, chosen_by, candidates FROM source_channel WHERE source_id = \(id)
                ORDER BY lower(name)\(.binaryOrder), channel_id\(.binaryOrder)
                """).map(sourceChannel)
        }
    }

    public func chooseSourceChannels(_ channels: [SourceChannel], of name: SourceName) async throws {
        try await transaction { db in
            let id = try await configuredSourceID(db, name)
            for channel in channels {
                let mapped = channel.mappedTo.flatMap { $0 == channel.id || $0.rawValue.isEmpty ? nil : $0.rawValue }
                try await db.execute("""
                    INSERT INTO source_channel (source_id, channel_id, name, keep, mapped_to, chosen_by)
                    VALUES (\(id), \(channel.id.rawValue), \(channel.name), \(channel.keep), \(mapped), \(channel.chosenBy?.rawValue))
                    ON CONFLICT (source_id, channel_id) DO UPDATE SET keep = excluded.keep, mapped_to = excluded.mapped_to,
                        chosen_by = excluded.chosen_by
                    """)
            }
            try await forgetFetches(db, of: id)
            // A playlist's choices apply as the guide is read, not at its next import: a new version of the listings.
            if try await db.value("SELECT source_id FROM playlist_entry WHERE source_id = \(id) LIMIT 1", as: Int64.self) != nil {
                try await db.execute("UPDATE guide_state SET generation = generation + 1")
            }
        }
    }

    public func recordMatches(_ matches: [ChannelMatchRecord], of name: SourceName) async throws {
        try await transaction { db in
            let id = try await configuredSourceID(db, name)
            for match in matches {
                let candidates = String(decoding: try JSONEncoder().encode(match.candidates), as: UTF8.self)
                try await db.execute("""
                    UPDATE source_channel SET candidates = \(candidates) WHERE source_id = \(id) AND channel_id = \(match.channel.rawValue)
                    """)
                guard let target = match.applied else { continue }
                // A person's choice is never replaced, whatever the matcher finds later.
                try await db.execute("""
                    UPDATE source_channel SET mapped_to = \(target.rawValue), chosen_by = \(MappingChooser.matcher.rawValue)
                    WHERE source_id = \(id) AND channel_id = \(match.channel.rawValue)
                        AND (chosen_by IS NULL OR chosen_by = \(MappingChooser.matcher.rawValue))
                    """)
            }
            guard matches.contains(where: { $0.applied != nil }) else { return }
            try await forgetFetches(db, of: id)
            if try await db.value("SELECT source_id FROM playlist_entry WHERE source_id = \(id) LIMIT 1", as: Int64.self) != nil {
                try await db.execute("UPDATE guide_state SET generation = generation + 1")
            }
        }
    }

    public func recordOffer(_ offered: [OfferedChannel], of name: SourceName, at instant: Date,
                            complete: Bool) async throws -> ChannelPlan {
        try await transaction { db in
            let id = try await configuredSourceID(db, name)
            let definition = StoredDefinition.definition(
                try await db.value("SELECT definition FROM source WHERE id = \(id)\(.lockRows)", as: String.self))
            let known = try await db.rows("""
                SELECT channel_id, name, keep, mapped_to, last_seen, chosen_by, candidates FROM source_channel WHERE source_id = \(id)
                """).map(sourceChannel)
            let existing = Set(try await db.column("SELECT id FROM channel", as: String.self).map { ChannelID($0) })
            let offer = OfferChanges(known: known, offered: offered, complete: complete,
                                     keepNewChannels: definition?.keepNewChannels ?? true, existing: existing)
            let seen = instant.unixSeconds
            // Channels seen again under the names they had: one statement for them all, not one each (10,000 at a
            // large provider's refresh). New channels go in a thousand a statement, seen now: one statement each,
            // and one more to note them seen, took PostgreSQL's first refresh 1.2-1.4 s at 2,857 channels.
            var names = Dictionary(known.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            var seenAgain: [String] = [], added: [[SQLValue]] = []
            func insertAdded() async throws {
                try await db.insert(added) {
                    "INSERT INTO source_channel (source_id, channel_id, name, keep, last_seen) VALUES \(rows: $0)"
                }
                added = []
            }
            for change in offer.changes {
                switch change {
                case .rename(let old, let new):
                    // Moves a channel that no add names: the adds before it can wait.
                    try await db.execute("""
                        UPDATE source_channel SET channel_id = \(new.rawValue) WHERE source_id = \(id) AND channel_id = \(old.rawValue)
                        """)
                case .add(let channel, let name, let keep):
                    added.append([.integer(id), .text(channel.rawValue), .text(name), .boolean(keep), .integer(seen)])
                    names[channel] = name
                case .map(let channel, let target):
                    try await insertAdded()
                    try await db.execute("""
                        UPDATE source_channel SET mapped_to = \(target.rawValue) WHERE source_id = \(id) AND channel_id = \(channel.rawValue)
                        """)
                case .seen(let channel, let name) where names[channel] == name:
                    seenAgain.append(channel.rawValue)
                case .seen(let channel, let name):
                    try await insertAdded()
                    try await db.execute("""
                        UPDATE source_channel SET name = \(name), last_seen = \(seen) WHERE source_id = \(id) AND channel_id = \(channel.rawValue)
                        """)
                }
            }
            try await insertAdded()
            if !seenAgain.isEmpty {
                try await db.execute("""
                    UPDATE source_channel SET last_seen = \(seen) WHERE source_id = \(id) AND channel_id IN \(texts: seenAgain)
                    """)
            }
            return offer.plan
        }
    }

    public func validators(of name: SourceName) async throws -> [String: HTTPValidators] {
        try await reading { db in
            let id = try await configuredSourceID(db, name)
            var validators: [String: HTTPValidators] = [:]
            for row in try await db.rows("SELECT url, etag, last_modified, content FROM source_fetch WHERE source_id = \(id)") {
                validators[try row.value(0)] = HTTPValidators(etag: try row.value(1), lastModified: try row.value(2), content: try row.value(3))
            }
            return validators
        }
    }

    public func recordRefreshStart(of name: SourceName, at instant: Date) async throws {
        try await transaction { db in
            let id = try await configuredSourceID(db, name)
            try await db.execute("""
                UPDATE source SET
                    last_attempt = coalesce(refresh_started_at, last_attempt),
                    last_outcome = CASE WHEN refresh_started_at IS NULL THEN last_outcome ELSE 'failed' END,
                    last_error = CASE WHEN refresh_started_at IS NULL THEN last_error ELSE \(SourceStatus.unfinishedRefresh) END,
                    failures_in_row = failures_in_row + CASE WHEN refresh_started_at IS NULL THEN 0 ELSE 1 END,
                    refresh_started_at = \(instant.unixSeconds)
                WHERE id = \(id)
                """)
        }
    }

    public func recordRefresh(_ record: RefreshRecord, of name: SourceName) async throws {
        try await transaction { db in
            let id = try await configuredSourceID(db, name)
            let at = record.at.unixSeconds
            if record.outcome == .failed {
                try await db.execute("""
                    UPDATE source SET last_attempt = \(at), last_outcome = \(record.outcome.rawValue), last_error = \(record.failure?.stored),
                                      last_duration = \(record.duration), failures_in_row = failures_in_row + 1,
                                      refresh_started_at = NULL
                    WHERE id = \(id)
                    """)
                return
            }
            try await db.execute("""
                UPDATE source SET last_attempt = \(at), last_success = \(at), last_outcome = \(record.outcome.rawValue),
                                  last_error = NULL, last_bytes = \(record.bytes), last_programmes = \(record.programmes),
                                  last_repairs = \(record.repairs), last_duration = \(record.duration), failures_in_row = 0,
                                  refresh_started_at = NULL
                WHERE id = \(id)
                """)
            for (url, validators) in record.validators {
                try await db.execute("""
                    INSERT INTO source_fetch (source_id, url, etag, last_modified, content)
                    VALUES (\(id), \(url), \(validators.etag), \(validators.lastModified), \(validators.content))
                    ON CONFLICT (source_id, url) DO UPDATE
                    SET etag = excluded.etag, last_modified = excluded.last_modified, content = excluded.content
                    """)
            }
        }
    }

    private func check(_ definition: SourceDefinition) throws {
        if let problem = definition.problem { throw StoreError(.invalid, problem) }
    }

        /// A source's key, configured or only imported by hand.
    private func sourceID(_ db: some SQLStatements, _ name: SourceName) async throws -> Int64 {
        guard let id = try await db.value("SELECT id FROM source WHERE name = \(name.rawValue)", as: Int64.self) else {
            throw StoreError(.notFound, saying: "there is no source called {name}", ["name": "\(name)"])
        }
        return id
    }

    func configuredSourceID(_ db: some SQLStatements, _ name: SourceName) async throws -> Int64 {
        guard let id = try await db.value("SELECT id FROM source WHERE name = \(name.rawValue) AND definition IS NOT NULL",
                                          as: Int64.self) else {
            throw StoreError(.notFound, saying: "there is no source called {name}; `tvguide sources list` shows them", ["name": "\(name)"])
        }
        return id
    }

    private func sourceChannel(_ row: SQLRow) throws -> SourceChannel {
        let candidates = try row.value(6, as: String?.self).flatMap { try? JSONDecoder().decode([ChannelCandidate].self, from: Data($0.utf8)) }
        return SourceChannel(id: ChannelID(try row.value(0, as: String.self)), name: try row.value(1), keep: try row.value(2),
                             mappedTo: try row.value(3, as: String?.self).map { ChannelID($0) }, lastSeen: try date(row, 4),
                             chosenBy: try row.value(5, as: String?.self).flatMap(MappingChooser.init(rawValue:)), candidates: candidates ?? [])
    }

    private func date(_ row: SQLRow, _ column: Int) throws -> Date? {
        try row.value(column, as: Int64?.self).map { Date(unixSeconds: $0) }
    }
}
