import Foundation
import GuideCore
import GuideStore

/// A followed show's airings in the imported listings (``EpisodeLinker``): programmes whose title is the show's, or one
/// of its other titles in the viewer's languages (TVmaze's akas), as titles vary ("&" for "and", a leading article, a
/// year in brackets, "Show: Sub-title"); each with the episode it is when the listing says (its number, its
/// sub-title, or a new airing's day). The upcoming list, the show's page and its reminders all find airings here.
public enum ListingAirings {
    public struct Airing: Sendable {
        public var stored: StoredProgramme
        public var link: EpisodeLinker.Link?
    }

    /// The show's airings not over at `after` (and starting before `before`, when given), soonest first, at most
    /// `limit`, linked to `episodes` (the show's); `languages` are the viewer's (tags), choosing its other titles.
    public static func airings(of show: Show, episodes: [Episode], languages: [String], in store: any ListingStore, after now: Date,
                               before end: Date? = nil, limit: Int = 5) async throws -> [Airing] {
        let linker = EpisodeLinker(show: show.name, alternates: AlsoKnownAs.titles(show.akas, readIn: languages), episodes: episodes)
        // The search finds the titles that hold every word of a title without its article or year; the linker keeps
        // those that are the show's.
        var found: [ProgrammeID: StoredProgramme] = [:]
        for title in linker.searchTitles.prefix(8) {
            let words = title.split(separator: " ").filter { $0 != "and" }.map(String.init)
            guard !words.isEmpty else { continue }
            // (Only what has not ended: a title aired 1,000 times last week would otherwise hide this week's.)
            for stored in try await store.search(SearchQuery(words, scope: .title, limit: 1000, endingAfter: now))
            where stored.programme.start < (end ?? .distantFuture) && linker.matches(title: stored.programme.title).isAiring {
                found[stored.id] = stored
            }
        }
        return found.values
            .sorted { ($0.programme.start, $0.id.rawValue) < ($1.programme.start, $1.id.rawValue) }
            .prefix(limit)
            .map { Airing(stored: $0, link: linker.episode(of: $0.programme, zone: show.timeZone)) }
    }

    /// The title keys (``EpisodeLinker/titleKey(_:)``) of `shows`, with their other titles in `languages`: what the
    /// grid marks as followed.
    public static func titleKeys(of shows: [Show], languages: [String]) -> Set<String> {
        Set(shows.flatMap { show in
            ([show.name] + AlsoKnownAs.titles(show.akas, readIn: languages)).map(EpisodeLinker.titleKey).filter { !$0.isEmpty }
        })
    }
}
