import Foundation
import GuideCore
import GuideStore
import PostgresNIO

extension PostgresListingStore {
    private static let profileColumns = "id, name, role, secret_kind, day_start_hour, time_zone"

    public func profiles() async throws -> [Profile] {
        try await pool.withConnection { link in
            try await link.query("SELECT \(unescaped: Self.profileColumns) FROM profile ORDER BY lower(name) COLLATE \"C\", name COLLATE \"C\"")
                .map(Self.profile)
        }
    }

    public func profile(_ id: ProfileID) async throws -> Profile? {
        try await pool.withConnection { link in
            try await link.query("SELECT \(unescaped: Self.profileColumns) FROM profile WHERE id = \(id.rawValue)").first.map(Self.profile)
        }
    }

    public func credentials(named name: String) async throws -> Credentials? {
        let name = name.trimmingCharacters(in: .whitespaces)
        return try await pool.withConnection { link in
            guard let row = try await link.query("""
                SELECT \(unescaped: Self.profileColumns), secret_hash FROM profile WHERE lower(name) = lower(\(name))
                """).first else { return nil }
            return Credentials(profile: try Self.profile(row), secretHash: try row.makeRandomAccess()[6].decode(String.self))
        }
    }

    public func createProfile(name: String, role: Profile.Role, secretKind: Profile.SecretKind, secretHash: String,
                              onlyIfFirst: Bool) async throws -> Profile {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let createdAt = now().unixSeconds
        return try await pool.transaction { link in
            if onlyIfFirst {
                // First-run setups take turns on one lock, so the second sees the first's profile.
                try await link.execute(locks.accounts)
                if try await link.value("SELECT count(*) FROM profile", as: Int64.self) != 0 {
                    throw StoreError(.conflict, "tvguide is already set up")
                }
            }
            do {
                guard let id = try await link.value("""
                    INSERT INTO profile (name, role, secret_kind, secret_hash, created_at)
                    VALUES (\(name), \(role.rawValue), \(secretKind.rawValue), \(secretHash), \(createdAt)) RETURNING id
                    """, as: Int64.self) else { throw StoreError(.failed, "the profile \(name) was not stored") }
                return Profile(id: ProfileID(rawValue: id), name: name, role: role, secretKind: secretKind)
            } catch let error as StoreError where error.code == .conflict {
                throw StoreError(.conflict, "there is already a profile called \(name)")
            }
        }
    }

    public func deleteProfile(_ id: ProfileID) async throws {
        try await change("DELETE FROM profile WHERE id = \(id.rawValue)", missing: "no profile \(id)")
    }

    public func updateSettings(of id: ProfileID, dayStartHour: Int, timeZone: String?) async throws {
        try await change("UPDATE profile SET day_start_hour = \(dayStartHour), time_zone = \(timeZone) WHERE id = \(id.rawValue)",
                   missing: "no profile \(id)")
    }

    public func resetSecret(of id: ProfileID, secretKind: Profile.SecretKind, secretHash: String) async throws {
        try await change("UPDATE profile SET secret_kind = \(secretKind.rawValue), secret_hash = \(secretHash) WHERE id = \(id.rawValue)",
                   missing: "no profile \(id)")
    }

    public func countSignInTry(_ key: ThrottleKey, rule: SignInThrottle.Rule, at instant: Date) async throws -> SignInCount {
        let now = instant.unixSeconds
        let firstLock = rule.wait(afterFailures: 1).map { now + Int64($0) } ?? 0
        let (free, first, longest) = (Int64(rule.freeTries), Int64(rule.firstWait), Int64(rule.longestWait))
        return try await pool.withConnection { link in
            // The increment and the wait it starts are one statement; a waiting key matches no row to update.
            if let row = try await link.query("""
                INSERT INTO signin_throttle AS t (address, name, failures, locked_until, trusted_until, updated_at)
                VALUES (\(key.address), \(key.name), 1, \(firstLock), 0, \(now))
                ON CONFLICT (address, name) DO UPDATE SET
                    failures = t.failures + 1,
                    locked_until = CASE WHEN t.failures + 1 >= \(free)
                                        THEN \(now) + LEAST(\(longest), \(first) * (1::bigint << LEAST(t.failures + 1 - \(free), 20)::integer))
                                        ELSE 0 END,
                    updated_at = \(now)
                WHERE t.locked_until <= \(now)
                RETURNING failures, trusted_until
                """).first {
                let (failures, trustedUntil) = try row.decode((Int, Int64).self)
                return .counted(failures: failures, trusted: trustedUntil > now)
            }
            let until = try await link.value("SELECT locked_until FROM signin_throttle WHERE address = \(key.address) AND name = \(key.name)",
                                       as: Int64.self) ?? now
            return .waiting(until: Date(unixSeconds: until))
        }
    }

    public func recordSignInSuccess(address: String, name: String, trustedUntil: Date, at instant: Date) async throws {
        let pair = ThrottleKey(address: address, name: name), now = instant.unixSeconds
        try await pool.transaction { link in
            try await link.execute("""
                INSERT INTO signin_throttle (address, name, failures, locked_until, trusted_until, updated_at)
                VALUES (\(pair.address), \(pair.name), 0, 0, \(trustedUntil.unixSeconds), \(now))
                ON CONFLICT (address, name) DO UPDATE SET failures = 0, locked_until = 0,
                                                          trusted_until = excluded.trusted_until, updated_at = excluded.updated_at
                """)
            try await link.execute("DELETE FROM signin_throttle WHERE address = \(pair.address) AND name = ''")
            try await link.execute("DELETE FROM signin_throttle WHERE address = '' AND name = \(pair.name) AND locked_until <= \(now)")
        }
    }

    public func signInCounts(name: String) async throws -> [ThrottleKey: (failures: Int, waitingUntil: Date?)] {
        let folded = ThrottleKey(address: "", name: name).name
        return try await pool.withConnection { link in
            var counts: [ThrottleKey: (failures: Int, waitingUntil: Date?)] = [:]
            for row in try await link.query("SELECT address, failures, locked_until FROM signin_throttle WHERE name = \(folded)") {
                let (address, failures, until) = try row.decode((String, Int, Int64).self)
                counts[ThrottleKey(address: address, name: folded)] = (failures, until > 0 ? Date(unixSeconds: until) : nil)
            }
            return counts
        }
    }

    @discardableResult
    public func clearSignInCounts(name: String) async throws -> Int {
        let folded = ThrottleKey(address: "", name: name).name
        return try await pool.transaction { link in
            let deleted = try await link.execute("DELETE FROM signin_throttle WHERE name = \(folded) AND trusted_until = 0")
            return deleted + (try await link.execute("UPDATE signin_throttle SET failures = 0, locked_until = 0 WHERE name = \(folded)"))
        }
    }

    public func pruneSignInCounts(idleSince instant: Date) async throws {
        let cutoff = instant.unixSeconds
        try await pool.withConnection { link in
            _ = try await link.execute("DELETE FROM signin_throttle WHERE updated_at < \(cutoff) AND trusted_until < \(cutoff)")
        }
    }

    public func lineup(of id: ProfileID) async throws -> [ChannelID] {
        try await pool.withConnection { link in
            try await link.query("SELECT channel_id FROM profile_channel WHERE profile_id = \(id.rawValue) ORDER BY position")
                .map { ChannelID(try $0.decode(String.self)) }
        }
    }

    public func setLineup(_ channels: [ChannelID], of id: ProfileID) async throws {
        var seen = Set<ChannelID>()
        let unique = channels.filter { seen.insert($0).inserted }.map(\.rawValue)
        try await pool.transaction { link in
            try await link.execute("DELETE FROM profile_channel WHERE profile_id = \(id.rawValue)")
            try await link.execute("""
                INSERT INTO profile_channel (profile_id, position, channel_id)
                SELECT \(id.rawValue), n, channel FROM unnest(\(unique)::text[]) WITH ORDINALITY AS l(channel, n)
                """)
        }
    }

    public func createSession(tokenHash: String, for id: ProfileID, at instant: Date, expires: Date) async throws {
        let createdAt = instant.unixSeconds
        try await pool.transaction { link in
            try await link.execute("DELETE FROM session WHERE expires_at < \(createdAt)")
            try await link.execute("""
                INSERT INTO session (token_hash, profile_id, created_at, expires_at)
                VALUES (\(tokenHash), \(id.rawValue), \(createdAt), \(expires.unixSeconds))
                """)
        }
    }

    public func sessionProfile(tokenHash: String, at instant: Date) async throws -> Profile? {
        try await pool.withConnection { link in
            try await link.query("""
                SELECT p.id, p.name, p.role, p.secret_kind, p.day_start_hour, p.time_zone
                FROM session s JOIN profile p ON p.id = s.profile_id
                WHERE s.token_hash = \(tokenHash) AND s.expires_at > \(instant.unixSeconds)
                """).first.map(Self.profile)
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await pool.withConnection { try await $0.execute("DELETE FROM session WHERE token_hash = \(tokenHash)") }
    }

    public func createAPIToken(tokenHash: String, name: String, scope: APIToken.Scope, for id: ProfileID) async throws -> APIToken {
        let createdAt = now().unixSeconds
        return try await pool.withConnection { link in
            guard let tokenID = try await link.value("""
                INSERT INTO api_token (token_hash, profile_id, name, scope, created_at)
                VALUES (\(tokenHash), \(id.rawValue), \(name), \(scope.rawValue), \(createdAt))
                RETURNING id
                """, as: Int64.self) else { throw StoreError(.failed, "the API token was not stored") }
            return APIToken(id: tokenID, name: name, scope: scope, created: Date(unixSeconds: createdAt), lastUsed: nil)
        }
    }

    public func apiTokens(of id: ProfileID) async throws -> [APIToken] {
        try await pool.withConnection { link in
            try await link.query("SELECT id, name, scope, created_at, last_used_at FROM api_token WHERE profile_id = \(id.rawValue) ORDER BY id").map { row in
                let (tokenID, name, scope, created, lastUsed) = try row.decode((Int64, String, String, Int64, Int64?).self)
                return APIToken(id: tokenID, name: name, scope: APIToken.Scope(rawValue: scope) ?? .read, created: Date(unixSeconds: created),
                                lastUsed: lastUsed.map { Date(unixSeconds: $0) })
            }
        }
    }

    public func revokeAPIToken(_ tokenID: Int64, of id: ProfileID) async throws {
        try await change("DELETE FROM api_token WHERE id = \(tokenID) AND profile_id = \(id.rawValue)", missing: "no API token \(tokenID)")
    }

    public func tokenProfile(tokenHash: String, at instant: Date) async throws -> (profile: Profile, scope: APIToken.Scope)? {
        try await pool.withConnection { link in
            try await link.query("""
                WITH used AS (
                    UPDATE api_token SET last_used_at = \(instant.unixSeconds) WHERE token_hash = \(tokenHash)
                    RETURNING profile_id, scope
                )
                SELECT p.id, p.name, p.role, p.secret_kind, p.day_start_hour, p.time_zone, used.scope
                FROM used JOIN profile p ON p.id = used.profile_id
                """).first.map { row in
                (try Self.profile(row), APIToken.Scope(rawValue: try row.makeRandomAccess()[6].decode(String.self)) ?? .read)
            }
        }
    }

    /// Runs one changing statement; `missing` is the error when it touched no row.
    private func change(_ query: PostgresQuery, missing: String) async throws {
        try await pool.withConnection { link in
            if try await link.execute(query) == 0 { throw StoreError(.notFound, missing) }
        }
    }

    private static func profile(_ row: PostgresRow) throws -> Profile {
        let columns = row.makeRandomAccess()
        return Profile(id: ProfileID(rawValue: try columns[0].decode(Int64.self)), name: try columns[1].decode(String.self),
                       role: Profile.Role(rawValue: try columns[2].decode(String.self)) ?? .viewer,
                       secretKind: Profile.SecretKind(rawValue: try columns[3].decode(String.self)) ?? .password,
                       dayStartHour: try columns[4].decode(Int.self), timeZone: try columns[5].decode(String?.self))
    }
}
