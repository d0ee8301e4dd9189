import Foundation
import GuideCore

/// The ``SeriesStore`` both stores implement, written once over ``SQLStatements``.
extension SeriesStore where Self: SQLBackend {
    public func saveShow(_ show: Show, checked: Date) async throws {
        let channel = show.channel
        try await transaction { db in
            try await db.execute("""
                INSERT INTO series_show (id, name, status, channel, web_channel, zone, url, image, updated, checked_at, akas)
                VALUES (\(show.id), \(show.name), \(show.status), \(channel?.name), \(channel?.isWebChannel ?? false), \(channel?.zone),
                        \(show.url), \(show.image), \(show.updated), \(checked.unixSeconds), \(Self.akasText(show.akas)))
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, status = excluded.status, channel = excluded.channel,
                    web_channel = excluded.web_channel, zone = excluded.zone, url = excluded.url, image = excluded.image,
                    updated = excluded.updated, checked_at = excluded.checked_at, akas = excluded.akas
                """)
            try await db.execute("DELETE FROM series_episode WHERE show_id = \(show.id)")
            // TVmaze lists an episode under one show; ON CONFLICT keeps a save whole if it ever moved one.
            let rows = show.episodes.map { episode in
                [episode.id.sqlValue, show.id.sqlValue, episode.season.sqlValue, episode.number.sqlValue, episode.name.sqlValue,
                 episode.type.sqlValue, episode.airdate.sqlValue, episode.airtime.sqlValue, episode.airstamp.sqlValue,
                 episode.runtime.sqlValue, episode.url.sqlValue]
            }
            try await db.insert(rows) { chunk in
                """
                INSERT INTO series_episode (id, show_id, season, number, name, type, airdate, airtime, airstamp, runtime, url)
                VALUES \(rows: chunk)
                ON CONFLICT (id) DO UPDATE SET show_id = excluded.show_id, season = excluded.season, number = excluded.number,
                    name = excluded.name, type = excluded.type, airdate = excluded.airdate, airtime = excluded.airtime,
                    airstamp = excluded.airstamp, runtime = excluded.runtime, url = excluded.url
                """
            }
        }
    }

    public func markChecked(show id: Int, at instant: Date) async throws {
        try await transaction { db in
            try await db.execute("UPDATE series_show SET checked_at = \(instant.unixSeconds) WHERE id = \(id)")
        }
    }

    public func trackedShows() async throws -> [TrackedShow] {
        try await reading { db in
            try await db.rows("SELECT \(raw: showColumns) FROM series_show s ORDER BY s.name\(.binaryOrder)").map(trackedShow)
        }
    }

    public func trackedShow(_ id: Int) async throws -> TrackedShow? {
        try await reading { db in
            try await db.rows("SELECT \(raw: showColumns) FROM series_show s WHERE s.id = \(id)").first.map(trackedShow)
        }
    }

    public func follow(show id: Int, by profile: ProfileID, at instant: Date) async throws {
        try await transaction { db in
            guard try await db.value("SELECT 1 FROM series_show WHERE id = \(id)", as: Int64.self) != nil else {
                throw StoreError(.notFound, saying: "show {id} has not been fetched", ["id": "\(id)"])
            }
            try await db.execute("""
                INSERT INTO followed_show (profile_id, show_id, added_at) VALUES (\(profile.rawValue), \(id), \(instant.unixSeconds))
                ON CONFLICT (profile_id, show_id) DO NOTHING
                """)
        }
    }

    public func unfollow(show id: Int, by profile: ProfileID) async throws {
        try await transaction { db in
            try await db.execute("DELETE FROM followed_show WHERE profile_id = \(profile.rawValue) AND show_id = \(id)")
            // Kept while anyone has watched one of its episodes: their history names it.
            try await db.execute("""
                DELETE FROM series_show WHERE id = \(id) AND NOT EXISTS (SELECT 1 FROM followed_show WHERE show_id = \(id))
                    AND NOT EXISTS (SELECT 1 FROM watched_episode WHERE show_id = \(id))
                """)
        }
    }

    public func setReminders(_ on: Bool, show id: Int, by profile: ProfileID) async throws {
        try await transaction { db in
            if try await db.execute("""
                UPDATE followed_show SET reminders = \(on) WHERE profile_id = \(profile.rawValue) AND show_id = \(id)
                """) == 0 {
                throw StoreError(.notFound, saying: "the profile does not follow show {id}", ["id": "\(id)"])
            }
        }
    }

    public func following(_ profile: ProfileID) async throws -> [FollowedShow] {
        try await reading { db in
            try await db.rows("""
                SELECT \(raw: showColumns), f.reminders, f.added_at FROM followed_show f JOIN series_show s ON s.id = f.show_id
                WHERE f.profile_id = \(profile.rawValue) ORDER BY lower(s.name)\(.binaryOrder)
                """).map { row in
                FollowedShow(show: try show(row, akasAt: 10), reminders: try row.value(11), added: Date(unixSeconds: try row.value(12)))
            }
        }
    }

    public func episodes(followedBy profile: ProfileID, from: String, through: String) async throws -> [Episode] {
        try await reading { db in
            try await db.rows("""
                SELECT \(raw: episodeColumns) FROM followed_show f JOIN series_episode e ON e.show_id = f.show_id
                JOIN series_show s ON s.id = e.show_id
                WHERE f.profile_id = \(profile.rawValue) AND e.airdate >= \(from) AND e.airdate <= \(through)
                ORDER BY e.airdate\(.binaryOrder), e.airstamp\(.binaryOrder) NULLS FIRST, e.id
                """).map(episode)
        }
    }

    public func episodes(ofShow id: Int) async throws -> [Episode] {
        try await episodes(ofShows: [id])[id] ?? []
    }

    public func episodes(ofShows ids: [Int]) async throws -> [Int: [Episode]] {
        try await reading { db in
            var found: [Int: [Episode]] = [:]
            for start in stride(from: 0, to: ids.count, by: 1000) {
                let chunk = ids[start..<min(ids.count, start + 1000)].map(Int64.init)
                // Undated episodes (announced, no date yet) last.
                for episode in try await db.rows("""
                    SELECT \(raw: episodeColumns) FROM series_episode e JOIN series_show s ON s.id = e.show_id
                    WHERE e.show_id IN \(keys: chunk)
                    ORDER BY e.show_id, coalesce(nullif(e.airdate, ''), '9999')\(.binaryOrder), e.airstamp\(.binaryOrder) NULLS FIRST,
                             e.season NULLS FIRST, e.number NULLS FIRST, e.id
                    """).map(episode) {
                    found[episode.show?.id ?? 0, default: []].append(episode)
                }
            }
            return found
        }
    }

    public func seriesSettings(of profile: ProfileID) async throws -> SeriesSettings {
        try await reading { db in
            guard let row = try await db.rows("""
                SELECT lead_minutes, shift_minutes, past_days, future_days, calendar_token FROM series_settings
                WHERE profile_id = \(profile.rawValue)
                """).first else { return SeriesSettings() }
            var settings = SeriesSettings()
            settings.leadMinutes = try row.value(0)
            settings.shiftMinutes = try row.value(1)
            settings.pastDays = try row.value(2)
            settings.futureDays = try row.value(3)
            settings.calendarTokenHash = try row.value(4)
            return settings
        }
    }

    public func saveSeriesSettings(_ settings: SeriesSettings, of profile: ProfileID) async throws {
        try await transaction { db in
            try await db.execute("""
                INSERT INTO series_settings (profile_id, lead_minutes, shift_minutes, past_days, future_days, calendar_token)
                VALUES (\(profile.rawValue), \(settings.leadMinutes), \(settings.shiftMinutes), \(settings.pastDays),
                        \(settings.futureDays), \(settings.calendarTokenHash))
                ON CONFLICT (profile_id) DO UPDATE SET lead_minutes = excluded.lead_minutes, shift_minutes = excluded.shift_minutes,
                    past_days = excluded.past_days, future_days = excluded.future_days, calendar_token = excluded.calendar_token
                """)
        }
    }

    public func calendarProfile(tokenHash: String) async throws -> ProfileID? {
        try await reading { db in
            guard !tokenHash.isEmpty else { return nil }
            return try await db.value("SELECT profile_id FROM series_settings WHERE calendar_token = \(tokenHash)", as: Int64.self)
                .map(ProfileID.init(rawValue:))
        }
    }

    /// A kept show from ``showColumns`` (first, from `offset`), its other titles from `akasAt` when given.
    private func show(_ row: SQLRow, from offset: Int = 0, akasAt: Int? = nil) throws -> Show {
        var show = Show(id: try row.value(offset), name: try row.value(offset + 1))
        show.status = try row.value(offset + 2)
        show.channel = try (row.value(offset + 3, as: String?.self)).map { name in
            ShowChannel(id: nil, name: name, isWebChannel: try row.value(offset + 4), zone: try row.value(offset + 5))
        }
        show.url = try row.value(offset + 6)
        show.image = try row.value(offset + 7)
        show.updated = try row.value(offset + 8)
        if let akasAt, let text: String = try row.value(akasAt), let akas = try? JSONDecoder().decode([AlsoKnownAs].self, from: Data(text.utf8)) {
            show.akas = akas
        }
        return show
    }

    /// A show's other titles as the `akas` column keeps them (JSON), nil for none.
    static func akasText(_ akas: [AlsoKnownAs]) -> String? {
        guard !akas.isEmpty, let data = try? JSONEncoder().encode(Array(akas.prefix(AlsoKnownAs.mostKept))) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private func trackedShow(_ row: SQLRow) throws -> TrackedShow {
        TrackedShow(show: try show(row, akasAt: 10), checked: Date(unixSeconds: try row.value(9)))
    }

    /// An episode from ``episodeColumns``, naming its show.
    private func episode(_ row: SQLRow) throws -> Episode {
        var episode = Episode(id: try row.value(0))
        episode.season = try row.value(1)
        episode.number = try row.value(2)
        episode.name = try row.value(3)
        episode.type = try row.value(4)
        episode.airdate = try row.value(5)
        episode.airtime = try row.value(6)
        episode.airstamp = try row.value(7)
        episode.runtime = try row.value(8)
        episode.url = try row.value(9)
        let show = try show(row, from: 10)
        episode.show = ShowReference(id: show.id, name: show.name, channel: show.channel)
        return episode
    }

    private var showColumns: StaticString {
        "s.id, s.name, s.status, s.channel, s.web_channel, s.zone, s.url, s.image, s.updated, s.checked_at, s.akas"
    }

    private var episodeColumns: StaticString {
        """
        e.id, e.season, e.number, e.name, e.type, e.airdate, e.airtime, e.airstamp, e.runtime, e.url, \
        s.id, s.name, s.status, s.channel, s.web_channel, s.zone, s.url, s.image, s.updated
        """
    }
}
