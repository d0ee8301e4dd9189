import Foundation
import GuideApplication
import GuideCore
import GuideStore
import Hummingbird

/// `/search?q=`: programmes matching every word (the CLI's rules: any order, case and accents ignored), grouped
/// by the viewer's days, each linking to its details and to its place in the grid.
struct SearchPage: Sendable {
    let store: any ListingStore & SeriesStore & WatchedStore & RecordingStore
    let directory: ChannelDirectory
    let pages: Pages
    let settings: ServerSettings

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var query: String
        var searchAll: Bool
        var searched: Bool
        var count: Int
        var countLabel: String
        var days: [Day]
        var limited: Bool
        var message: String?
        var genres: ChipSet
        var followedChoices: ChipSet?
        /// This page's address, for Record to come back to.
        var returnTo = SitePath.search()
    }

    struct Day {
        var label: String
        var results: [Result]
    }

    struct Result {
        var id: Int64
        var time: String
        var title: String
        var subTitle: String?
        var episode: String?
        var channel: String
        var guideLink: String
        var genre: String
        var isPast: Bool
        /// "Record" is offered (a viewer who may record, a recorder set up, the channel matched, not ended).
        var canRecord = false
        /// The recorder is asked to record it.
        var isRecording = false
    }

    static let limit = 300

    func register(on routes: RouteGroups) {
        routes.open.get(.search) { request, context in try await render(request, context) }
    }

    func render(_ request: Request, _ context: some GuideContext) async throws -> HTMLPage {
        let query = QueryParameters(request: request)
        let typed = query.string("q") ?? ""
        let problem = SearchQuery.problem(withText: typed)
        let text = problem == nil ? typed : ""
        let searchAll = query.string("in") == "all"
        let filter = try GenreFilter(query)
        let followed = try await FollowedFilter.resolve(query, viewer: context.viewer?.profile.id, store: store)
        let clock = settings.clock(context)
        let now = settings.now()
        let search = SearchQuery([text], scope: searchAll ? .all : .title, limit: Self.limit)
        let words = pages.words(context)
        var model = await Model(chrome: pages.chrome(context, section: "search"),
                                title: text.isEmpty ? words("Search") : words("Search: {words}", ["words": text]),
                          query: text, searchAll: searchAll, searched: !search.terms.isEmpty, count: 0, countLabel: "", days: [],
                          limited: false, message: nil,
                          genres: filter.chips(words) { genre in
                              SitePath.search(query: "q=\(SitePath.encoded(text))" + (searchAll ? "&in=all" : "") + (genre.map { "&genre=\($0.rawValue)" } ?? "")
                                              + followed.parameter)
                          },
                          followedChoices: followed.chips(words) { choice in
                              SitePath.search(query: "q=\(SitePath.encoded(text))" + (searchAll ? "&in=all" : "") + filter.parameter
                                              + (choice == .all ? "" : "&followed=\(choice.rawValue)"))
                          })
        guard !search.terms.isEmpty else {
            if let problem { model.message = problem.worded(words) }
            if !text.isEmpty { model.message = words("Type a word to look for; punctuation alone finds nothing.") }
            return try pages.page("search", model)
        }
        let snapshot = try await directory.snapshot()
        let recordable = try await Self.recordable(store, viewer: context.viewer?.profile)
        model.returnTo = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        let found = try await store.search(search).filter { filter.admits($0.programme) && followed.admits($0.programme) }
        var days: [Day] = []
        let languages = context.listingLanguages
        for stored in found {
            let programme = stored.programme
            let day = clock.day(containing: programme.start)
            let label = clock.longDate(day)
            let result = Result(
                id: stored.id.rawValue, time: clock.time(programme.start), title: programme.title(in: languages),
                subTitle: programme.subTitle(in: languages),
                episode: programme.episodeLabel,
                channel: snapshot.channel(programme.channel)?.name ?? programme.channel.rawValue,
                guideLink: ProgrammeDetails.guideLink(programme, clock: clock),
                genre: programme.genre.rawValue, isPast: stored.end <= now,
                canRecord: stored.end > now && recordable.channels.contains(programme.channel),
                isRecording: recordable.scheduled.contains(GridCell.recordingKey(programme.channel, programme.start)))
            if days.last?.label == label { days[days.count - 1].results.append(result) } else { days.append(Day(label: label, results: [result])) }
        }
        model.count = found.count
        model.limited = found.count == Self.limit
        model.countLabel = model.limited
            ? words.plural("{count} programme found (the first ones; add a word to narrow it).",
                           "{count} programmes found (the first ones; add a word to narrow it).", count: found.count)
            : words.plural("{count} programme found.", "{count} programmes found.", count: found.count)
        model.days = days
        return try pages.page("search", model)
    }

    /// For a viewer who may record, with a recorder set up: the channels matched to it and what it is asked to record.
    static func recordable(_ store: any RecordingStore, viewer: Profile?) async throws -> (channels: Set<ChannelID>, scheduled: Set<String>) {
        guard viewer?.mayRecord == true, try await store.recorder() != nil else { return ([], []) }
        let scheduled = try await store.recordings(limit: RecordingDesk.mostKept).filter(\.isScheduled)
        return (Set(try await store.recorderChannels().keys), Set(scheduled.map { GridCell.recordingKey($0.what.channel, $0.what.start) }))
    }
}
