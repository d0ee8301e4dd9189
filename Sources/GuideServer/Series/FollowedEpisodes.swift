import Foundation
import GuideApplication
import GuideCore
import GuideStore
import TVMaze

/// The episodes of the shows a viewer follows, in their zone and shift: the schedule the calendar, Upcoming and the
/// header read, and the episode reminders kept in line with what they follow.
struct FollowedEpisodes: Sendable {
    let store: any EpisodeReminders.Store
    let settings: ServerSettings

    /// The profile's followed episodes in its zone and shift.
    func schedule(_ profile: Profile, _ context: some GuideContext) async throws -> EpisodeSchedule {
        EpisodeSchedule(store: store, profile: profile.id, zone: settings.clock(context).zone,
                        settings: try await store.seriesSettings(of: profile.id))
    }

    /// How many followed episodes air on the viewer's calendar day; nil when signed out.
    func airingToday(_ context: some GuideContext) async throws -> Int? {
        guard let profile = context.viewer?.profile else { return nil }
        return try await schedule(profile, context).airingToday(at: settings.now())
    }

    /// The ids of the shows the viewer follows; empty when signed out.
    func followedIDs(_ context: some GuideContext) async throws -> Set<Int> {
        guard let profile = context.viewer?.profile else { return [] }
        return Set(try await store.following(profile.id).map(\.show.id))
    }

    /// Brings the profile's episode reminders in line with its followed shows at once (after following, unfollowing,
    /// or a change of reminder settings); a failure waits for serve's next sync, a few minutes later.
    func syncReminders(_ profile: Profile) async {
        _ = try? await EpisodeReminders(store: store, defaultZone: settings.timeZone).sync(profile, at: settings.now())
    }
}
