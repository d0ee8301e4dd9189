import Foundation
import GuideApplication
import GuideCore
import GuideStore
import TVMaze

/// A followed show's airings in the imported listings (``ListingAirings``) as the upcoming list and the show's page
/// write them: "S02E05 Heads Will Roll airs on BBC Two, Tue 21:00", a repeat of one watched marked.
enum ListingMatches {
    struct Entry {
        var id: Int64
        /// "S02E05 Heads Will Roll airs on CBS, Mon 30 Jun 22:00", or without an episode "Mon 30 Jun 22:00 on CBS".
        var line: String
        var isThisEpisode: Bool
        /// The episode it is was watched already: a repeat for this profile.
        var isWatched: Bool
    }

    /// The show's next airings in the listings, each linked to its episode when the listing says which; `next` is the
    /// episode TVmaze says is next, `watched` the viewer's watched episodes' ids.
    static func entries(of show: Show, episodes: [Episode], next: Int?, watched: Set<Int>, in store: any ListingStore,
                        snapshot: ChannelDirectory.Snapshot, format: SeriesFormat, languages: [String], now: Date) async throws -> [Entry] {
        let (clock, words) = (format.clock, format.words)
        return try await ListingAirings.airings(of: show, episodes: episodes, languages: languages, in: store, after: now).map { airing in
            let programme = airing.stored.programme
            let (when, channel) = (words.moment(programme.start, clock), snapshot.channel(programme.channel)?.name ?? programme.channel.rawValue)
            let episode = airing.link?.episode
            let line = episode.map { words("{episode} airs on {channel}, {when}", ["episode": [$0.code, $0.name ?? ""].joined(separator: " ")
                .trimmingCharacters(in: .whitespaces), "channel": channel, "when": when]) }
                ?? words("{when} on {channel}", ["when": when, "channel": channel]) + (programme.episodeLabel.map { " · " + $0 } ?? "")
            return Entry(id: airing.stored.id.rawValue, line: line, isThisEpisode: episode.map { $0.id == next } ?? false,
                         isWatched: episode.map { watched.contains($0.id) } ?? false)
        }
    }

    /// The title keys of the shows `profile` follows, with their other titles in `languages`: for marking the grid.
    static func followedTitles(of profile: ProfileID?, languages: [String], in store: any SeriesStore) async -> Set<String> {
        guard let profile, let following = try? await store.following(profile) else { return [] }
        return ListingAirings.titleKeys(of: following.map(\.show), languages: languages)
    }
}
