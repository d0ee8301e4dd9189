import Foundation
import GuideCore

/// The ``AccountStore`` both stores implement, written once over ``SQLStatements``. Names match without regard to
/// case (`lower(name)`, as PostgreSQL's unique index on profiles reads them).
extension AccountStore where Self: SQLBackend {
    public func profiles() async throws -> [Profile] {
        try await reading { db in
            try await db.rows("""
                SELECT \(raw: profileColumns) FROM profile ORDER BY lower(name)\(.binaryOrder), name\(.binaryOrder)
                """).map(profile)
        }
    }

    public func profile(_ id: ProfileID) async throws -> Profile? {
        try await reading { db in
            try await db.rows("SELECT \(raw: profileColumns) FROM profile WHERE id = \(id.rawValue)").first.map(profile)
        }
    }

    public func credentials(named name: String) async throws -> Credentials? {
        let name = name.trimmingCharacters(in: .whitespaces)
        return try await reading { db in
            try await db.rows("""
                SELECT \(raw: profileColumns), secret_hash FROM profile WHERE lower(name) = lower(\(name))
                """).first.map { Credentials(profile: try profile($0), secretHash: try $0.value(profileColumnCount)) }
        }
    }

    public func createProfile(name: String, role: Profile.Role, secretKind: Profile.SecretKind, secretHash: String,
                              onlyIfFirst: Bool) async throws -> Profile {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let createdAt = now().unixSeconds
        return try await transaction { db in
            // Creators take turns, so a second first-run setup sees the first's profile.
            try await db.takeTurn(.accounts)
            if onlyIfFirst, try await db.value("SELECT count(*) FROM profile", as: Int64.self) != 0 {
                throw StoreError(.conflict, saying: "tvguide is already set up")
            }
            if try await db.value("SELECT 1 FROM profile WHERE lower(name) = lower(\(name))", as: Int64.self) != nil {
                throw StoreError(.conflict, saying: "there is already a profile called {name}", ["name": name])
            }
            guard let id = try await db.value("""
                INSERT INTO profile (name, role, secret_kind, secret_hash, created_at)
                VALUES (\(name), \(role.rawValue), \(secretKind.rawValue), \(secretHash), \(createdAt)) RETURNING id
                """, as: Int64.self) else { throw StoreError(.failed, "the profile \(name) was not stored") }
            return Profile(id: ProfileID(rawValue: id), name: name, role: role, secretKind: secretKind)
        }
    }

    public func deleteProfile(_ id: ProfileID) async throws {
        try await change("DELETE FROM profile WHERE id = \(id.rawValue)", missing: "no profile \(id)")
    }

    public func updateSettings(of id: ProfileID, dayStartHour: Int, timeZone: String?) async throws {
        try await change("UPDATE profile SET day_start_hour = \(dayStartHour), time_zone = \(timeZone) WHERE id = \(id.rawValue)",
                         missing: "no profile \(id)")
    }

    public func setTheme(_ theme: Profile.Theme, of id: ProfileID) async throws {
        try await change("UPDATE profile SET theme = \(theme.rawValue) WHERE id = \(id.rawValue)", missing: "no profile \(id)")
    }

    public func setLanguage(_ language: Language?, hours: ViewerClock.HourCycle, of id: ProfileID) async throws {
        try await change("UPDATE profile SET language = \(language?.code), hours = \(hours.rawValue) WHERE id = \(id.rawValue)",
                         missing: "no profile \(id)")
    }

    public func setListingLanguages(_ languages: [String], of id: ProfileID) async throws {
        let joined = languages.isEmpty ? nil : languages.joined(separator: ",")
        try await change("UPDATE profile SET listing_languages = \(joined) WHERE id = \(id.rawValue)", missing: "no profile \(id)")
    }

    public func resetSecret(of id: ProfileID, secretKind: Profile.SecretKind, secretHash: String) async throws {
        try await change("""
            UPDATE profile SET secret_kind = \(secretKind.rawValue), secret_hash = \(secretHash) WHERE id = \(id.rawValue)
            """, missing: "no profile \(id)")
    }

    /// Counts a try against `key` unless it is waiting: the row is made if missing, then read and changed under the
    /// transaction's lock on it, so tries at once are each counted.
    public func countSignInTry(_ key: ThrottleKey, rule: SignInThrottle.Rule, at instant: Date) async throws -> SignInCount {
        let now = instant.unixSeconds
        return try await transaction { db in
            try await db.execute("""
                INSERT INTO signin_throttle (address, name, failures, locked_until, trusted_until, updated_at)
                VALUES (\(key.address), \(key.name), 0, 0, 0, \(now)) ON CONFLICT (address, name) DO NOTHING
                """)
            guard let row = try await db.rows("""
                SELECT failures, locked_until, trusted_until FROM signin_throttle
                WHERE address = \(key.address) AND name = \(key.name)\(.lockRows)
                """).first else { throw StoreError(.failed, "the sign-in count was not stored") }
            let lockedUntil = try row.value(1, as: Int64.self)
            if lockedUntil > now { return .waiting(until: Date(unixSeconds: lockedUntil)) }
            let failures = Bounded.clamped(try row.value(0, as: Int.self), to: 0...1_000_000) + 1
            let wait = rule.wait(afterFailures: failures).map { now + Int64($0) } ?? 0
            try await db.execute("""
                UPDATE signin_throttle SET failures = \(failures), locked_until = \(wait), updated_at = \(now)
                WHERE address = \(key.address) AND name = \(key.name)
                """)
            return .counted(failures: failures, trusted: try row.value(2, as: Int64.self) > now)
        }
    }

    public func recordSignInSuccess(address: String, name: String, trustedUntil: Date, at instant: Date) async throws {
        let pair = ThrottleKey(address: address, name: name), now = instant.unixSeconds
        try await transaction { db in
            try await db.execute("""
                INSERT INTO signin_throttle (address, name, failures, locked_until, trusted_until, updated_at)
                VALUES (\(pair.address), \(pair.name), 0, 0, \(trustedUntil.unixSeconds), \(now))
                ON CONFLICT (address, name) DO UPDATE SET failures = 0, locked_until = 0,
                                                          trusted_until = excluded.trusted_until, updated_at = excluded.updated_at
                """)
            try await db.execute("DELETE FROM signin_throttle WHERE address = \(pair.address) AND name = ''")
            try await db.execute("DELETE FROM signin_throttle WHERE address = '' AND name = \(pair.name) AND locked_until <= \(now)")
        }
    }

    public func signInCounts(name: String) async throws -> [ThrottleKey: (failures: Int, waitingUntil: Date?)] {
        let folded = ThrottleKey(address: "", name: name).name
        return try await reading { db in
            var counts: [ThrottleKey: (failures: Int, waitingUntil: Date?)] = [:]
            for row in try await db.rows("SELECT address, failures, locked_until FROM signin_throttle WHERE name = \(folded)") {
                let until = try row.value(2, as: Int64.self)
                counts[ThrottleKey(address: try row.value(0), name: folded)] = (try row.value(1), until > 0 ? Date(unixSeconds: until) : nil)
            }
            return counts
        }
    }

    @discardableResult
    public func clearSignInCounts(name: String) async throws -> Int {
        let folded = ThrottleKey(address: "", name: name).name
        return try await transaction { db in
            let deleted = try await db.execute("DELETE FROM signin_throttle WHERE name = \(folded) AND trusted_until = 0")
            return deleted + (try await db.execute("UPDATE signin_throttle SET failures = 0, locked_until = 0 WHERE name = \(folded)"))
        }
    }

    public func pruneSignInCounts(idleSince instant: Date) async throws {
        let cutoff = instant.unixSeconds
        try await transaction { db in
            try await db.execute("DELETE FROM signin_throttle WHERE updated_at < \(cutoff) AND trusted_until < \(cutoff)")
        }
    }

    public func lineup(of id: ProfileID) async throws -> [ChannelID] {
        try await reading { db in
            try await db.column("SELECT channel_id FROM profile_channel WHERE profile_id = \(id.rawValue) ORDER BY position",
                                as: String.self).map { ChannelID($0) }
        }
    }

    public func setLineup(_ channels: [ChannelID], of id: ProfileID) async throws {
        var seen = Set<ChannelID>()
        let unique = channels.filter { seen.insert($0).inserted }
        try await transaction { db in
            try await db.execute("DELETE FROM profile_channel WHERE profile_id = \(id.rawValue)")
            let rows = unique.enumerated().map { [id.rawValue.sqlValue, ($0.offset + 1).sqlValue, $0.element.rawValue.sqlValue] }
            try await db.insert(rows) { "INSERT INTO profile_channel (profile_id, position, channel_id) VALUES \(rows: $0)" }
        }
    }

    public func createSession(tokenHash: String, for id: ProfileID, at instant: Date, expires: Date) async throws {
        // The server's clock, not the store's: `serve --pretend-now` may run it days away from the real one.
        let createdAt = instant.unixSeconds
        try await transaction { db in
            // Sign-ins are rare: a good moment to forget expired sessions.
            try await db.execute("DELETE FROM session WHERE expires_at < \(createdAt)")
            try await db.execute("""
                INSERT INTO session (token_hash, profile_id, created_at, expires_at)
                VALUES (\(tokenHash), \(id.rawValue), \(createdAt), \(expires.unixSeconds))
                """)
        }
    }

    public func sessionProfile(tokenHash: String, at instant: Date) async throws -> Profile? {
        try await reading { db in
            try await db.rows("""
                SELECT \(raw: profileColumns) FROM profile WHERE id = (
                    SELECT profile_id FROM session WHERE token_hash = \(tokenHash) AND expires_at > \(instant.unixSeconds))
                """).first.map(profile)
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await transaction { db in try await db.execute("DELETE FROM session WHERE token_hash = \(tokenHash)") }
    }

    public func createAPIToken(tokenHash: String, name: String, scope: APIToken.Scope, for id: ProfileID) async throws -> APIToken {
        let createdAt = now().unixSeconds
        return try await transaction { db in
            guard let tokenID = try await db.value("""
                INSERT INTO api_token (token_hash, profile_id, name, scope, created_at)
                VALUES (\(tokenHash), \(id.rawValue), \(name), \(scope.rawValue), \(createdAt)) RETURNING id
                """, as: Int64.self) else { throw StoreError(.failed, "the API token was not stored") }
            return APIToken(id: tokenID, name: name, scope: scope, created: Date(unixSeconds: createdAt), lastUsed: nil)
        }
    }

    public func apiTokens(of id: ProfileID) async throws -> [APIToken] {
        try await reading { db in
            try await db.rows("""
                SELECT id, name, scope, created_at, last_used_at FROM api_token WHERE profile_id = \(id.rawValue) ORDER BY id
                """).map { row in
                APIToken(id: try row.value(0), name: try row.value(1), scope: APIToken.Scope(rawValue: try row.value(2)) ?? .read,
                         created: Date(unixSeconds: try row.value(3)),
                         lastUsed: try row.value(4, as: Int64?.self).map { Date(unixSeconds: $0) })
            }
        }
    }

    public func revokeAPIToken(_ tokenID: Int64, of id: ProfileID) async throws {
        try await change("DELETE FROM api_token WHERE id = \(tokenID) AND profile_id = \(id.rawValue)", missing: "no API token \(tokenID)")
    }

    /// The token's profile and scope, noting its use.
    public func tokenProfile(tokenHash: String, at instant: Date) async throws -> (profile: Profile, scope: APIToken.Scope)? {
        try await transaction { db in
            guard let token = try await db.rows("""
                UPDATE api_token SET last_used_at = \(instant.unixSeconds) WHERE token_hash = \(tokenHash) RETURNING profile_id, scope
                """).first else { return nil }
            let scope = APIToken.Scope(rawValue: try token.value(1)) ?? .read
            return try await db.rows("""
                SELECT \(raw: profileColumns) FROM profile WHERE id = \(try token.value(0, as: Int64.self))
                """).first.map { (try profile($0), scope) }
        }
    }

    /// Runs one changing statement; `missing` is the error when it touched no row.
    private func change(_ sql: SQLText, missing: String) async throws {
        try await transaction { db in
            if try await db.execute(sql) == 0 { throw StoreError(.notFound, missing) }
        }
    }

    private var profileColumns: StaticString { "id, name, role, secret_kind, day_start_hour, time_zone, theme, can_record, language, hours, listing_languages" }
    /// How many columns ``profileColumns`` names: a query's own columns come after them.
    private var profileColumnCount: Int { 11 }

    private func profile(_ row: SQLRow) throws -> Profile {
        Profile(id: ProfileID(rawValue: try row.value(0)), name: try row.value(1),
                role: Profile.Role(rawValue: try row.value(2)) ?? .viewer,
                secretKind: Profile.SecretKind(rawValue: try row.value(3)) ?? .password, dayStartHour: try row.value(4),
                timeZone: try row.value(5)).themed(Profile.Theme(rawValue: try row.value(6)) ?? .system)
            .recording(try row.value(7, as: Int64.self) != 0)
            .speaking((try row.value(8, as: String?.self)).flatMap(Language.init(tag:)),
                      hours: ViewerClock.HourCycle(rawValue: try row.value(9)) ?? .locale)
            // Written by setListingLanguages; anything else in it (edited by hand) is read as no choice.
            .reading((try row.value(10, as: String?.self)).flatMap(LocalizedText.languages(in:)) ?? [])
    }
}

/// The ``ResponseCache`` both stores implement, written once over ``SQLStatements``.
extension ResponseCache where Self: SQLBackend {
    public func cachedResponse(for key: String) async throws -> CachedResponse? {
        try await reading { db in
            try await db.rows("SELECT status, body, fetched_at FROM api_cache WHERE key = \(key)").first.map { row in
                CachedResponse(status: try row.value(0), body: try row.value(1), fetched: Date(unixSeconds: try row.value(2)))
            }
        }
    }

    public func storeResponse(_ response: CachedResponse, for key: String) async throws {
        try await transaction { db in
            try await db.execute("""
                INSERT INTO api_cache (key, status, body, fetched_at)
                VALUES (\(key), \(response.status), \(response.body), \(response.fetched.unixSeconds))
                ON CONFLICT (key) DO UPDATE SET status = excluded.status, body = excluded.body, fetched_at = excluded.fetched_at
                """)
        }
    }

    public func forgetResponses(keys: [String], prefixes: [String]) async throws -> Int {
        try await transaction { db in
            var removed = 0
            for key in keys {
                removed += try await db.execute("DELETE FROM api_cache WHERE key = \(key)")
            }
            for prefix in prefixes {
                // A range of keys by their bytes, not LIKE: keys hold "_" and "%" freely.
                removed += try await db.execute("""
                    DELETE FROM api_cache WHERE key\(.binaryOrder) >= \(prefix) AND key\(.binaryOrder) < \(prefix + "\u{10FFFF}")
                    """)
            }
            return removed
        }
    }

    public func pruneResponses(fetchedBefore instant: Date, keepingAtMost bytes: Int) async throws -> Int {
        try await transaction { db in
            let old = try await db.execute("DELETE FROM api_cache WHERE fetched_at < \(instant.unixSeconds)")
            return old + (try await db.execute("""
                DELETE FROM api_cache WHERE key IN (
                    SELECT key FROM (SELECT key, sum(length(body)) OVER (ORDER BY fetched_at DESC, key\(.binaryOrder)) AS running
                                     FROM api_cache) AS sized
                    WHERE running > \(bytes))
                """))
        }
    }
}
