import Foundation
import GuideCore
import GuideStore
import PostgresNIO

extension PostgresListingStore {
    public func sources() async throws -> [SourceStatus] {
        try await pool.withConnection { link in
            var counts: [Int64: (Int, Int)] = [:]
            for row in try await link.query("SELECT source_id, count(*), count(*) FILTER (WHERE hidden) FROM programme GROUP BY source_id") {
                let (id, total, hidden) = try row.decode((Int64, Int, Int).self)
                counts[id] = (total, hidden)
            }
            return try await link.query("""
                SELECT id, definition, last_attempt, last_success, last_outcome, last_error, last_bytes, last_programmes,
                       last_repairs, last_duration, failures_in_row, refresh_started_at
                FROM source WHERE definition IS NOT NULL ORDER BY priority DESC, name COLLATE "C"
                """).compactMap { row in
                let (id, text, attempt, success, outcome, error, bytes, programmes, repairs, duration, failures, started) = try row.decode(
                    (Int64, String?, Int64?, Int64?, String?, String?, Int64, Int, Int, Double, Int, Int64?).self)
                guard let definition = StoredDefinition.definition(text) else { return nil }
                let count = counts[id] ?? (0, 0)
                return SourceStatus(definition: definition, lastAttempt: Self.date(attempt), lastSuccess: Self.date(success),
                                    lastOutcome: outcome.flatMap(RefreshOutcome.init(rawValue:)), lastError: error, lastBytes: bytes,
                                    lastProgrammes: programmes, lastRepairs: repairs, lastDuration: duration,
                                    programmes: count.0, hidden: count.1, failuresInRow: failures, unfinishedSince: Self.date(started))
            }
        }
    }

    public func addSource(_ definition: SourceDefinition) async throws {
        try check(definition)
        let json = try StoredDefinition.json(definition)
        try await writing { link in
            let existing = try await link.query("SELECT id, definition FROM source WHERE name = \(definition.name.rawValue) FOR UPDATE").first
            if let existing, try existing.decode((Int64, String?).self).1 != nil {
                throw StoreError(.conflict, "there is already a source called \(definition.name)")
            }
            // A path or URL imported by hand before becomes this configured source, listings and all.
            guard let id = try await link.value("""
                INSERT INTO source (name, priority, definition) VALUES (\(definition.name.rawValue), \(definition.priority), \(json))
                ON CONFLICT (name) DO UPDATE SET priority = excluded.priority, definition = excluded.definition RETURNING id
                """, as: Int64.self) else { throw StoreError(.failed, "the source \(definition.name) was not stored") }
            for channel in definition.channels {
                try await link.execute("""
                    INSERT INTO source_channel (source_id, channel_id, name, keep) VALUES (\(id), \(channel), \(channel), true)
                    ON CONFLICT (source_id, channel_id) DO UPDATE SET keep = true
                    """)
            }
            if existing != nil { try await PostgresMerge.remergeAll(link, source: id) }
        }
    }

    public func updateSource(_ definition: SourceDefinition) async throws {
        try check(definition)
        let json = try StoredDefinition.json(definition)
        try await writing { link in
            let id = try await configuredSourceID(link, definition.name)
            let old = try await link.value("SELECT priority FROM source WHERE id = \(id)", as: Int.self)
            try await link.execute("UPDATE source SET priority = \(definition.priority), definition = \(json) WHERE id = \(id)")
            for channel in definition.channels {
                try await link.execute("""
                    INSERT INTO source_channel (source_id, channel_id, name, keep) VALUES (\(id), \(channel), \(channel), true)
                    ON CONFLICT DO NOTHING
                    """)
            }
            if old != definition.priority { try await PostgresMerge.remergeAll(link, source: id) }
        }
    }

    public func removeSource(_ name: SourceName) async throws -> Int {
        try await writing { link in
            // Imports take the same lock: a source is not removed under an import of it.
            try await link.execute(locks.imports)
            guard let id = try await link.value("SELECT id FROM source WHERE name = \(name.rawValue)", as: Int64.self) else {
                throw StoreError(.notFound, "there is no source called \(name)")
            }
            let channels = try await link.query("SELECT channel_key FROM source_coverage WHERE source_id = \(id)").map { try $0.decode(Int64.self) }
            let removed = try await link.execute("DELETE FROM programme WHERE source_id = \(id)")
            try await link.execute("DELETE FROM source_coverage WHERE source_id = \(id)")
            try await link.execute("DELETE FROM import_run WHERE source_id = \(id)")
            try await link.execute("DELETE FROM source WHERE id = \(id)")
            try await PostgresMerge.remerge(link, channels: channels)
            try await link.execute("UPDATE guide_state SET generation = generation + 1")
            return removed
        }
    }

    public func sourceChannels(of name: SourceName) async throws -> [SourceChannel] {
        try await pool.withConnection { link in
            let id = try await configuredSourceID(link, name)
            return try await link.query("""
                SELECT channel_id, name, keep, mapped_to, last_seen FROM source_channel WHERE source_id = \(id)
                ORDER BY lower(name) COLLATE "C", channel_id COLLATE "C"
                """).map(Self.sourceChannel)
        }
    }

    public func chooseSourceChannels(_ channels: [SourceChannel], of name: SourceName) async throws {
        try await pool.transaction { link in
            let id = try await configuredSourceID(link, name)
            for channel in channels {
                let mapped = channel.mappedTo.flatMap { $0 == channel.id || $0.rawValue.isEmpty ? nil : $0.rawValue }
                try await link.execute("""
                    INSERT INTO source_channel (source_id, channel_id, name, keep, mapped_to)
                    VALUES (\(id), \(channel.id.rawValue), \(channel.name), \(channel.keep), \(mapped))
                    ON CONFLICT (source_id, channel_id) DO UPDATE SET keep = excluded.keep, mapped_to = excluded.mapped_to
                    """)
            }
        }
    }

    public func recordOffer(_ offered: [OfferedChannel], of name: SourceName, at instant: Date,
                            complete: Bool) async throws -> ChannelPlan {
        let seen = instant.unixSeconds
        return try await pool.transaction { link in
            let id = try await configuredSourceID(link, name)
            let definition = StoredDefinition.definition(try await link.value("SELECT definition FROM source WHERE id = \(id) FOR UPDATE",
                                                                        as: String.self))
            let known = try await link.query("""
                SELECT channel_id, name, keep, mapped_to, last_seen FROM source_channel WHERE source_id = \(id)
                """).map(Self.sourceChannel)
            let existing = Set(try await link.query("SELECT id FROM channel").map { ChannelID(try $0.decode(String.self)) })
            let offer = OfferChanges(known: known, offered: offered, complete: complete,
                                     keepNewChannels: definition?.keepNewChannels ?? true, existing: existing)
            for change in offer.changes {
                switch change {
                case .rename(let old, let new):
                    try await link.execute("""
                        UPDATE source_channel SET channel_id = \(new.rawValue) WHERE source_id = \(id) AND channel_id = \(old.rawValue)
                        """)
                case .add(let channel, let name, let keep):
                    try await link.execute("""
                        INSERT INTO source_channel (source_id, channel_id, name, keep) VALUES (\(id), \(channel.rawValue), \(name), \(keep))
                        """)
                case .map(let channel, let target):
                    try await link.execute("""
                        UPDATE source_channel SET mapped_to = \(target.rawValue) WHERE source_id = \(id) AND channel_id = \(channel.rawValue)
                        """)
                case .seen(let channel, let name):
                    try await link.execute("""
                        UPDATE source_channel SET name = \(name), last_seen = \(seen) WHERE source_id = \(id) AND channel_id = \(channel.rawValue)
                        """)
                }
            }
            return offer.plan
        }
    }

    public func validators(of name: SourceName) async throws -> [String: HTTPValidators] {
        try await pool.withConnection { link in
            let id = try await configuredSourceID(link, name)
            var validators: [String: HTTPValidators] = [:]
            for row in try await link.query("SELECT url, etag, last_modified FROM source_fetch WHERE source_id = \(id)") {
                let (url, etag, lastModified) = try row.decode((String, String?, String?).self)
                validators[url] = HTTPValidators(etag: etag, lastModified: lastModified)
            }
            return validators
        }
    }

    public func recordRefreshStart(of name: SourceName, at instant: Date) async throws {
        try await pool.transaction { link in
            let id = try await configuredSourceID(link, name)
            try await link.execute("""
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
        try await pool.transaction { link in
            let id = try await configuredSourceID(link, name)
            let at = record.at.unixSeconds
            if record.outcome == .failed {
                try await link.execute("""
                    UPDATE source SET last_attempt = \(at), last_outcome = \(record.outcome.rawValue), last_error = \(record.error),
                                      last_duration = \(record.duration), failures_in_row = failures_in_row + 1,
                                      refresh_started_at = NULL
                    WHERE id = \(id)
                    """)
                return
            }
            try await link.execute("""
                UPDATE source SET last_attempt = \(at), last_success = \(at), last_outcome = \(record.outcome.rawValue), last_error = NULL,
                                  last_bytes = \(record.bytes), last_programmes = \(record.programmes), last_repairs = \(record.repairs),
                                  last_duration = \(record.duration), failures_in_row = 0, refresh_started_at = NULL
                WHERE id = \(id)
                """)
            for (url, validators) in record.validators {
                try await link.execute("""
                    INSERT INTO source_fetch (source_id, url, etag, last_modified) VALUES (\(id), \(url), \(validators.etag), \(validators.lastModified))
                    ON CONFLICT (source_id, url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified
                    """)
            }
        }
    }

    public func channelHealth(at instant: Date) async throws -> [ChannelHealth] {
        let now = instant.unixSeconds
        return try await snapshot { link in
            let schedule = try await scheduleIndex(link).index
            var names: [ChannelID: (key: Int64, name: String)] = [:]
            for row in try await link.query("SELECT key, id, name FROM channel") {
                let (key, id, name) = try row.decode((Int64, String, String).self)
                names[ChannelID(id)] = (key, name)
            }
            var sources: [Int64: HealthReport.Listing] = [:]
            for row in try await link.query("""
                SELECT c.channel_key, s.id, s.name FROM source_coverage c JOIN source s ON s.id = c.source_id ORDER BY s.priority DESC, s.id
                """) {
                let (channel, id, name) = try row.decode((Int64, Int64, String).self)
                sources[channel, default: []].append((id, name))
            }
            // Shift warnings compare sources, so only channels with several are read.
            var warnings: [Int64: [String]] = [:]
            for (channel, listing) in sources where listing.count > 1 {
                var starts: [Int64: [Int64: [Int64]]] = [:]
                for row in try await link.query("SELECT source_id, title_id, start FROM programme WHERE channel_key = \(channel)") {
                    let (source, title, start) = try row.decode((Int64, Int64, Int64).self)
                    starts[source, default: [:]][title, default: []].append(start)
                }
                warnings[channel] = HealthReport.shiftWarnings(starts, sources: listing)
            }
            return HealthReport.channels(schedule, at: now, names: names, sources: sources) { channel, _ in warnings[channel] ?? [] }
        }
    }

    /// The claim is a session-level advisory lock on a connection kept for `body`: PostgreSQL releases it if the
    /// process dies.
    public func withRefreshClaim<T: Sendable>(of name: SourceName, _ body: @Sendable () async throws -> T) async throws -> T? {
        let refresh = locks.refresh(name.rawValue)
        return try await pool.withConnection { link -> T? in
            guard try await link.value(refresh.lock, as: Bool.self) == true else { return nil }
            do {
                let result = try await body()
                try await link.execute(refresh.unlock)
                return result
            } catch {
                if (try? await link.execute(refresh.unlock)) == nil {
                    try? await link.connection.close()   // A lock that could not be released goes with its session.
                }
                throw error
            }
        }
    }

    private func check(_ definition: SourceDefinition) throws {
        if let problem = definition.problem { throw StoreError(.invalid, problem) }
    }

    private func configuredSourceID(_ link: PostgresLink, _ name: SourceName) async throws -> Int64 {
        guard let id = try await link.value("SELECT id FROM source WHERE name = \(name.rawValue) AND definition IS NOT NULL", as: Int64.self) else {
            throw StoreError(.notFound, "there is no source called \(name); `tvguide sources list` shows them")
        }
        return id
    }

    private static func sourceChannel(_ row: PostgresRow) throws -> SourceChannel {
        let (id, name, keep, mapped, seen) = try row.decode((String, String, Bool, String?, Int64?).self)
        return SourceChannel(id: ChannelID(id), name: name, keep: keep, mappedTo: mapped.map { ChannelID($0) }, lastSeen: date(seen))
    }

    static func date(_ seconds: Int64?) -> Date? {
        seconds.map { Date(unixSeconds: $0) }
    }
}
