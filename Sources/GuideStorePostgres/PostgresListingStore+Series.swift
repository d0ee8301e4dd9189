import Foundation
import GuideCore
import GuideStore
import PostgresNIO

extension PostgresListingStore {
    private static let showColumns = "s.id, s.name, s.status, s.channel, s.zone, s.url, s.image, s.updated, s.checked_at"
    private static let episodeColumns = "e.id, e.show_id, e.season, e.number, e.name, e.type, e.airdate, e.airtime, e.airstamp, e.runtime, e.url"

    public func saveShow(_ show: TrackedShow, episodes: [TrackedEpisode]) async throws {
        try await pool.transaction { link in
            try await link.execute("""
                INSERT INTO series_show (id, name, status, channel, zone, url, image, updated, checked_at)
                VALUES (\(show.id), \(show.name), \(show.status), \(show.channel), \(show.zone), \(show.url), \(show.image), \(show.updated),
                        \(Self.seconds(show.checked)))
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, status = excluded.status, channel = excluded.channel,
                    zone = excluded.zone, url = excluded.url, image = excluded.image, updated = excluded.updated,
                    checked_at = excluded.checked_at
                """)
            try await link.execute("DELETE FROM series_episode WHERE show_id = \(show.id)")
            for episode in episodes {
                try await link.execute("""
                    INSERT INTO series_episode (id, show_id, season, number, name, type, airdate, airtime, airstamp, runtime, url)
                    VALUES (\(episode.id), \(show.id), \(episode.season), \(episode.number), \(episode.name), \(episode.type),
                            \(episode.airdate), \(episode.airtime), \(episode.airstamp), \(episode.runtime), \(episode.url))
                    ON CONFLICT (id) DO UPDATE SET show_id = excluded.show_id, season = excluded.season, number = excluded.number,
                        name = excluded.name, type = excluded.type, airdate = excluded.airdate, airtime = excluded.airtime,
                        airstamp = excluded.airstamp, runtime = excluded.runtime, url = excluded.url
                    """)
            }
        }
    }

    public func markChecked(show id: Int, at instant: Date) async throws {
        try await pool.withConnection { try await $0.execute("UPDATE series_show SET checked_at = \(Self.seconds(instant)) WHERE id = \(id)") }
    }

    public func trackedShows() async throws -> [TrackedShow] {
        try await pool.withConnection { link in
            try await link.query("SELECT \(unescaped: Self.showColumns) FROM series_show s ORDER BY s.name COLLATE \"C\"").map(Self.show)
        }
    }

    public func trackedShow(_ id: Int) async throws -> TrackedShow? {
        try await pool.withConnection { link in
            try await link.query("SELECT \(unescaped: Self.showColumns) FROM series_show s WHERE s.id = \(id)").first.map(Self.show)
        }
    }

    public func follow(show id: Int, by profile: ProfileID, at instant: Date) async throws {
        try await pool.transaction { link in
            guard try await link.value("SELECT 1 FROM series_show WHERE id = \(id)", as: Int32.self) != nil else {
                throw StoreError(.notFound, "show \(id) has not been fetched")
            }
            try await link.execute("""
                INSERT INTO followed_show (profile_id, show_id, added_at) VALUES (\(profile.rawValue), \(id), \(Self.seconds(instant)))
                ON CONFLICT (profile_id, show_id) DO NOTHING
                """)
        }
    }

    public func unfollow(show id: Int, by profile: ProfileID) async throws {
        try await pool.transaction { link in
            try await link.execute("DELETE FROM followed_show WHERE profile_id = \(profile.rawValue) AND show_id = \(id)")
            try await link.execute("DELETE FROM series_show WHERE id = \(id) AND NOT EXISTS (SELECT 1 FROM followed_show WHERE show_id = \(id))")
        }
    }

    public func setReminders(_ on: Bool, show id: Int, by profile: ProfileID) async throws {
        try await pool.withConnection { link in
            if try await link.execute("UPDATE followed_show SET reminders = \(on) WHERE profile_id = \(profile.rawValue) AND show_id = \(id)") == 0 {
                throw StoreError(.notFound, "the profile does not follow show \(id)")
            }
        }
    }

    public func following(_ profile: ProfileID) async throws -> [FollowedShow] {
        try await pool.withConnection { link in
            try await link.query("""
                SELECT \(unescaped: Self.showColumns), f.reminders, f.added_at FROM followed_show f JOIN series_show s ON s.id = f.show_id
                WHERE f.profile_id = \(profile.rawValue) ORDER BY lower(s.name) COLLATE "C"
                """).map { row in
                let columns = row.makeRandomAccess()
                return FollowedShow(show: try Self.show(row), reminders: try columns[9].decode(Bool.self),
                                    added: Date(unixSeconds: try columns[10].decode(Int64.self)))
            }
        }
    }

    public func episodes(followedBy profile: ProfileID, from: String, through: String) async throws -> [TrackedEpisode] {
        try await pool.withConnection { link in
            try await link.query("""
                SELECT \(unescaped: Self.episodeColumns) FROM followed_show f JOIN series_episode e ON e.show_id = f.show_id
                WHERE f.profile_id = \(profile.rawValue) AND e.airdate >= \(from) AND e.airdate <= \(through)
                ORDER BY e.airdate COLLATE "C", e.airstamp COLLATE "C", e.id
                """).map(Self.episode)
        }
    }

    public func episodes(ofShow id: Int) async throws -> [TrackedEpisode] {
        try await pool.withConnection { link in
            // Undated episodes (announced, no date yet) last.
            try await link.query("""
                SELECT \(unescaped: Self.episodeColumns) FROM series_episode e WHERE e.show_id = \(id)
                ORDER BY coalesce(nullif(e.airdate, ''), '9999') COLLATE "C", e.airstamp COLLATE "C" NULLS FIRST,
                         e.season NULLS FIRST, e.number NULLS FIRST, e.id
                """).map(Self.episode)
        }
    }

    public func seriesSettings(of profile: ProfileID) async throws -> SeriesSettings {
        try await pool.withConnection { link in
            guard let row = try await link.query("""
                SELECT lead_minutes, shift_minutes, past_days, future_days, calendar_token FROM series_settings
                WHERE profile_id = \(profile.rawValue)
                """).first else { return SeriesSettings() }
            var settings = SeriesSettings()
            (settings.leadMinutes, settings.shiftMinutes, settings.pastDays, settings.futureDays, settings.calendarTokenHash)
                = try row.decode((Int, Int, Int, Int, String?).self)
            return settings
        }
    }

    public func saveSeriesSettings(_ settings: SeriesSettings, of profile: ProfileID) async throws {
        try await pool.withConnection { link in
            try await link.execute("""
                INSERT INTO series_settings (profile_id, lead_minutes, shift_minutes, past_days, future_days, calendar_token)
                VALUES (\(profile.rawValue), \(settings.leadMinutes), \(settings.shiftMinutes), \(settings.pastDays), \(settings.futureDays),
                        \(settings.calendarTokenHash))
                ON CONFLICT (profile_id) DO UPDATE SET lead_minutes = excluded.lead_minutes, shift_minutes = excluded.shift_minutes,
                    past_days = excluded.past_days, future_days = excluded.future_days, calendar_token = excluded.calendar_token
                """)
        }
    }

    public func calendarProfile(tokenHash: String) async throws -> ProfileID? {
        guard !tokenHash.isEmpty else { return nil }
        return try await pool.withConnection { link in
            try await link.value("SELECT profile_id FROM series_settings WHERE calendar_token = \(tokenHash)", as: Int64.self).map(ProfileID.init(rawValue:))
        }
    }

    private static func seconds(_ instant: Date) -> Int64 { instant.unixSeconds }

    private static func show(_ row: PostgresRow) throws -> TrackedShow {
        let columns = row.makeRandomAccess()
        return TrackedShow(id: try columns[0].decode(Int.self), name: try columns[1].decode(String.self),
                           status: try columns[2].decode(String?.self), channel: try columns[3].decode(String?.self),
                           zone: try columns[4].decode(String?.self), url: try columns[5].decode(String?.self),
                           image: try columns[6].decode(String?.self), updated: try columns[7].decode(Int?.self),
                           checked: Date(unixSeconds: try columns[8].decode(Int64.self)))
    }

    private static func episode(_ row: PostgresRow) throws -> TrackedEpisode {
        let (id, show, season, number, name, type, airdate, airtime, airstamp, runtime, url) = try row.decode(
            (Int, Int, Int?, Int?, String?, String?, String?, String?, String?, Int?, String?).self)
        return TrackedEpisode(id: id, showID: show, season: season, number: number, name: name, type: type, airdate: airdate,
                              airtime: airtime, airstamp: airstamp, runtime: runtime, url: url)
    }
}
