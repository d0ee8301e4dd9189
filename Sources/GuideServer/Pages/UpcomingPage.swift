import Foundation
import GuideApplication
import GuideCore
import GuideStore
import Hummingbird
import TVMaze

/// `/upcoming`: each followed show's next episode and when it airs for the viewer (their zone and shift), where it
/// is in the imported listings ("S02E05 airs on BBC Two, Tue 21:00", a repeat of one watched marked), "no date
/// announced" or "ended"; reminders on or off per show.
struct UpcomingPage: Sendable {
    let store: any ListingStore & SeriesStore & WatchedStore
    let directory: ChannelDirectory
    let pages: Pages
    let settings: ServerSettings
    let episodes: FollowedEpisodes

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var shows: [Entry]
        var isEmpty: Bool
        var zone: String
        var shift: String?
    }

    struct Entry {
        var showID: Int
        var name: String
        var channel: String?
        var image: String?
        var next: EpisodeLine?
        var state: String?
        var reminders: Bool
        var listings: [ListingMatches.Entry]
        var hasListings: Bool
    }

    func register(on routes: RouteGroups) {
        routes.profile.get(.upcoming) { request, context in try await render(request, context) }
    }

    func render(_ request: Request, _ context: ProfileRequestContext) async throws -> HTMLPage {
        let profile = context.profile
        let format = SeriesFormat(pages, settings, context)
        let (clock, words) = (format.clock, format.words)
        let now = settings.now()
        let schedule = try await episodes.schedule(profile, context)
        let snapshot = try await directory.snapshot()
        var entries: [Entry] = []
        let upcomingShows = try await schedule.upcoming(at: now)
        let episodesOf = try await store.episodes(ofShows: upcomingShows.map(\.followed.show.id))
        let watched = Set(try await store.watched(by: profile.id, show: nil).map(\.episodeID))
        for upcoming in upcomingShows {
            let show = upcoming.followed.show
            let listings = try await ListingMatches.entries(of: show, episodes: episodesOf[show.id] ?? [], next: upcoming.next?.episode.id,
                                                            watched: watched, in: store, snapshot: snapshot, format: format,
                                                            languages: context.listingLanguages, now: now)
            entries.append(Entry(showID: show.id, name: show.name, channel: show.channel?.name, image: SeriesServices.image(show.image),
                                 next: upcoming.next.map { EpisodeLine($0, format: format, now: now) },
                                 state: upcoming.state == .ended ? words("Ended") : upcoming.state == .noDate ? words("No date announced") : nil,
                                 reminders: upcoming.followed.reminders, listings: listings, hasListings: !listings.isEmpty))
        }
        let shift = schedule.settings.shiftMinutes
        return try await pages.page("upcoming", Model(
            chrome: pages.chrome(context, section: "upcoming"), title: words("Upcoming"), shows: entries, isEmpty: entries.isEmpty,
            zone: clock.zone.identifier, shift: shift == 0 ? nil : words.plural("Times are shifted by {count} minute (Settings).", "Times are shifted by {count} minutes (Settings).", count: shift)))
    }
}
