import Foundation
import GRDB
import GuideCore
import GuideStore

extension SQLiteListingStore {
    public func sources() async throws -> [SourceStatus] {
        try await mapErrors {
            try await pool.read { db in
                let counts = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                    SELECT source_id, count(*), sum(hidden) FROM programme GROUP BY source_id
                    """).map { row -> (Int64, (Int, Int)) in (row[0], (row[1], row[2] ?? 0)) })
                return try Row.fetchAll(db, sql: """
                    SELECT id, definition, last_attempt, last_success, last_outcome, last_error, last_bytes, last_programmes,
                           last_repairs, last_duration, failures_in_row, refresh_started_at
                    FROM source WHERE definition IS NOT NULL ORDER BY priority DESC, name
                    """).compactMap { row in
                    guard let definition = StoredDefinition.definition(row[1]) else { return nil }
                    let count = counts[row[0]] ?? (0, 0)
                    return SourceStatus(definition: definition, lastAttempt: Self.date(row[2]), lastSuccess: Self.date(row[3]),
                                        lastOutcome: (row[4] as String?).flatMap(RefreshOutcome.init(rawValue:)),
                                        lastError: row[5], lastBytes: row[6], lastProgrammes: row[7], lastRepairs: row[8],
                                        lastDuration: row[9], programmes: count.0, hidden: count.1, failuresInRow: row[10],
                                        unfinishedSince: Self.date(row[11]))
                }
            }
        }
    }

    public func addSource(_ definition: SourceDefinition) async throws {
        try check(definition)
        try await mapErrors {
            try await pool.write { db in
                let existing = try Row.fetchOne(db, sql: "SELECT id, definition FROM source WHERE name = ?",
                                                arguments: [definition.name.rawValue])
                if let existing, (existing[1] as String?) != nil {
                    throw StoreError(.conflict, "there is already a source called \(definition.name)")
                }
                // A path or URL imported by hand before becomes this configured source, listings and all.
                try db.execute(sql: """
                    INSERT INTO source (name, priority, definition) VALUES (?, ?, ?)
                    ON CONFLICT(name) DO UPDATE SET priority = excluded.priority, definition = excluded.definition
                    """, arguments: [definition.name.rawValue, definition.priority, try StoredDefinition.json(definition)])
                let id = try sourceID(db, definition.name)
                for channel in definition.channels {
                    try db.execute(sql: """
                        INSERT INTO source_channel (source_id, channel_id, name, keep) VALUES (?, ?, ?, 1)
                        ON CONFLICT DO UPDATE SET keep = 1
                        """, arguments: [id, channel, channel])
                }
                if existing != nil { try SourceMerge.remergeAll(db, source: id) }
            }
        }
    }

    public func updateSource(_ definition: SourceDefinition) async throws {
        try check(definition)
        try await mapErrors {
            try await pool.write { db in
                let id = try configuredSourceID(db, definition.name)
                let old = try Int.fetchOne(db, sql: "SELECT priority FROM source WHERE id = ?", arguments: [id])
                try db.execute(sql: "UPDATE source SET priority = ?, definition = ? WHERE id = ?",
                               arguments: [definition.priority, try StoredDefinition.json(definition), id])
                for channel in definition.channels {
                    try db.execute(sql: """
                        INSERT INTO source_channel (source_id, channel_id, name, keep) VALUES (?, ?, ?, 1)
                        ON CONFLICT DO NOTHING
                        """, arguments: [id, channel, channel])
                }
                if old != definition.priority { try SourceMerge.remergeAll(db, source: id) }
            }
        }
    }

    public func removeSource(_ name: SourceName) async throws -> Int {
        try await mapErrors {
            try await pool.write { db in
                guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE name = ?", arguments: [name.rawValue]) else {
                    throw StoreError(.notFound, "there is no source called \(name)")
                }
                let channels = try Int64.fetchAll(db, sql: "SELECT channel_key FROM source_coverage WHERE source_id = ?",
                                                  arguments: [id])
                try db.execute(sql: "DELETE FROM programme WHERE source_id = ?", arguments: [id])
                let removed = db.changesCount
                try db.execute(sql: "DELETE FROM source_coverage WHERE source_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM import_run WHERE source_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM source WHERE id = ?", arguments: [id])
                try SourceMerge.remerge(db, channels: channels)
                try db.execute(sql: "UPDATE guide_state SET generation = generation + 1")
                return removed
            }
        }
    }

    public func sourceChannels(of name: SourceName) async throws -> [SourceChannel] {
        try await mapErrors {
            try await pool.read { db in
                let id = try configuredSourceID(db, name)
                return try Row.fetchAll(db, sql: """
                    SELECT channel_id, name, keep, mapped_to, last_seen FROM source_channel WHERE source_id = ?
                    ORDER BY name COLLATE NOCASE, channel_id
                    """, arguments: [id]).map(Self.sourceChannel)
            }
        }
    }

    public func chooseSourceChannels(_ channels: [SourceChannel], of name: SourceName) async throws {
        try await mapErrors {
            try await pool.write { db in
                let id = try configuredSourceID(db, name)
                for channel in channels {
                    let mapped = channel.mappedTo.flatMap { $0 == channel.id || $0.rawValue.isEmpty ? nil : $0.rawValue }
                    try db.execute(sql: """
                        INSERT INTO source_channel (source_id, channel_id, name, keep, mapped_to) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT DO UPDATE SET keep = excluded.keep, mapped_to = excluded.mapped_to
                        """, arguments: [id, channel.id.rawValue, channel.name, channel.keep, mapped])
                }
            }
        }
    }

    public func recordOffer(_ offered: [OfferedChannel], of name: SourceName, at instant: Date,
                            complete: Bool) async throws -> ChannelPlan {
        let seen = instant.unixSeconds
        return try await mapErrors {
            try await pool.write { db in
                let id = try configuredSourceID(db, name)
                let definition = try StoredDefinition.definition(String.fetchOne(db, sql: "SELECT definition FROM source WHERE id = ?",
                                                                     arguments: [id]))
                let known = try Row.fetchAll(db, sql: """
                    SELECT channel_id, name, keep, mapped_to, last_seen FROM source_channel WHERE source_id = ?
                    """, arguments: [id]).map(Self.sourceChannel)
                let existing = Set(try String.fetchAll(db, sql: "SELECT id FROM channel").map { ChannelID($0) })
                let offer = OfferChanges(known: known, offered: offered, complete: complete,
                                         keepNewChannels: definition?.keepNewChannels ?? true, existing: existing)
                for change in offer.changes {
                    switch change {
                    case .rename(let old, let new):
                        try db.execute(sql: "UPDATE source_channel SET channel_id = ? WHERE source_id = ? AND channel_id = ?",
                                       arguments: [new.rawValue, id, old.rawValue])
                    case .add(let channel, let name, let keep):
                        try db.execute(sql: "INSERT INTO source_channel (source_id, channel_id, name, keep) VALUES (?, ?, ?, ?)",
                                       arguments: [id, channel.rawValue, name, keep])
                    case .map(let channel, let target):
                        try db.execute(sql: "UPDATE source_channel SET mapped_to = ? WHERE source_id = ? AND channel_id = ?",
                                       arguments: [target.rawValue, id, channel.rawValue])
                    case .seen(let channel, let name):
                        try db.execute(sql: "UPDATE source_channel SET name = ?, last_seen = ? WHERE source_id = ? AND channel_id = ?",
                                       arguments: [name, seen, id, channel.rawValue])
                    }
                }
                return offer.plan
            }
        }
    }

    public func validators(of name: SourceName) async throws -> [String: HTTPValidators] {
        try await mapErrors {
            try await pool.read { db in
                let id = try configuredSourceID(db, name)
                var validators: [String: HTTPValidators] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT url, etag, last_modified FROM source_fetch WHERE source_id = ?",
                                            arguments: [id]) {
                    validators[row[0]] = HTTPValidators(etag: row[1], lastModified: row[2])
                }
                return validators
            }
        }
    }

    public func recordRefreshStart(of name: SourceName, at instant: Date) async throws {
        try await mapErrors {
            try await pool.write { db in
                let id = try configuredSourceID(db, name)
                try db.execute(sql: """
                    UPDATE source SET
                        last_attempt = coalesce(refresh_started_at, last_attempt),
                        last_outcome = CASE WHEN refresh_started_at IS NULL THEN last_outcome ELSE 'failed' END,
                        last_error = CASE WHEN refresh_started_at IS NULL THEN last_error ELSE ? END,
                        failures_in_row = failures_in_row + (refresh_started_at IS NOT NULL),
                        refresh_started_at = ?
                    WHERE id = ?
                    """, arguments: [SourceStatus.unfinishedRefresh, instant.unixSeconds, id])
            }
        }
    }

    public func recordRefresh(_ record: RefreshRecord, of name: SourceName) async throws {
        try await mapErrors {
            try await pool.write { db in
                let id = try configuredSourceID(db, name)
                let at = record.at.unixSeconds
                if record.outcome == .failed {
                    try db.execute(sql: """
                        UPDATE source SET last_attempt = ?, last_outcome = ?, last_error = ?, last_duration = ?,
                                          failures_in_row = failures_in_row + 1, refresh_started_at = NULL
                        WHERE id = ?
                        """, arguments: [at, record.outcome.rawValue, record.error, record.duration, id])
                    return
                }
                try db.execute(sql: """
                    UPDATE source SET last_attempt = ?, last_success = ?, last_outcome = ?, last_error = NULL, last_bytes = ?,
                                      last_programmes = ?, last_repairs = ?, last_duration = ?, failures_in_row = 0,
                                      refresh_started_at = NULL
                    WHERE id = ?
                    """, arguments: [at, at, record.outcome.rawValue, record.bytes, record.programmes, record.repairs,
                                     record.duration, id])
                for (url, validators) in record.validators {
                    try db.execute(sql: """
                        INSERT INTO source_fetch (source_id, url, etag, last_modified) VALUES (?, ?, ?, ?)
                        ON CONFLICT DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified
                        """, arguments: [id, url, validators.etag, validators.lastModified])
                }
            }
        }
    }

    /// One process writes an SQLite guide (instances sharing a guide share PostgreSQL): the refresher's own guard is
    /// the only one needed, so the claim is always granted.
    public func withRefreshClaim<T: Sendable>(of name: SourceName, _ body: @Sendable () async throws -> T) async throws -> T? {
        try await body()
    }

    private func check(_ definition: SourceDefinition) throws {
        if let problem = definition.problem { throw StoreError(.invalid, problem) }
    }

    private func sourceID(_ db: Database, _ name: SourceName) throws -> Int64 {
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE name = ?", arguments: [name.rawValue]) else {
            throw StoreError(.notFound, "there is no source called \(name)")
        }
        return id
    }

    private func configuredSourceID(_ db: Database, _ name: SourceName) throws -> Int64 {
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE name = ? AND definition IS NOT NULL",
                                          arguments: [name.rawValue]) else {
            throw StoreError(.notFound, "there is no source called \(name); `tvguide sources list` shows them")
        }
        return id
    }

    private static func sourceChannel(_ row: Row) -> SourceChannel {
        let mapped: String? = row[3]
        return SourceChannel(id: ChannelID(row[0] as String), name: row[1], keep: row[2],
                             mappedTo: mapped.map { ChannelID($0) }, lastSeen: date(row[4]))
    }

    private static func date(_ seconds: Int64?) -> Date? {
        seconds.map { Date(unixSeconds: $0) }
    }
}
