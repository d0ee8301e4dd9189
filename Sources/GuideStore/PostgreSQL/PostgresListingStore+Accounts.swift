import Foundation
import GuideCore
import PostgresNIO

extension PostgresListingStore: AccountStore {
    private static let profileColumns = "id, name, role, secret_kind, day_start_hour, time_zone"

    public func profiles() throws -> [Profile] {
        try pool.withConnection { link in
            try link.query("SELECT \(unescaped: Self.profileColumns) FROM profile ORDER BY lower(name) COLLATE \"C\", name COLLATE \"C\"")
                .map(Self.profile)
        }
    }

    public func profile(_ id: ProfileID) throws -> Profile? {
        try pool.withConnection { link in
            try link.query("SELECT \(unescaped: Self.profileColumns) FROM profile WHERE id = \(id.rawValue)").first.map(Self.profile)
        }
    }

    public func credentials(named name: String) throws -> Credentials? {
        let name = name.trimmingCharacters(in: .whitespaces)
        return try pool.withConnection { link in
            guard let row = try link.query("""
                SELECT \(unescaped: Self.profileColumns), secret_hash, failed_attempts, locked_until FROM profile WHERE lower(name) = lower(\(name))
                """).first else { return nil }
            let (_, _, _, _, _, _, hash, failures, lockedUntil) = try row.decode((Int64, String, String, String, Int, String?, String, Int, Int64).self)
            return Credentials(profile: try Self.profile(row), secretHash: hash, failures: failures,
                               lockedUntil: lockedUntil > 0 ? Date(unixSeconds: lockedUntil) : nil)
        }
    }

    public func createProfile(name: String, role: Profile.Role, secretKind: Profile.SecretKind, secretHash: String) throws -> Profile {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let createdAt = now().unixSeconds
        return try pool.withConnection { link in
            do {
                guard let id = try link.value("""
                    INSERT INTO profile (name, role, secret_kind, secret_hash, created_at)
                    VALUES (\(name), \(role.rawValue), \(secretKind.rawValue), \(secretHash), \(createdAt)) RETURNING id
                    """, as: Int64.self) else { throw StoreError(.failed, "the profile \(name) was not stored") }
                return Profile(id: ProfileID(rawValue: id), name: name, role: role, secretKind: secretKind)
            } catch let error as StoreError where error.code == .conflict {
                throw StoreError(.conflict, "there is already a profile called \(name)")
            }
        }
    }

    public func deleteProfile(_ id: ProfileID) throws {
        try change("DELETE FROM profile WHERE id = \(id.rawValue)", missing: "no profile \(id)")
    }

    public func updateSettings(of id: ProfileID, dayStartHour: Int, timeZone: String?) throws {
        try change("UPDATE profile SET day_start_hour = \(dayStartHour), time_zone = \(timeZone) WHERE id = \(id.rawValue)",
                   missing: "no profile \(id)")
    }

    public func recordSignIn(_ id: ProfileID, failures: Int, lockedUntil: Date?) throws {
        let until = lockedUntil.map(\.unixSecondsRoundedUp) ?? 0
        try change("UPDATE profile SET failed_attempts = \(failures), locked_until = \(until) WHERE id = \(id.rawValue)",
                   missing: "no profile \(id)")
    }

    public func lineup(of id: ProfileID) throws -> [ChannelID] {
        try pool.withConnection { link in
            try link.query("SELECT channel_id FROM profile_channel WHERE profile_id = \(id.rawValue) ORDER BY position")
                .map { ChannelID(try $0.decode(String.self)) }
        }
    }

    public func setLineup(_ channels: [ChannelID], of id: ProfileID) throws {
        var seen = Set<ChannelID>()
        let unique = channels.filter { seen.insert($0).inserted }.map(\.rawValue)
        try pool.transaction { link in
            try link.execute("DELETE FROM profile_channel WHERE profile_id = \(id.rawValue)")
            try link.execute("""
                INSERT INTO profile_channel (profile_id, position, channel_id)
                SELECT \(id.rawValue), n, channel FROM unnest(\(unique)::text[]) WITH ORDINALITY AS l(channel, n)
                """)
        }
    }

    public func createSession(tokenHash: String, for id: ProfileID, at instant: Date, expires: Date) throws {
        let createdAt = instant.unixSeconds
        try pool.transaction { link in
            try link.execute("DELETE FROM session WHERE expires_at < \(createdAt)")
            try link.execute("""
                INSERT INTO session (token_hash, profile_id, created_at, expires_at)
                VALUES (\(tokenHash), \(id.rawValue), \(createdAt), \(expires.unixSeconds))
                """)
        }
    }

    public func sessionProfile(tokenHash: String, at instant: Date) throws -> Profile? {
        try pool.withConnection { link in
            try link.query("""
                SELECT p.id, p.name, p.role, p.secret_kind, p.day_start_hour, p.time_zone
                FROM session s JOIN profile p ON p.id = s.profile_id
                WHERE s.token_hash = \(tokenHash) AND s.expires_at > \(instant.unixSeconds)
                """).first.map(Self.profile)
        }
    }

    public func deleteSession(tokenHash: String) throws {
        try pool.withConnection { try $0.execute("DELETE FROM session WHERE token_hash = \(tokenHash)") }
    }

    public func createAPIToken(tokenHash: String, name: String, for id: ProfileID) throws -> APIToken {
        let createdAt = now().unixSeconds
        return try pool.withConnection { link in
            guard let tokenID = try link.value("""
                INSERT INTO api_token (token_hash, profile_id, name, created_at) VALUES (\(tokenHash), \(id.rawValue), \(name), \(createdAt))
                RETURNING id
                """, as: Int64.self) else { throw StoreError(.failed, "the API token was not stored") }
            return APIToken(id: tokenID, name: name, created: Date(unixSeconds: createdAt), lastUsed: nil)
        }
    }

    public func apiTokens(of id: ProfileID) throws -> [APIToken] {
        try pool.withConnection { link in
            try link.query("SELECT id, name, created_at, last_used_at FROM api_token WHERE profile_id = \(id.rawValue) ORDER BY id").map { row in
                let (tokenID, name, created, lastUsed) = try row.decode((Int64, String, Int64, Int64?).self)
                return APIToken(id: tokenID, name: name, created: Date(unixSeconds: created),
                                lastUsed: lastUsed.map { Date(unixSeconds: $0) })
            }
        }
    }

    public func revokeAPIToken(_ tokenID: Int64, of id: ProfileID) throws {
        try change("DELETE FROM api_token WHERE id = \(tokenID) AND profile_id = \(id.rawValue)", missing: "no API token \(tokenID)")
    }

    public func tokenProfile(tokenHash: String, at instant: Date) throws -> Profile? {
        try pool.withConnection { link in
            try link.query("""
                WITH used AS (
                    UPDATE api_token SET last_used_at = \(instant.unixSeconds) WHERE token_hash = \(tokenHash)
                    RETURNING profile_id
                )
                SELECT p.id, p.name, p.role, p.secret_kind, p.day_start_hour, p.time_zone FROM used JOIN profile p ON p.id = used.profile_id
                """).first.map(Self.profile)
        }
    }

    /// Runs one changing statement; `missing` is the error when it touched no row.
    private func change(_ query: PostgresQuery, missing: String) throws {
        try pool.withConnection { link in
            if try link.execute(query) == 0 { throw StoreError(.notFound, missing) }
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
