import Foundation
import GuideCore

/// The episodes each profile has watched. A mark outlives the show's refreshes (its episodes are replaced) and the
/// show itself (forgotten when nobody follows it): it carries its show, season and number.
public protocol WatchedStore: Sendable {
    /// Marks episodes watched by `profile`, at `instant`: a new mark is added; one already there keeps the earlier
    /// known time and the more plays (``WatchedEpisode/merged(with:)``), so marking again, or importing the same file
    /// twice, changes nothing. The number of marks added or changed.
    @discardableResult
    func markWatched(_ marks: [WatchedEpisode], by profile: ProfileID, at instant: Date) async throws -> Int
    /// Unmarks episodes; the number unmarked. A profile synced with TVmaze notes when (`instant`), so the later of
    /// this and a mark on TVmaze wins.
    @discardableResult
    func unmarkWatched(episodes: [Int], by profile: ProfileID, at instant: Date) async throws -> Int
    /// The profile's marks: of one show, or all.
    func watched(by profile: ProfileID, show: Int?) async throws -> [WatchedEpisode]
}

/// The ``WatchedStore`` both stores implement, written once over ``SQLStatements``.
extension WatchedStore where Self: SQLBackend {
    public func markWatched(_ marks: [WatchedEpisode], by profile: ProfileID, at instant: Date) async throws -> Int {
        guard !marks.isEmpty else { return 0 }
        // One mark an episode: the same episode twice in one file is one mark, its earliest time and most plays.
        var unique: [Int: WatchedEpisode] = [:]
        for mark in marks { unique[mark.episodeID] = unique[mark.episodeID].map { $0.merged(with: mark) } ?? mark }
        return try await transaction { db in
            var changed = 0
            let ids = Array(unique.keys)
            var kept: [Int: WatchedEpisode] = [:]
            for start in stride(from: 0, to: ids.count, by: 1000) {
                let chunk = Array(ids[start..<min(ids.count, start + 1000)])
                for row in try await db.rows("""
                    SELECT \(raw: Self.watchedColumns) FROM watched_episode
                    WHERE profile_id = \(profile.rawValue) AND episode_id IN \(keys: chunk.map(Int64.init))
                    """) {
                    let mark = try Self.watchedEpisode(row)
                    kept[mark.episodeID] = mark
                }
            }
            var rows: [[SQLValue]] = []
            for mark in unique.values {
                let merged = kept[mark.episodeID].map { $0.merged(with: mark) } ?? mark
                guard merged != kept[mark.episodeID] else { continue }
                changed += 1
                rows.append([profile.rawValue.sqlValue, merged.episodeID.sqlValue, merged.showID.sqlValue, merged.season.sqlValue,
                             merged.number.sqlValue, merged.watchedAt.map { $0.unixSeconds }.sqlValue, merged.plays.sqlValue,
                             instant.unixSeconds.sqlValue])
            }
            for start in stride(from: 0, to: ids.count, by: 1000) {
                let chunk = ids[start..<min(ids.count, start + 1000)].map(Int64.init)
                try await db.execute("DELETE FROM watched_unmarked WHERE profile_id = \(profile.rawValue) AND episode_id IN \(keys: chunk)")
            }
            try await db.insert(rows) { chunk in
                """
                INSERT INTO watched_episode (profile_id, episode_id, show_id, season, number, watched_at, plays, marked_at)
                VALUES \(rows: chunk)
                ON CONFLICT (profile_id, episode_id) DO UPDATE SET show_id = excluded.show_id, season = excluded.season,
                    number = excluded.number, watched_at = excluded.watched_at, plays = excluded.plays, marked_at = excluded.marked_at
                """
            }
            return changed
        }
    }

    public func unmarkWatched(episodes: [Int], by profile: ProfileID, at instant: Date) async throws -> Int {
        try await transaction { db in
            var removed = 0
            for start in stride(from: 0, to: episodes.count, by: 1000) {
                let chunk = episodes[start..<min(episodes.count, start + 1000)].map(Int64.init)
                try await db.execute("""
                    INSERT INTO watched_unmarked (profile_id, episode_id, unmarked_at)
                    SELECT profile_id, episode_id, \(instant.unixSeconds) FROM watched_episode
                    WHERE profile_id = \(profile.rawValue) AND episode_id IN \(keys: chunk)
                        AND EXISTS (SELECT 1 FROM tvmaze_account WHERE profile_id = \(profile.rawValue))
                    ON CONFLICT (profile_id, episode_id) DO UPDATE SET unmarked_at = excluded.unmarked_at
                    """)
                removed += try await db.execute("""
                    DELETE FROM watched_episode WHERE profile_id = \(profile.rawValue) AND episode_id IN \(keys: chunk)
                    """)
            }
            return removed
        }
    }

    public func watched(by profile: ProfileID, show: Int?) async throws -> [WatchedEpisode] {
        try await reading { db in
            let rows = if let show {
                try await db.rows("""
                    SELECT \(raw: Self.watchedColumns) FROM watched_episode WHERE profile_id = \(profile.rawValue) AND show_id = \(show)
                    ORDER BY season NULLS FIRST, number NULLS FIRST, episode_id
                    """)
            } else {
                try await db.rows("""
                    SELECT \(raw: Self.watchedColumns) FROM watched_episode WHERE profile_id = \(profile.rawValue)
                    ORDER BY show_id, season NULLS FIRST, number NULLS FIRST, episode_id
                    """)
            }
            return try rows.map(Self.watchedEpisode)
        }
    }

    private static var watchedColumns: StaticString { "episode_id, show_id, season, number, watched_at, plays" }

    private static func watchedEpisode(_ row: SQLRow) throws -> WatchedEpisode {
        WatchedEpisode(episodeID: try row.value(0), showID: try row.value(1), season: try row.value(2), number: try row.value(3),
                       watchedAt: try row.value(4, as: Int64?.self).map(Date.init(unixSeconds:)), plays: try row.value(5))
    }
}
