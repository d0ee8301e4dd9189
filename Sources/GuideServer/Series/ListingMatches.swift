import Foundation
import GuideCore
import GuideStore

/// A followed show's airings in the imported listings: programmes whose title is the show's name (case and accents
/// ignored), and whether one is a given episode when the listings number their episodes.
enum ListingMatches {
    /// The show's airings not yet over at `now`, soonest first, at most `limit`.
    static func airings(of name: String, in store: any ListingStore, after now: Date, limit: Int = 5) async throws -> [StoredProgramme] {
        let wanted = SearchText.fold(name)
        guard !wanted.isEmpty else { return [] }
        return try await store.search(SearchQuery([name], scope: .title, limit: 1000))
            .filter { $0.end > now && SearchText.fold($0.programme.title) == wanted }
            .sorted { $0.programme.start < $1.programme.start }
            .prefix(limit).map { $0 }
    }

    /// Whether the listing says it is season `season` episode `number` (nil when it does not number episodes).
    static func isEpisode(_ programme: Programme, season: Int?, number: Int?) -> Bool? {
        guard let numbering = programme.numbering, let episode = numbering.episode else { return nil }
        return episode == number && (numbering.season == nil || numbering.season == season)
    }

    /// The folded names of the shows `profile` follows, for marking the grid.
    static func followedTitles(of profile: ProfileID?, in store: any SeriesStore) async -> Set<String> {
        guard let profile, let following = try? await store.following(profile) else { return [] }
        return Set(following.map { SearchText.fold($0.show.name) })
    }
}
