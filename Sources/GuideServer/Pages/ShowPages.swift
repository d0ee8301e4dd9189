import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird
import TVMaze

/// TVmaze's shows: `/shows` (search, or the paged index of every show), `/shows/:id` (one show, its seasons and
/// cast; follow it), `/shows/:id/seasons/:number` (a season's episodes); and following: POST
/// `/shows/:id/follow`, `/unfollow`, `/reminders`.
struct ShowPages: Sendable {
    let store: any SeriesStore & ListingStore & WatchedStore
    let directory: ChannelDirectory
    let pages: Pages
    let settings: ServerSettings
    let episodes: FollowedEpisodes
    /// TVmaze's client and the tracker that follows shows.
    let series: SeriesServices
    let watched: WatchHistory

    struct ListModel: PageModel {
        var chrome: Chrome
        var title: String
        var query: String
        var searched: Bool
        var shows: [ShowEntry]
        var page: Int
        var previousPage: String?
        var nextPage: String?
        var message: String?
    }

    struct ShowEntry {
        var id: Int
        var name: String
        var year: String?
        var channel: String?
        var status: String?
        var genres: String
        var image: String?
        var isFollowed: Bool
    }

    struct ShowModel: PageModel {
        var chrome: Chrome
        var title: String
        var show: ShowEntry
        var canFollow: Bool
        var reminders: Bool
        var summary: [String]
        var facts: [Fact]
        var seasons: [SeasonEntry]
        var cast: [CastEntry]
        var hasCast: Bool
        var next: EpisodeLine?
        var tvmazeLink: String?
        var returnTo: String
        var message: String?
        /// The viewer's progress through it ("12 of 20 aired episodes watched"), and whether they may mark it.
        var progress: String?
        var upNext: EpisodeLine?
        var canMark: Bool
        /// Its next airings in the imported listings, each with its episode when the listing says which.
        var listings: [ListingMatches.Entry]
        var hasListings: Bool
    }

    struct Fact {
        var label: String
        var value: String
    }

    struct SeasonEntry {
        var number: Int
        var label: String
        var episodes: String
        var dates: String
    }

    struct CastEntry {
        var personID: Int
        var name: String
        var character: String?
        var image: String?

        /// A cast role; nil for one that names no person.
        init?(_ role: Role) {
            guard let person = role.person else { return nil }
            (personID, name, character, image) = (person.id, person.name, role.character, SeriesServices.image(person.image))
        }
    }

    struct SeasonModel: PageModel {
        var chrome: Chrome
        var title: String
        var showID: Int
        var showName: String
        var season: Int
        var episodes: [EpisodeLine]
        var seasons: [SeasonLink]
        var canMark: Bool
        var returnTo: String
    }

    struct SeasonLink {
        var number: Int
        var isCurrent: Bool
    }

    func register(on routes: RouteGroups) {
        routes.open.get(.shows) { request, context in try await list(request, context) }
        routes.open.get(SitePath.show) { request, context, id in try await show(request, context, id.rawValue) }
        routes.open.get(SitePath.season) { request, context, id, number in try await season(request, context, id.rawValue, number.rawValue) }
        routes.profile.post(SitePath.follow) { request, context, show in try await change(request, context, show) { id, profile, _ in
            try await series.tracker.follow(show: id, by: profile.id)
        } }
        routes.profile.post(SitePath.unfollow) { request, context, show in try await change(request, context, show) { id, profile, _ in
            try await series.tracker.unfollow(show: id, by: profile.id)
        } }
        routes.profile.post(SitePath.showReminders) { request, context, show in try await change(request, context, show) { id, profile, form in
            try await store.setReminders(form.on, show: id, by: profile.id)
        } }
    }

    func list(_ request: Request, _ context: some GuideContext) async throws -> HTMLPage {
        let query = QueryParameters(request: request)
        let text = String((query.string("q") ?? "").prefix(100)).trimmingCharacters(in: .whitespaces)
        let page = try query.integer("page", in: 0...10_000, default: 0)
        let followed = try await episodes.followedIDs(context)
        let words = pages.words(context)
        var model = await ListModel(chrome: pages.chrome(context, section: "shows"),
                                    title: text.isEmpty ? words("All shows") : words("Shows: {query}", ["query": text]), query: text,
                              searched: !text.isEmpty, shows: [], page: page + 1, previousPage: nil, nextPage: nil, message: nil)
        if text.isEmpty {
            let shows = try await series.tvmaze { try await series.client.showIndex(page: page) }
            model.shows = (shows ?? []).map { Self.entry($0, followed: followed) }
            model.previousPage = page > 0 ? SitePath.shows(query: "page=\(page - 1)") : nil
            model.nextPage = shows == nil ? nil : SitePath.shows(query: "page=\(page + 1)")
            if shows == nil { model.message = words("There is no page {page} of TVmaze's index.", ["page": words.number(page + 1)]) }
        } else {
            model.shows = try await series.tvmaze { try await series.client.searchShows(text) }.map { Self.entry($0, followed: followed) }
            if model.shows.isEmpty { model.message = words("TVmaze knows no show called “{query}”.", ["query": text]) }
        }
        return try pages.page("shows", model)
    }

    func show(_ request: Request, _ context: some GuideContext, _ id: Int) async throws -> HTMLPage {
        let client = series.client
        guard let show = try await series.tvmaze({ try await client.show(id, embed: [.cast]) }) else {
            throw Refusal.noShow(id)
        }
        let seasons = try await series.tvmaze { try await client.seasons(ofShow: id) }
        let profile = context.viewer?.profile
        let following = if let profile { try await store.following(profile.id) } else { [FollowedShow]() }
        let mine = following.first { $0.show.id == id }
        let format = SeriesFormat(pages, settings, context)
        let (clock, words) = (format.clock, format.words)
        let now = settings.now()
        var next: EpisodeLine?
        if let profile, mine != nil, let upcoming = try await episodes.schedule(profile, context).upcoming(at: now).first(where: { $0.followed.show.id == id }),
           let airing = upcoming.next {
            next = EpisodeLine(airing, format: format, now: now)
        }
        var facts: [Fact] = []
        if let channel = show.channel { facts.append(Fact(label: channel.isWebChannel ? words("Web channel") : words("Network"), value: channel.name)) }
        if let status = show.status { facts.append(Fact(label: words("Status"), value: status)) }
        if let runtime = show.runtime { facts.append(Fact(label: words("Runtime"), value: format.minutes(runtime))) }
        if !show.genres.isEmpty { facts.append(Fact(label: words("Genres"), value: show.genres.joined(separator: ", "))) }
        if let rating = show.rating { facts.append(Fact(label: words("Rating"), value: format.rating(rating))) }
        if let premiered = show.premiered { facts.append(Fact(label: words("Premiered"), value: clock.civil(premiered))) }
        if let ended = show.ended { facts.append(Fact(label: words("Ended"), value: clock.civil(ended))) }
        if let airs = show.airs {
            // TVmaze's weekday names and its network's local time, as TVmaze writes them.
            facts.append(Fact(label: words("Airs"), value: words("{days} at {time}", ["days": airs.days.joined(separator: ", "), "time": airs.time])
                              + (show.timeZone.map { " (\($0.identifier))" } ?? "")))
        }
        let progress = if let profile { try await watched.progress(through: id, of: profile.id) } else { ShowProgress?.none }
        let listings = try await listings(of: show, next: next?.id, viewer: profile?.id, format: format,
                                          languages: context.listingLanguages, now: now)
        let model = await ShowModel(
            chrome: pages.chrome(context, section: "shows"), title: show.name,
            show: Self.entry(show, followed: Set(following.map(\.show.id))), canFollow: profile != nil, reminders: mine?.reminders ?? false,
            summary: HTMLText.paragraphs(show.summary), facts: facts,
            seasons: seasons.compactMap { season in
                guard let number = season.number else { return nil }
                let dates = [season.premiered, season.ended].compactMap { $0.map(clock.civil) }
                return SeasonEntry(number: number, label: season.name ?? words("Season {number}", ["number": String(number)]),
                                   episodes: season.episodeCount.map { words.plural("{count} episode", "{count} episodes", count: $0) } ?? "",
                                   dates: dates.joined(separator: " – "))
            },
            cast: show.cast.prefix(24).compactMap(CastEntry.init),
            hasCast: !show.cast.isEmpty, next: next, tvmazeLink: show.url, returnTo: SitePath.show(TVMazeNumber(id)), message: nil,
            progress: progress.map(format.progress),
            upNext: progress?.next.map { episode in
                EpisodeLine(id: episode.id, code: episode.code, name: episode.name, time: episode.airTime(zone: show.timeZone),
                            show: (id, show.name), format: format, now: now, isPremiere: episode.isPremiere)
            },
            canMark: profile != nil, listings: listings, hasListings: !listings.isEmpty)
        return try pages.page("show", model)
    }

    /// The show's next airings in the listings: linked to episodes by the kept copy (its episodes and other titles)
    /// when someone follows it; by its name alone otherwise, which asks TVmaze nothing more.
    private func listings(of show: Show, next: Int?, viewer: ProfileID?, format: SeriesFormat, languages: [String],
                          now: Date) async throws -> [ListingMatches.Entry] {
        var known = show
        if let kept = try await store.trackedShow(show.id)?.show { known.akas = kept.akas }
        let episodes = try await store.episodes(ofShows: [show.id])[show.id] ?? []
        let watched = if let viewer { Set(try await store.watched(by: viewer, show: show.id).map(\.episodeID)) } else { Set<Int>() }
        return try await ListingMatches.entries(of: known, episodes: episodes, next: next, watched: watched, in: store,
                                                snapshot: try await directory.snapshot(), format: format, languages: languages, now: now)
    }

    func season(_ request: Request, _ context: some GuideContext, _ id: Int, _ number: Int) async throws -> HTMLPage {
        let client = series.client
        guard let show = try await series.tvmaze({ try await client.show(id) }) else { throw Refusal.noShow(id) }
        let episodes = try await series.tvmaze { try await client.episodes(ofShow: id) }
        let format = SeriesFormat(pages, settings, context)
        let now = settings.now()
        let numbers = Array(Set(episodes.compactMap(\.season))).sorted()
        let profile = context.viewer?.profile
        let marks = if let profile { try await watched.marks(of: id, by: profile.id) } else { [Int: WatchedEpisode]() }
        let lines = episodes.filter { $0.season == number }.map { episode in
            var line = EpisodeLine(id: episode.id, code: episode.code, name: episode.name, time: episode.airTime(zone: show.timeZone),
                                   show: (id, show.name), format: format, now: now, isPremiere: episode.number == 1)
            line.isWatched = marks[episode.id] != nil
            line.watchedOn = marks[episode.id].map(format.watched)
            return line
        }
        guard !lines.isEmpty else {
            throw Refusal(.notFound, saying: "{show} has no season {number} on TVmaze.", ["show": show.name, "number": String(number)])
        }
        return try await pages.page("season", SeasonModel(chrome: pages.chrome(context, section: "shows"),
                                                   title: format.words("{show}: season {number}", ["show": show.name, "number": String(number)]),
                                                   showID: id, showName: show.name, season: number, episodes: lines,
                                                   seasons: numbers.map { SeasonLink(number: $0, isCurrent: $0 == number) },
                                                   canMark: profile != nil, returnTo: SitePath.season(TVMazeNumber(id), SeasonNumber(number))))
    }

    /// Follow, unfollow, reminders: signed in, then back where the form was.
    func change(_ request: Request, _ context: ProfileRequestContext, _ show: TVMazeNumber,
                _ body: @escaping @Sendable (Int, Profile, FollowForm) async throws -> Void) async throws -> Response {
        let profile = context.profile
        let id = show.rawValue
        let form = try await FollowForm(request, context)
        try await series.tvmaze { try await body(id, profile, form) }
        await episodes.syncReminders(profile)
        return .redirect(to: form.next ?? SitePath.show(show))
    }

    static func entry(_ show: Show, followed: Set<Int>) -> ShowEntry {
        ShowEntry(id: show.id, name: show.name, year: show.premiered.map { String($0.year) }, channel: show.channel?.name, status: show.status,
                  genres: show.genres.joined(separator: ", "), image: SeriesServices.image(show.image),
                  isFollowed: followed.contains(show.id))
    }
}

/// Follow, unfollow, reminders for a show: `on` (1 turns its reminders on, 0 off), and the page to go back to.
struct FollowForm: PostedForm {
    let on: Bool
    /// A path on this site to go back to, if the form named one.
    let next: String?

    init(_ form: FormFields) throws(FieldError) {
        on = try form.integer("on", in: 0...1) == 1
        next = try form.text("next", limit: 2_000, called: "The page to go back to").map { SignInPages.safeReturn($0) }
    }
}
