import Foundation
import GuideCore
import GuideStore

/// A followed show's airings in the imported listings (``EpisodeLinker``): programmes whose title is the show's as
/// titles vary ("&" for "and", a leading article, a year in brackets, "Show: Sub-title"), each with the episode it is
/// when the listing says (its number, its sub-title, or a new airing's day).
enum ListingMatches {
    struct Airing {
        var stored: StoredProgramme
        var link: EpisodeLinker.Link?
    }

    /// The show's airings not yet over at `now`, soonest first, at most `limit`, linked to `episodes` (the show's).
    static func airings(of show: Show, episodes: [Episode], in store: any ListingStore, after now: Date, limit: Int = 5) async throws -> [Airing] {
        let linker = EpisodeLinker(show: show.name, episodes: episodes)
        // The search finds the titles that hold every word of the name without its article or year; the linker keeps
        // those that are the show's.
        let words = EpisodeLinker.titleKey(show.name).split(separator: " ").filter { $0 != "and" }.map(String.init)
        guard !words.isEmpty else { return [] }
        return try await store.search(SearchQuery(words, scope: .title, limit: 1000))
            .filter { $0.end > now && linker.matches(title: $0.programme.title).isAiring }
            .sorted { $0.programme.start < $1.programme.start }
            .prefix(limit)
            .map { Airing(stored: $0, link: linker.episode(of: $0.programme, zone: show.timeZone)) }
    }

    /// The title keys of the shows `profile` follows, for marking the grid.
    static func followedTitles(of profile: ProfileID?, in store: any SeriesStore) async -> Set<String> {
        guard let profile, let following = try? await store.following(profile) else { return [] }
        return Set(following.map { EpisodeLinker.titleKey($0.show.name) })
    }
}
