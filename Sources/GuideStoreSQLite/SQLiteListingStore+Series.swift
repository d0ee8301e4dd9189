import Foundation
import GRDB
import GuideCore
import GuideStore

extension SQLiteListingStore {
    private static let showColumns = "s.id, s.name, s.status, s.channel, s.zone, s.url, s.image, s.updated, s.checked_at"
    private static let episodeColumns = "e.id, e.show_id, e.season, e.number, e.name, e.type, e.airdate, e.airtime, e.airstamp, e.runtime, e.url"

    public func saveShow(_ show: TrackedShow, episodes: [TrackedEpisode]) async throws {
        try await mapErrors {
            try await pool.write { db in
                try db.execute(sql: """
                    INSERT INTO series_show (id, name, status, channel, zone, url, image, updated, checked_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET name = excluded.name, status = excluded.status, channel = excluded.channel,
                        zone = excluded.zone, url = excluded.url, image = excluded.image, updated = excluded.updated,
                        checked_at = excluded.checked_at
                    """, arguments: [show.id, show.name, show.status, show.channel, show.zone, show.url, show.image, show.updated,
                                     Self.seconds(show.checked)])
                try db.execute(sql: "DELETE FROM series_episode WHERE show_id = ?", arguments: [show.id])
                let insert = try db.makeStatement(sql: """
                    INSERT OR REPLACE INTO series_episode (id, show_id, season, number, name, type, airdate, airtime, airstamp, runtime, url)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for episode in episodes {
                    try insert.execute(arguments: [episode.id, show.id, episode.season, episode.number, episode.name, episode.type,
                                                   episode.airdate, episode.airtime, episode.airstamp, episode.runtime, episode.url])
                }
            }
        }
    }

    public func markChecked(show id: Int, at instant: Date) async throws {
        try await mapErrors {
            try await pool.write { db in
                try db.execute(sql: "UPDATE series_show SET checked_at = ? WHERE id = ?", arguments: [Self.seconds(instant), id])
            }
        }
    }

    public func trackedShows() async throws -> [TrackedShow] {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT \(Self.showColumns) FROM series_show s ORDER BY s.name").map(Self.show)
            }
        }
    }

    public func trackedShow(_ id: Int) async throws -> TrackedShow? {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchOne(db, sql: "SELECT \(Self.showColumns) FROM series_show s WHERE s.id = ?", arguments: [id]).map(Self.show)
            }
        }
    }

    public func follow(show id: Int, by profile: ProfileID, at instant: Date) async throws {
        try await mapErrors {
            try await pool.write { db in
                guard try Bool.fetchOne(db, sql: "SELECT 1 FROM series_show WHERE id = ?", arguments: [id]) == true else {
                    throw StoreError(.notFound, "show \(id) has not been fetched")
                }
                try db.execute(sql: """
                    INSERT INTO followed_show (profile_id, show_id, added_at) VALUES (?, ?, ?)
                    ON CONFLICT (profile_id, show_id) DO NOTHING
                    """, arguments: [profile.rawValue, id, Self.seconds(instant)])
            }
        }
    }

    public func unfollow(show id: Int, by profile: ProfileID) async throws {
        try await mapErrors {
            try await pool.write { db in
                try db.execute(sql: "DELETE FROM followed_show WHERE profile_id = ? AND show_id = ?", arguments: [profile.rawValue, id])
                try db.execute(sql: """
                    DELETE FROM series_show WHERE id = ? AND NOT EXISTS (SELECT 1 FROM followed_show WHERE show_id = ?)
                    """, arguments: [id, id])
            }
        }
    }

    public func setReminders(_ on: Bool, show id: Int, by profile: ProfileID) async throws {
        try await mapErrors {
            try await pool.write { db in
                try db.execute(sql: "UPDATE followed_show SET reminders = ? WHERE profile_id = ? AND show_id = ?",
                               arguments: [on, profile.rawValue, id])
                if db.changesCount == 0 { throw StoreError(.notFound, "the profile does not follow show \(id)") }
            }
        }
    }

    public func following(_ profile: ProfileID) async throws -> [FollowedShow] {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT \(Self.showColumns), f.reminders, f.added_at FROM followed_show f JOIN series_show s ON s.id = f.show_id
                    WHERE f.profile_id = ? ORDER BY s.name COLLATE NOCASE
                    """, arguments: [profile.rawValue]).map { row in
                    let added: Int64 = row[10]
                    return FollowedShow(show: Self.show(row), reminders: row[9], added: Date(unixSeconds: added))
                }
            }
        }
    }

    public func episodes(followedBy profile: ProfileID, from: String, through: String) async throws -> [TrackedEpisode] {
        try await mapErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT \(Self.episodeColumns) FROM followed_show f JOIN series_episode e ON e.show_id = f.show_id
                    WHERE f.profile_id = ? AND e.airdate >= ? AND e.airdate <= ? ORDER BY e.airdate, e.airstamp, e.id
                    """, arguments: [profile.rawValue, from, through]).map(Self.episode)
            }
        }
    }

    public func episodes(ofShow id: Int) async throws -> [TrackedEpisode] {
        try await mapErrors {
            try await pool.read { db in
                // Undated episodes (announced, no date yet) last.
                try Row.fetchAll(db, sql: """
                    SELECT \(Self.episodeColumns) FROM series_episode e WHERE e.show_id = ?
                    ORDER BY coalesce(nullif(e.airdate, ''), '9999'), e.airstamp, e.season, e.number, e.id
                    """, arguments: [id]).map(Self.episode)
            }
        }
    }

    public func seriesSettings(of profile: ProfileID) async throws -> SeriesSettings {
        try await mapErrors {
            try await pool.read { db in
                guard let row = try Row.fetchOne(db, sql: """
                    SELECT lead_minutes, shift_minutes, past_days, future_days, calendar_token FROM series_settings WHERE profile_id = ?
                    """, arguments: [profile.rawValue]) else { return SeriesSettings() }
                var settings = SeriesSettings()
                settings.leadMinutes = row[0]
                settings.shiftMinutes = row[1]
                settings.pastDays = row[2]
                settings.futureDays = row[3]
                settings.calendarTokenHash = row[4]
                return settings
            }
        }
    }

    public func saveSeriesSettings(_ settings: SeriesSettings, of profile: ProfileID) async throws {
        try await mapErrors {
            try await pool.write { db in
                try db.execute(sql: """
                    INSERT INTO series_settings (profile_id, lead_minutes, shift_minutes, past_days, future_days, calendar_token)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (profile_id) DO UPDATE SET lead_minutes = excluded.lead_minutes, shift_minutes = excluded.shift_minutes,
                        past_days = excluded.past_days, future_days = excluded.future_days, calendar_token = excluded.calendar_token
                    """, arguments: [profile.rawValue, settings.leadMinutes, settings.shiftMinutes, settings.pastDays, settings.futureDays,
                                     settings.calendarTokenHash])
            }
        }
    }

    public func calendarProfile(tokenHash: String) async throws -> ProfileID? {
        guard !tokenHash.isEmpty else { return nil }
        return try await mapErrors {
            try await pool.read { db in
                try Int64.fetchOne(db, sql: "SELECT profile_id FROM series_settings WHERE calendar_token = ?", arguments: [tokenHash])
                    .map(ProfileID.init(rawValue:))
            }
        }
    }

    private static func seconds(_ instant: Date) -> Int64 { instant.unixSeconds }

    private static func show(_ row: Row) -> TrackedShow {
        let checked: Int64 = row[8]
        return TrackedShow(id: row[0], name: row[1], status: row[2], channel: row[3], zone: row[4], url: row[5], image: row[6],
                           updated: row[7], checked: Date(unixSeconds: checked))
    }

    private static func episode(_ row: Row) -> TrackedEpisode {
        TrackedEpisode(id: row[0], showID: row[1], season: row[2], number: row[3], name: row[4], type: row[5], airdate: row[6],
                       airtime: row[7], airstamp: row[8], runtime: row[9], url: row[10])
    }
}
