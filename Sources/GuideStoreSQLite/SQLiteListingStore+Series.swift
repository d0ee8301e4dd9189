import Foundation
import GuideCore
import GuideStore

/// The shared scripts (``SeriesScripts``) in SQLite's transactions and reads.
extension SQLiteListingStore {
    public func saveShow(_ show: TrackedShow, episodes: [TrackedEpisode]) async throws {
        try await transaction { try await SeriesScripts.save(show, episodes: episodes, $0) }
    }

    public func markChecked(show id: Int, at instant: Date) async throws {
        try await transaction { try await SeriesScripts.markChecked(show: id, at: instant, $0) }
    }

    public func trackedShows() async throws -> [TrackedShow] {
        try await reading { try await SeriesScripts.shows($0) }
    }

    public func trackedShow(_ id: Int) async throws -> TrackedShow? {
        try await reading { try await SeriesScripts.show(id, $0) }
    }

    public func follow(show id: Int, by profile: ProfileID, at instant: Date) async throws {
        try await transaction { try await SeriesScripts.follow(show: id, by: profile, at: instant, $0) }
    }

    public func unfollow(show id: Int, by profile: ProfileID) async throws {
        try await transaction { try await SeriesScripts.unfollow(show: id, by: profile, $0) }
    }

    public func setReminders(_ on: Bool, show id: Int, by profile: ProfileID) async throws {
        try await transaction { try await SeriesScripts.setReminders(on, show: id, by: profile, $0) }
    }

    public func following(_ profile: ProfileID) async throws -> [FollowedShow] {
        try await reading { try await SeriesScripts.following(profile, $0) }
    }

    public func episodes(followedBy profile: ProfileID, from: String, through: String) async throws -> [TrackedEpisode] {
        try await reading { try await SeriesScripts.episodes(followedBy: profile, from: from, through: through, $0) }
    }

    public func episodes(ofShow id: Int) async throws -> [TrackedEpisode] {
        try await reading { try await SeriesScripts.episodes(ofShow: id, $0) }
    }

    public func seriesSettings(of profile: ProfileID) async throws -> SeriesSettings {
        try await reading { try await SeriesScripts.settings(of: profile, $0) }
    }

    public func saveSeriesSettings(_ settings: SeriesSettings, of profile: ProfileID) async throws {
        try await transaction { try await SeriesScripts.save(settings, of: profile, $0) }
    }

    public func calendarProfile(tokenHash: String) async throws -> ProfileID? {
        try await reading { try await SeriesScripts.calendarProfile(tokenHash: tokenHash, $0) }
    }
}
