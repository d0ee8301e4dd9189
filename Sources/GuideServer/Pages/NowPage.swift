import Foundation
import GuideApplication
import GuideCore
import GuideStore
import Hummingbird

/// `/now`: each of the viewer's channels with what is on (and how far through it is) and what follows. Phone
/// first: one compact line per channel, 50 channels a page.
struct NowPage: Sendable {
    let store: any ListingStore & ChannelSettingsStore
    let directory: ChannelDirectory
    let lineups: Lineups
    let pages: Pages
    let settings: ServerSettings
    static let perPage = 50

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var at: String
        var rows: [Row]
        var previousPage: String?
        var nextPage: String?
        var from: Int
        var to: Int
        var total: Int
        var genres: ChipSet
        var groups: ChipSet?
        /// What the page says when no channel is left.
        var nothing: String?
    }

    struct Row {
        var channelID: String
        var channel: String
        var number: String?
        var logo: String?
        /// The channel's stream, from the playlist describing it.
        var watch: String?
        var now: Slot?
        var next: Slot?
        var isFavourite: Bool
    }

    struct Slot {
        var id: Int64
        var title: String
        var time: String
        var elapsed: Int
        var length: Int
        var remaining: String
    }

    func register(on routes: RouteGroups) {
        routes.open.get(.now) { request, context in try await render(request, context) }
    }

    func render(_ request: Request, _ context: some GuideContext) async throws -> HTMLPage {
        let query = QueryParameters(request: request)
        let page = try query.integer("page", in: 0...100_000, default: 0)
        let filter = try GenreFilter(query)
        let groups = try await GroupFilter.resolve(query, request, context, store: store, directory: directory, remembers: true)
        let clock = settings.clock(context)
        let now = settings.now()
        let snapshot = try await directory.snapshot()
        let everyChannel = try await lineups.of(context).channels
        let lineup = groups.channels(everyChannel, in: snapshot)
        // Unfiltered, only the page's channels are asked about; filtered, every channel, then those whose current
        // programme is of the genre.
        var channels = lineup
        var known: [ChannelID: NowNext] = [:]
        if filter.genre != nil {
            let found = try await store.nowNext(at: now, channels: lineup.map(\.id), detail: .summary)
            known = Dictionary(zip(lineup.map(\.id), found), uniquingKeysWith: { first, _ in first })
            channels = lineup.filter { known[$0.id]?.now.map { filter.admits($0.programme) } ?? false }
        }
        let from = min(page * Self.perPage, max(0, channels.count - 1))
        let slice = Array(channels[from..<min(channels.count, from + Self.perPage)])
        if filter.genre == nil {
            let found = try await store.nowNext(at: now, channels: slice.map(\.id), detail: .summary)
            known = Dictionary(zip(slice.map(\.id), found), uniquingKeysWith: { first, _ in first })
        }
        let playlist = snapshot.playlist
        let words = pages.words(context)
        // Nothing on now on any channel (the listings end before now, or begin after): said once, with when they
        // run and how to add more, not a row of "Nothing listed now" for each of thousands of channels.
        let outside: String?
        if !slice.isEmpty, filter.genre == nil, known.values.allSatisfy({ $0.now == nil }) {
            let coverage = try await store.coverage()
            outside = Self.outsideListings(at: now, coverage: coverage, clock: clock, words: words)
        } else {
            outside = nil
        }
        let languages = context.listingLanguages
        let rows = outside != nil ? [] : slice.map { channel in
            Row(channelID: channel.id.rawValue, channel: channel.name, number: channel.number, logo: ChannelLogos.address(of: channel),
                watch: GridRow.safeStream(playlist[channel.id]?.stream),
                now: known[channel.id]?.now.map { slot($0, now: now, clock: clock, words: words, languages: languages) },
                next: known[channel.id]?.next.map { slot($0, now: now, clock: clock, words: words, languages: languages) }, isFavourite: groups.isFavourite(channel.id))
        }
        let model = await Model(chrome: pages.chrome(context, section: "now"), title: filter.genre.map { words("On now: {genre}", ["genre": $0.label(words)]) } ?? words("On now"),
                          at: words("{date}, {time}", ["date": clock.date(now), "time": clock.time(now)]), rows: rows,
                          previousPage: from > 0 ? SitePath.now(query: "page=\(page - 1)\(filter.parameter)\(groups.parameter)") : nil,
                          nextPage: from + Self.perPage < channels.count ? SitePath.now(query: "page=\(page + 1)\(filter.parameter)\(groups.parameter)") : nil,
                          from: channels.isEmpty ? 0 : from + 1, to: from + slice.count, total: channels.count,
                          genres: filter.chips(words) { Self.address(genre: $0, group: groups.parameter) },
                          groups: groups.chips(for: everyChannel, in: snapshot, words) { Self.address(genre: filter.genre, group: groups.parameter(for: $0)) },
                          nothing: outside ?? (channels.isEmpty ? (filter.genre.map { words("Nothing in {genre} on now.", ["genre": $0.label(words)]) }
                                                                  ?? words("No channels yet.")) : nil))
        return try pages.page("now", model)
    }

    /// What `/now` says when `now` is outside the listings (`coverage`), or nil when it is inside them.
    static func outsideListings(at now: Date, coverage: TimeWindow?, clock: ViewerClock, words: Localizer) -> String? {
        guard let coverage else { return words("No listings yet. An admin adds them on the sources page, or with: tvguide import FILE-OR-URL") }
        guard now < coverage.start || now >= coverage.end else { return nil }
        return words("Nothing is listed now: the listings run from {start} to {end}. An admin adds more on the sources page, or with: tvguide import FILE-OR-URL",
                     ["start": words("{date}, {time}", ["date": clock.date(coverage.start), "time": clock.time(coverage.start)]),
                      "end": words("{date}, {time}", ["date": clock.date(coverage.end), "time": clock.time(coverage.end)])])
    }

    /// `/now` with a genre and a group's parameter (``GroupFilter/parameter(for:)``), either or both.
    static func address(genre: Genre?, group: String) -> String {
        SitePath.now(query: (genre.map { "&genre=\($0.rawValue)" } ?? "") + group)
    }

    private func slot(_ stored: StoredProgramme, now: Date, clock: ViewerClock, words: Localizer, languages: [String]) -> Slot {
        let length = max(1, Int(stored.end.timeIntervalSince(stored.programme.start) / 60))
        let elapsed = min(length, max(0, Int(now.timeIntervalSince(stored.programme.start) / 60)))
        let left = Int(stored.end.timeIntervalSince(now) / 60)
        return Slot(id: stored.id.rawValue, title: stored.programme.title(in: languages),
                    time: "\(clock.time(stored.programme.start))–\(clock.time(stored.end))", elapsed: elapsed, length: length,
                    remaining: now >= stored.programme.start ? words.plural("{count} min left", "{count} min left", count: max(0, left)) : "")
    }
}
