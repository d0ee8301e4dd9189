import Foundation
import GRDB
import GuideCore
import GuideStore

extension SQLiteListingStore {
    private static let profileColumns = "id, name, role, secret_kind, day_start_hour, time_zone"

    public func profiles() async throws -> [Profile] {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT \(Self.profileColumns) FROM profile ORDER BY name").map(Self.profile)
            }
        }
    }

    public func profile(_ id: ProfileID) async throws -> Profile? {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchOne(db, sql: "SELECT \(Self.profileColumns) FROM profile WHERE id = ?", arguments: [id.rawValue])
                    .map(Self.profile)
            }
        }
    }

    public func credentials(named name: String) async throws -> Credentials? {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchOne(db, sql: "SELECT \(Self.profileColumns), secret_hash FROM profile WHERE name = ?",
                                 arguments: [name.trimmingCharacters(in: .whitespaces)]).map { row in
                    Credentials(profile: Self.profile(row), secretHash: row[6])
                }
            }
        }
    }

    public func createProfile(name: String, role: Profile.Role, secretKind: Profile.SecretKind, secretHash: String,
                              onlyIfFirst: Bool) async throws -> Profile {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let createdAt = now().unixSeconds
        return try await mapErrors {
            // Writes are serialized: the check and the insert are one step for every other writer.
            try await write { db in
                if onlyIfFirst, try Bool.fetchOne(db, sql: "SELECT 1 FROM profile LIMIT 1") == true {
                    throw StoreError(.conflict, "tvguide is already set up")
                }
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM profile WHERE name = ?", arguments: [name]) == true {
                    throw StoreError(.conflict, "there is already a profile called \(name)")
                }
                try db.execute(sql: """
                    INSERT INTO profile (name, role, secret_kind, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)
                    """, arguments: [name, role.rawValue, secretKind.rawValue, secretHash, createdAt])
                return Profile(id: ProfileID(rawValue: db.lastInsertedRowID), name: name, role: role, secretKind: secretKind)
            }
        }
    }

    public func deleteProfile(_ id: ProfileID) async throws {
        try await change("DELETE FROM profile WHERE id = ?", [id.rawValue], missing: "no profile \(id)")
    }

    public func updateSettings(of id: ProfileID, dayStartHour: Int, timeZone: String?) async throws {
        try await change("UPDATE profile SET day_start_hour = ?, time_zone = ? WHERE id = ?", [dayStartHour, timeZone, id.rawValue],
                   missing: "no profile \(id)")
    }

    public func resetSecret(of id: ProfileID, secretKind: Profile.SecretKind, secretHash: String) async throws {
        try await change("UPDATE profile SET secret_kind = ?, secret_hash = ? WHERE id = ?", [secretKind.rawValue, secretHash, id.rawValue],
                   missing: "no profile \(id)")
    }

    public func countSignInTry(_ key: ThrottleKey, rule: SignInThrottle.Rule, at instant: Date) async throws -> SignInCount {
        let now = instant.unixSeconds
        let firstLock = rule.wait(afterFailures: 1).map { now + Int64($0) } ?? 0
        return try await mapErrors {
            try await write { db in
                // The increment and the wait it starts are one statement; a waiting key matches no row to update.
                if let row = try Row.fetchOne(db, sql: """
                    INSERT INTO signin_throttle (address, name, failures, locked_until, trusted_until, updated_at)
                    VALUES (?, ?, 1, ?, 0, ?)
                    ON CONFLICT (address, name) DO UPDATE SET
                        failures = failures + 1,
                        locked_until = CASE WHEN failures + 1 >= ?
                                            THEN ? + min(?, ? << min(failures + 1 - ?, 20)) ELSE 0 END,
                        updated_at = ?
                    WHERE locked_until <= ?
                    RETURNING failures, trusted_until
                    """, arguments: [key.address, key.name, firstLock, now, rule.freeTries, now, Int64(rule.longestWait),
                                     Int64(rule.firstWait), rule.freeTries, now, now]) {
                    let trustedUntil: Int64 = row[1]
                    return .counted(failures: row[0], trusted: trustedUntil > now)
                }
                let until = try Int64.fetchOne(db, sql: "SELECT locked_until FROM signin_throttle WHERE address = ? AND name = ?",
                                               arguments: [key.address, key.name]) ?? now
                return .waiting(until: Date(unixSeconds: until))
            }
        }
    }

    public func recordSignInSuccess(address: String, name: String, trustedUntil: Date, at instant: Date) async throws {
        let pair = ThrottleKey(address: address, name: name), now = instant.unixSeconds
        try await mapErrors {
            try await write { db in
                try db.execute(sql: """
                    INSERT INTO signin_throttle (address, name, failures, locked_until, trusted_until, updated_at)
                    VALUES (?, ?, 0, 0, ?, ?)
                    ON CONFLICT (address, name) DO UPDATE SET failures = 0, locked_until = 0,
                                                              trusted_until = excluded.trusted_until, updated_at = excluded.updated_at
                    """, arguments: [pair.address, pair.name, trustedUntil.unixSeconds, now])
                try db.execute(sql: "DELETE FROM signin_throttle WHERE address = ? AND name = ''", arguments: [pair.address])
                try db.execute(sql: "DELETE FROM signin_throttle WHERE address = '' AND name = ? AND locked_until <= ?",
                               arguments: [pair.name, now])
            }
        }
    }

    public func signInCounts(name: String) async throws -> [ThrottleKey: (failures: Int, waitingUntil: Date?)] {
        let folded = ThrottleKey(address: "", name: name).name
        return try await mapErrors {
            try await pool.read { db in
                var counts: [ThrottleKey: (failures: Int, waitingUntil: Date?)] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT address, failures, locked_until FROM signin_throttle WHERE name = ?",
                                            arguments: [folded]) {
                    let until: Int64 = row[2]
                    counts[ThrottleKey(address: row[0], name: folded)] = (row[1], until > 0 ? Date(unixSeconds: until) : nil)
                }
                return counts
            }
        }
    }

    @discardableResult
    public func clearSignInCounts(name: String) async throws -> Int {
        let folded = ThrottleKey(address: "", name: name).name
        return try await mapErrors {
            try await write { db in
                try db.execute(sql: "DELETE FROM signin_throttle WHERE name = ? AND trusted_until = 0", arguments: [folded])
                let cleared = db.changesCount
                try db.execute(sql: "UPDATE signin_throttle SET failures = 0, locked_until = 0 WHERE name = ?", arguments: [folded])
                return cleared + db.changesCount
            }
        }
    }

    public func pruneSignInCounts(idleSince instant: Date) async throws {
        let cutoff = instant.unixSeconds
        try await mapErrors {
            try await write { db in
                try db.execute(sql: "DELETE FROM signin_throttle WHERE updated_at < ? AND trusted_until < ?", arguments: [cutoff, cutoff])
            }
        }
    }

    public func lineup(of id: ProfileID) async throws -> [ChannelID] {
        try await mapErrors {
            try await pool.read { db in
                try String.fetchAll(db, sql: "SELECT channel_id FROM profile_channel WHERE profile_id = ? ORDER BY position",
                                    arguments: [id.rawValue]).map { ChannelID($0) }
            }
        }
    }

    public func setLineup(_ channels: [ChannelID], of id: ProfileID) async throws {
        try await mapErrors {
            try await write { db in
                try db.execute(sql: "DELETE FROM profile_channel WHERE profile_id = ?", arguments: [id.rawValue])
                var seen = Set<ChannelID>()
                for channel in channels where seen.insert(channel).inserted {
                    try db.execute(sql: "INSERT INTO profile_channel (profile_id, position, channel_id) VALUES (?, ?, ?)",
                                   arguments: [id.rawValue, seen.count, channel.rawValue])
                }
            }
        }
    }

    public func createSession(tokenHash: String, for id: ProfileID, at instant: Date, expires: Date) async throws {
        // The server's clock, not the store's: `serve --pretend-now` may run it days away from the real one.
        let createdAt = instant.unixSeconds
        try await mapErrors {
            try await write { db in
                // Sign-ins are rare: a good moment to forget expired sessions.
                try db.execute(sql: "DELETE FROM session WHERE expires_at < ?", arguments: [createdAt])
                try db.execute(sql: "INSERT INTO session (token_hash, profile_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                               arguments: [tokenHash, id.rawValue, createdAt, expires.unixSeconds])
            }
        }
    }

    public func sessionProfile(tokenHash: String, at instant: Date) async throws -> Profile? {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchOne(db, sql: """
                    SELECT \(Self.profileColumns.split(separator: ",").map { "p." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
                    FROM session s JOIN profile p ON p.id = s.profile_id WHERE s.token_hash = ? AND s.expires_at > ?
                    """, arguments: [tokenHash, instant.unixSeconds]).map(Self.profile)
            }
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await mapErrors { try await write { try $0.execute(sql: "DELETE FROM session WHERE token_hash = ?", arguments: [tokenHash]) } }
    }

    public func createAPIToken(tokenHash: String, name: String, scope: APIToken.Scope, for id: ProfileID) async throws -> APIToken {
        let createdAt = now()
        return try await mapErrors {
            try await write { db in
                try db.execute(sql: "INSERT INTO api_token (token_hash, profile_id, name, scope, created_at) VALUES (?, ?, ?, ?, ?)",
                               arguments: [tokenHash, id.rawValue, name, scope.rawValue, createdAt.unixSeconds])
                return APIToken(id: db.lastInsertedRowID, name: name, scope: scope,
                                created: Date(unixSeconds: createdAt.unixSeconds), lastUsed: nil)
            }
        }
    }

    public func apiTokens(of id: ProfileID) async throws -> [APIToken] {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT id, name, scope, created_at, last_used_at FROM api_token WHERE profile_id = ? ORDER BY id",
                                 arguments: [id.rawValue]).map { row in
                    let lastUsed: Int64? = row[4]
                    return APIToken(id: row[0], name: row[1], scope: APIToken.Scope(rawValue: row[2]) ?? .read,
                                    created: Date(unixSeconds: row[3] as Int64), lastUsed: lastUsed.map { Date(unixSeconds: $0) })
                }
            }
        }
    }

    public func revokeAPIToken(_ tokenID: Int64, of id: ProfileID) async throws {
        try await change("DELETE FROM api_token WHERE id = ? AND profile_id = ?", [tokenID, id.rawValue], missing: "no API token \(tokenID)")
    }

    public func tokenProfile(tokenHash: String, at instant: Date) async throws -> (profile: Profile, scope: APIToken.Scope)? {
        try await mapErrors {
            try await write { db in
                guard let token = try Row.fetchOne(db, sql: "SELECT profile_id, scope FROM api_token WHERE token_hash = ?",
                                                   arguments: [tokenHash]) else { return nil }
                try db.execute(sql: "UPDATE api_token SET last_used_at = ? WHERE token_hash = ?",
                               arguments: [instant.unixSeconds, tokenHash])
                let profileID: Int64 = token[0]
                return try Row.fetchOne(db, sql: "SELECT \(Self.profileColumns) FROM profile WHERE id = ?", arguments: [profileID])
                    .map { (Self.profile($0), APIToken.Scope(rawValue: token[1]) ?? .read) }
            }
        }
    }

    /// Runs one changing statement; `missing` is the error when it touched no row.
    private func change(_ sql: String, _ arguments: StatementArguments, missing: String) async throws {
        try await mapErrors {
            try await write { db in
                try db.execute(sql: sql, arguments: arguments)
                if db.changesCount == 0 { throw StoreError(.notFound, missing) }
            }
        }
    }

    private static func profile(_ row: Row) -> Profile {
        Profile(id: ProfileID(rawValue: row[0]), name: row[1], role: Profile.Role(rawValue: row[2]) ?? .viewer,
                secretKind: Profile.SecretKind(rawValue: row[3]) ?? .password, dayStartHour: row[4], timeZone: row[5])
    }
}
