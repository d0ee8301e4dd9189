import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird
import NIOCore
import TVMaze

/// Watched episodes on the pages: POST `/shows/:id/watched` marks (or unmarks) an episode, a season, everything up to
/// an episode, or every aired episode, then goes back; `/up-next` shows each followed show's next episode to watch
/// and how far along the viewer is, in "continue watching" order.
struct WatchedPages: Sendable {
    let watched: WatchHistory
    /// TVmaze's answers as pages' errors, for a show not kept yet.
    let series: SeriesServices
    let pages: Pages
    let settings: ServerSettings
    let accounts: TVMazeAccountPages

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var shows: [Entry]
        var isEmpty: Bool
    }

    struct Entry {
        var showID: Int
        var name: String
        var image: String?
        var next: EpisodeLine?
        var progress: String
        var percent: Int
        var lastWatched: String?
        var newEpisodes: String?
        var specials: String?
        var returnTo: String
    }

    struct HistoryModel: PageModel {
        var chrome: Chrome
        var title: String
        /// "3 shows followed or watched, 120 episodes marked watched."
        var counts: String
        var tvmaze: TVMazeAccountPages.Entry?
    }

    func register(on routes: RouteGroups) {
        routes.profile.post(SitePath.watched) { request, context, show in try await mark(request, context, show: show) }
        routes.profile.get(.upNext) { request, context in try await upNext(request, context) }
        routes.profile.get(.history) { _, context in
            let document = try await HistoryExport(store: watched.store).document(of: context.profile.id, at: settings.now())
            let words = pages.words(context)
            let episodes = document.shows.reduce(0) { $0 + $1.episodes.count }
            return try await pages.page("history", HistoryModel(
                chrome: pages.chrome(context, section: "up-next"), title: words("Your history"),
                counts: words("{shows}, {episodes}.", [
                    "shows": words.plural("{count} show followed or watched", "{count} shows followed or watched", count: document.shows.count),
                    "episodes": words.plural("{count} episode marked watched", "{count} episodes marked watched", count: episodes)]),
                tvmaze: try await accounts.entry(of: context.profile.id, clock: settings.clock(context), words: words)))
        }
        routes.profile.get(.historyJSON) { _, context in try await export(context, csv: false) }
        routes.profile.get(.historyCSV) { _, context in try await export(context, csv: true) }
    }

    /// The profile's followed shows and watched episodes as a download: JSON, or the CSV `tvguide history import` reads.
    func export(_ context: ProfileRequestContext, csv: Bool) async throws -> Response {
        let document = try await HistoryExport(store: watched.store).document(of: context.profile.id, at: settings.now())
        let body: [UInt8] = csv ? Array(HistoryExport.csv(document).utf8) : Array(try GuideRequestContext.encoder.encode(document))
        return Response(status: .ok, headers: [.contentType: csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
                                               .contentDisposition: "attachment; filename=\"tvguide-history.\(csv ? "csv" : "json")\"",
                                               .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    func mark(_ request: Request, _ context: ProfileRequestContext, show: TVMazeNumber) async throws -> Response {
        let id = show.rawValue
        let form = try await WatchedForm(request, context)
        try await series.tvmaze { try await watched.mark(form.scope, show: id, watched: form.isWatched, by: context.profile.id) }
        return .redirect(to: form.next ?? SitePath.show(show))
    }

    func upNext(_ request: Request, _ context: ProfileRequestContext) async throws -> HTMLPage {
        let format = SeriesFormat(pages, settings, context)
        let words = format.words
        let now = settings.now()
        let entries = try await watched.progress(of: context.profile.id).map { progress in
            let show = progress.show
            let next = progress.next.map { episode in
                EpisodeLine(id: episode.id, code: episode.code, name: episode.name, time: episode.airTime(zone: show.timeZone),
                            show: (show.id, show.name), format: format, now: now, isPremiere: episode.isPremiere)
            }
            return Entry(showID: show.id, name: show.name, image: SeriesServices.image(show.image), next: next,
                         progress: format.progress(progress),
                         percent: progress.aired == 0 ? 0 : progress.watched * 100 / progress.aired,
                         lastWatched: progress.lastWatched.map { words("Last watched {date}", ["date": format.clock.date($0)]) },
                         newEpisodes: progress.newSinceLastWatched > 0 && progress.watched > 0
                            ? words.plural("{count} new since", "{count} new since", count: progress.newSinceLastWatched) : nil,
                         specials: progress.specialsAired > 0
                            ? words("Specials: {watched} of {aired}", ["watched": words.number(progress.specialsWatched),
                                                                       "aired": words.number(progress.specialsAired)]) : nil,
                         returnTo: SitePath.upNext())
        }
        return try await pages.page("up-next", Model(chrome: pages.chrome(context, section: "up-next"), title: words("Up next"), shows: entries,
                                                     isEmpty: entries.isEmpty))
    }
}

/// A watched mark from a page: what it names (`episode`, `season`, `upto` with `episode`, or `all`), whether it marks
/// or unmarks (`watched` 1 or 0), and the page to go back to.
struct WatchedForm: PostedForm {
    enum Scope: String, CaseIterable {
        case episode, season, upto, all
    }

    let scope: WatchScope
    let isWatched: Bool
    let next: String?

    init(_ form: FormFields) throws(FieldError) {
        let kind = try form.choice("scope", as: Scope.self, called: "What to mark") ?? .episode
        switch kind {
        case .episode, .upto:
            guard let episode = try form.integer("episode", in: 1...Int(Int32.max), called: "The episode") else {
                throw FieldError(name: "episode", saying: "The episode is needed")
            }
            scope = kind == .episode ? .episode(episode) : .upTo(episode)
        case .season:
            guard let season = try form.integer("season", in: Episode.numberRange, called: "The season") else {
                throw FieldError(name: "season", saying: "The season is needed")
            }
            scope = .season(season)
        case .all:
            scope = .allAired
        }
        isWatched = try form.integer("watched", in: 0...1) != 0
        next = try form.text("next", limit: 2_000, called: "The page to go back to").map { SignInPages.safeReturn($0) }
    }
}
