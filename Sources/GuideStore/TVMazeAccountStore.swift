import Foundation
import GuideCore

/// A profile's TVmaze account, synced both ways: its key, how the last sync went, and what both sides had then.
public protocol TVMazeAccountStore: Sendable {
    func tvmazeAccount(of profile: ProfileID) async throws -> TVMazeAccount?
    /// Keeps the account (a new key starts over: nothing synced yet), or forgets it with what was synced (nil).
    func setTVMazeAccount(_ account: TVMazeAccount?, of profile: ProfileID) async throws
    /// The profiles with an account, for the background sync.
    func profilesWithTVMazeAccounts() async throws -> [ProfileID]
    /// What both sides had at the last sync: the base of the next one's three-way merge.
    func tvmazeSynced(of profile: ProfileID) async throws -> TVMazeSynced
    /// When the profile unmarked episodes since the last sync, by episode.
    func unmarks(of profile: ProfileID) async throws -> [Int: Date]
    /// The episodes the profile marked (or changed a mark of) after `instant`.
    func marksMade(by profile: ProfileID, after instant: Date) async throws -> Set<Int>
    /// Notes a sync's end: on success the new base replaces the old and the unmarks it saw are forgotten.
    func recordTVMazeSync(of profile: ProfileID, at instant: Date, premium: Int?, outcome: String, synced: TVMazeSynced?) async throws
}

/// A TVmaze account as kept.
public struct TVMazeAccount: Sendable, Equatable {
    public var username: String
    public var apiKey: String
    /// 0 none, 1 Bronze, 2 Silver, 3 Gold: the /user API (follows, unmarking) needs Premium.
    public var premium: Int
    public var syncedAt: Date?
    /// How the last sync went, in a line, and whether it worked.
    public var outcome: String?
    public var succeeded: Bool?

    public init(username: String, apiKey: String, premium: Int = 0, syncedAt: Date? = nil, outcome: String? = nil, succeeded: Bool? = nil) {
        (self.username, self.apiKey, self.premium, self.syncedAt, self.outcome, self.succeeded) = (username, apiKey, premium, syncedAt, outcome, succeeded)
    }
}

/// The episodes marked and the shows followed on both sides at a sync.
public struct TVMazeSynced: Sendable, Equatable {
    public var episodes: Set<Int>
    public var shows: Set<Int>

    public init(episodes: Set<Int> = [], shows: Set<Int> = []) {
        (self.episodes, self.shows) = (episodes, shows)
    }
}

/// The ``TVMazeAccountStore`` both stores implement, written once over ``SQLStatements``.
extension TVMazeAccountStore where Self: SQLBackend {
    public func tvmazeAccount(of profile: ProfileID) async throws -> TVMazeAccount? {
        try await reading { db in
            try await db.rows("""
                SELECT username, api_key, premium, synced_at, outcome, succeeded FROM tvmaze_account WHERE profile_id = \(profile.rawValue)
                """).first.map { row in
                TVMazeAccount(username: try row.value(0), apiKey: try row.value(1), premium: try row.value(2),
                              syncedAt: try row.value(3, as: Int64?.self).map(Date.init(unixSeconds:)), outcome: try row.value(4),
                              succeeded: try row.value(5))
            }
        }
    }

    public func setTVMazeAccount(_ account: TVMazeAccount?, of profile: ProfileID) async throws {
        try await transaction { db in
            try await db.execute("DELETE FROM tvmaze_synced WHERE profile_id = \(profile.rawValue)")
            try await db.execute("DELETE FROM watched_unmarked WHERE profile_id = \(profile.rawValue)")
            try await db.execute("DELETE FROM tvmaze_account WHERE profile_id = \(profile.rawValue)")
            guard let account else { return }
            try await db.execute("""
                INSERT INTO tvmaze_account (profile_id, username, api_key, premium) VALUES
                (\(profile.rawValue), \(account.username), \(account.apiKey), \(account.premium))
                """)
        }
    }

    public func profilesWithTVMazeAccounts() async throws -> [ProfileID] {
        try await reading { db in
            try await db.rows("SELECT profile_id FROM tvmaze_account ORDER BY profile_id").map { ProfileID(rawValue: try $0.value(0)) }
        }
    }

    public func tvmazeSynced(of profile: ProfileID) async throws -> TVMazeSynced {
        try await reading { db in
            var synced = TVMazeSynced()
            for row in try await db.rows("SELECT kind, item_id FROM tvmaze_synced WHERE profile_id = \(profile.rawValue)") {
                let id: Int = try row.value(1)
                if try row.value(0, as: String.self) == "show" { synced.shows.insert(id) } else { synced.episodes.insert(id) }
            }
            return synced
        }
    }

    public func unmarks(of profile: ProfileID) async throws -> [Int: Date] {
        try await reading { db in
            var unmarks: [Int: Date] = [:]
            for row in try await db.rows("SELECT episode_id, unmarked_at FROM watched_unmarked WHERE profile_id = \(profile.rawValue)") {
                unmarks[try row.value(0)] = Date(unixSeconds: try row.value(1))
            }
            return unmarks
        }
    }

    public func marksMade(by profile: ProfileID, after instant: Date) async throws -> Set<Int> {
        try await reading { db in
            Set(try await db.rows("""
                SELECT episode_id FROM watched_episode WHERE profile_id = \(profile.rawValue) AND marked_at > \(instant.unixSeconds)
                """).map { try $0.value(0) })
        }
    }

    public func recordTVMazeSync(of profile: ProfileID, at instant: Date, premium: Int?, outcome: String, synced: TVMazeSynced?) async throws {
        try await transaction { db in
            if let synced {
                try await db.execute("DELETE FROM tvmaze_synced WHERE profile_id = \(profile.rawValue)")
                let rows = synced.episodes.sorted().map { [profile.rawValue.sqlValue, "episode".sqlValue, $0.sqlValue] }
                    + synced.shows.sorted().map { [profile.rawValue.sqlValue, "show".sqlValue, $0.sqlValue] }
                try await db.insert(rows) { chunk in "INSERT INTO tvmaze_synced (profile_id, kind, item_id) VALUES \(rows: chunk)" }
                try await db.execute("""
                    DELETE FROM watched_unmarked WHERE profile_id = \(profile.rawValue) AND unmarked_at <= \(instant.unixSeconds)
                    """)
                try await db.execute("""
                    UPDATE tvmaze_account SET synced_at = \(instant.unixSeconds), outcome = \(outcome), succeeded = \(true)
                    WHERE profile_id = \(profile.rawValue)
                    """)
            } else {
                try await db.execute("""
                    UPDATE tvmaze_account SET outcome = \(outcome), succeeded = \(false) WHERE profile_id = \(profile.rawValue)
                    """)
            }
            if let premium {
                try await db.execute("UPDATE tvmaze_account SET premium = \(premium) WHERE profile_id = \(profile.rawValue)")
            }
        }
    }
}
