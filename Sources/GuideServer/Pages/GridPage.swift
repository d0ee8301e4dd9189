import Foundation
import GuideApplication
import GuideCore
import GuideHTTPServing
import GuideStore
import Hummingbird

/// The guide grid at `/`: one broadcast day of the viewer's channels. The server renders a page of rows (all a
/// browser without JavaScript gets, with links to the next rows); the script then draws only the rows near the
/// viewport from `/grid/rows`, so 3,000 channels cost no more than 50.
struct GridPage: Sendable {
    let store: any ListingStore & SeriesStore & WatchedStore & ChannelSettingsStore & RecordingStore
    let directory: ChannelDirectory
    let lineups: Lineups
    let pages: Pages
    let settings: ServerSettings

    /// Rows per server-rendered page: a tall screen's worth, and all a browser without JavaScript gets at once. Fewer
    /// rows are a faster first paint on a phone (a page of 60 rows was 3,438 elements to style and lay out); the
    /// script fetches the rest as the grid scrolls.
    static let rowsPerPage = 16
    /// The most rows one `/grid/rows` call returns.
    static let mostRowsPerRequest = 60
    static let zooms = [30, 60, 120, 180, 240]
    static let defaultZoom = 180

    func register(on routes: RouteGroups) {
        routes.open.get(.guide) { request, context in try await render(request, context) }
        routes.open.get(.gridRows) { request, context in try await rows(request, context) }
    }

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var empty: Bool
        var day: String
        var dayLabel: String
        var firstDay: String
        var lastDay: String
        /// "Listings from Sat 14 Feb to Tue 17 Feb".
        var coverageLabel: String
        var previousDay: String?
        var nextDay: String?
        var todayLink: String?
        var dayStart: Int64
        var dayEnd: Int64
        var dayMinutes: Int
        var now: Int64
        var nowOffset: Int?
        /// The zoom the server lays out; on a narrow screen the stylesheet shows an hour instead unless it was chosen.
        var zoom: Int
        /// Whether the address chose the zoom (`?zoom=`); links carry it on only then.
        var isZoomChosen: Bool
        var zooms: [ZoomLink]
        var total: Int
        var rowsFrom: Int
        var rowsTo: Int
        var rowCount: Int
        /// The rows, written by ``GridRowsHTML``.
        var rowsHTML: String
        var ruler: [RulerMark]
        var previousPage: String?
        var nextPage: String?
        var legend: [LegendEntry]
        var focusChannel: String
        var focusTime: Int64?
        var panel: ProgrammeDetails?
        var closePanel: String
        var notice: String?
        var isChosenLineup: Bool
        var zone: String
        /// `?genre=`: the genre shown, others dimmed; "" for all.
        var genre: String
        var genres: ChipSet
        var groups: ChipSet?
        /// `?group=`: only a playlist group's channels; "" for all.
        var group: String
        /// `?followed=`: the viewer's followed shows' airings, all or only those unseen or new; "" for all.
        var followed: String
        var followedChoices: ChipSet?
    }

    struct ZoomLink {
        var label: String
        var minutes: Int
        var link: String
        var isCurrent: Bool
    }

    struct LegendEntry {
        var genre: String
        var label: String
    }

    func render(_ request: Request, _ context: some GuideContext) async throws -> HTMLPage {
        let query = QueryParameters(request: request)
        let clock = settings.clock(context)
        let now = settings.now()
        let chosenZoom = try query.integer("zoom", in: 1...1440).flatMap { Self.zooms.contains($0) ? $0 : nil }
        let zoom = chosenZoom ?? Self.defaultZoom
        let requestedDay = query.string("day")
        let focusChannel = query.string("channel")
        let focusTime = try query.instant("at")
        let requestedPage = try query.integer("page", in: 0...100_000, default: 0)
        let panelID = query.string("p").flatMap { Bounded.integer($0, in: 1...Int64.max) }
        let filter = try GenreFilter(query)
        let groups = try await GroupFilter.resolve(query, request, context, store: store, directory: directory, remembers: true)
        let followed = try await FollowedFilter.resolve(query, viewer: context.viewer?.profile.id, store: store)

        let chrome = await pages.chrome(context, section: "guide")
        let words = pages.words(context)
        guard let coverage = try await store.coverage() else {
            return try pages.page("grid", Self.emptyModel(chrome: chrome, zone: clock.zone.identifier, words: words))
        }
        let days = BroadcastDay.days(covering: coverage, zone: clock.zone, startHour: clock.dayStartHour)
        let today = clock.day(containing: now)
        var notice: String?
        var day = days.contains(today) ? today : days[0]
        if let focusTime { day = clock.day(containing: focusTime) }
        if let requestedDay {
            if let asked = clock.day(requestedDay) {
                day = asked
            } else {
                notice = words("{asked} is not a date; showing {day}.", ["asked": requestedDay, "day": clock.longDate(day)])
            }
        }
        if day < days[0] || day > days[days.count - 1] {
            let nearest = day < days[0] ? days[0] : days[days.count - 1]
            notice = words("There are no listings for {day}: they cover {first} to {last}. Showing {nearest}.",
                           ["day": day.description, "first": clock.longDate(days[0]), "last": clock.longDate(days[days.count - 1]),
                            "nearest": clock.longDate(nearest)])
            day = nearest
        }
        let window = day.window
        // `offline=1`: the page an installed guide keeps, with the channels it keeps.
        var lineup = try await lineups.of(context)
        let snapshot = try await directory.snapshot()
        let everyChannel = lineup.channels
        lineup.channels = groups.channels(lineup.channels, in: snapshot)
        if query.string("offline") == "1" { lineup.channels = OfflineGuide.kept(lineup) }
        var page = requestedPage
        if let focusChannel, let index = lineup.channels.firstIndex(where: { $0.id.rawValue == focusChannel }) {
            page = index / Self.rowsPerPage
        }
        let pageCount = max(1, (lineup.channels.count + Self.rowsPerPage - 1) / Self.rowsPerPage)
        page = min(page, pageCount - 1)
        let rows = try await Self.rows(store: store, lineup: lineup.channels, from: page * Self.rowsPerPage, count: Self.rowsPerPage,
                                 day: window, clock: clock, viewer: context.viewer?.profile, followed: followed,
                                 languages: context.listingLanguages)
        // The day, the page and the filters; the zoom only when chosen, so a screen's own default holds from day to day.
        let zoomParameter = { (zoom: Int?) in zoom.map { "&zoom=\($0)" } ?? "" }
        let link = { (day: BroadcastDay, zoom: Int?, page: Int) -> String in
            SitePath.guide(query: "day=\(day)" + zoomParameter(zoom) + (page > 0 ? "&page=\(page)" : "") + filter.parameter + groups.parameter
                           + followed.parameter)
        }
        let dayIndex = days.firstIndex(of: day) ?? 0
        var panel: ProgrammeDetails?
        if let panelID, let stored = try await store.programme(ProgrammeID(rawValue: panelID)) {
            panel = try await ProgrammeDetails(stored, store: store, channels: snapshot, clock: clock, now: now, viewer: context.viewer?.profile,
                                               returnTo: request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""), words: words,
                                               languages: context.listingLanguages)
        }
        let model = Model(
            chrome: chrome, title: words("Guide for {day}", ["day": clock.longDate(day)]), empty: false, day: day.description,
            dayLabel: clock.longDate(day), firstDay: days[0].description, lastDay: days[days.count - 1].description,
            coverageLabel: words("Listings from {first} to {last}", ["first": clock.date(coverage.start), "last": clock.date(coverage.end)]),
            previousDay: dayIndex > 0 ? link(days[dayIndex - 1], chosenZoom, 0) : nil,
            nextDay: dayIndex + 1 < days.count ? link(days[dayIndex + 1], chosenZoom, 0) : nil,
            todayLink: days.contains(today) ? link(today, chosenZoom, 0) + "&at=\(CivilTime.iso8601(now))" : nil,
            dayStart: window.start.unixSeconds, dayEnd: window.end.unixSeconds,
            dayMinutes: Int(window.duration / 60), now: now.unixSeconds,
            nowOffset: window.start <= now && now < window.end ? Int(now.timeIntervalSince(window.start) / 60) : nil,
            zoom: zoom, isZoomChosen: chosenZoom != nil,
            zooms: Self.zooms.map { ZoomLink(label: $0 < 60 ? words("{minutes} min", ["minutes": words.number($0)])
                                                    : words("{hours} h", ["hours": words.number($0 / 60)]), minutes: $0, link: link(day, $0, page),
                                             isCurrent: $0 == zoom) },
            total: lineup.channels.count, rowsFrom: page * Self.rowsPerPage + 1,
            rowsTo: page * Self.rowsPerPage + rows.count, rowCount: lineup.channels.count + 1, rowsHTML: GridRowsHTML.render(rows, genre: filter.genre, noListings: words("No listings")),
            ruler: GridRow.ruler(for: window, clock: clock),
            previousPage: page > 0 ? link(day, chosenZoom, page - 1) : nil,
            nextPage: page + 1 < pageCount ? link(day, chosenZoom, page + 1) : nil,
            legend: Genre.allCases.map { LegendEntry(genre: $0.rawValue, label: $0.label(words)) },
            focusChannel: focusChannel ?? "", focusTime: focusTime.map(\.unixSeconds),
            panel: panel, closePanel: link(day, chosenZoom, page), notice: notice ?? Self.sampleNotice(snapshot, words), isChosenLineup: lineup.isChosen,
            zone: clock.zone.identifier, genre: filter.genre?.rawValue ?? "",
            genres: filter.chips(words) { genre in
                SitePath.guide(query: "day=\(day)" + zoomParameter(chosenZoom) + (genre.map { "&genre=\($0.rawValue)" } ?? "") + groups.parameter + followed.parameter)
            },
            groups: groups.chips(for: everyChannel, in: snapshot, words) { group in
                SitePath.guide(query: "day=\(day)" + zoomParameter(chosenZoom) + filter.parameter + groups.parameter(for: group) + followed.parameter)
            },
            group: groups.group ?? "", followed: followed.choice.rawValue,
            followedChoices: followed.chips(words) { choice in
                SitePath.guide(query: "day=\(day)" + zoomParameter(chosenZoom) + filter.parameter + groups.parameter + (choice == .all ? "" : "&followed=\(choice.rawValue)"))
            })
        return try pages.page("grid", model)
    }

    /// `GET /grid/rows?day=&from=&count=`: rows of the viewer's lineup for the grid's script, each its markup
    /// (``GridRowsHTML``).
    func rows(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let query = QueryParameters(request: request)
        let clock = settings.clock(context)
        guard let dayText = query.string("day"), let day = clock.day(dayText) else {
            throw Refusal(.badRequest, saying: "day must be a date like 2026-02-15")
        }
        let from = try query.integer("from", in: 0...1_000_000, default: 0)
        let count = try query.integer("count", in: 1...Self.mostRowsPerRequest, default: 40)
        let groups = try await GroupFilter.resolve(query, request, context, store: store, directory: directory, remembers: false)
        let lineup = groups.channels(try await lineups.of(context).channels, in: try await directory.snapshot())
        let followed = try await FollowedFilter.resolve(query, viewer: context.viewer?.profile.id, store: store)
        let rows = try await Self.rows(store: store, lineup: lineup, from: from, count: count, day: day.window,
                                       clock: clock, viewer: context.viewer?.profile, followed: followed,
                                 languages: context.listingLanguages)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let words = pages.words(context)
        let rendered = GridRowsHTML.rendered(rows, noListings: words("No listings"))
        let body = try encoder.encode(RowsDocument(from: from, rows: rendered))
        return CompressibleBody.response(Array(body), for: request,
                                         headers: [.contentType: "application/json", .cacheControl: "no-store"])
    }

    struct RowsDocument: Encodable {
        var from: Int
        var rows: [GridRowsHTML.Rendered]
    }

    /// Rows `from` of `lineup` for `day`; a followed show's airings left out as `followed` asks.
    static func rows(store: any ListingStore & SeriesStore & RecordingStore, lineup: [Channel], from: Int, count: Int, day: TimeWindow,
                     clock: ViewerClock, viewer: Profile?, followed filter: FollowedFilter = .none,
                     languages: [String] = []) async throws -> [GridRow] {
        guard from < lineup.count else { return [] }
        let slice = Array(lineup[from..<min(lineup.count, from + count)])
        let listings = try await store.guide(in: day, channels: slice.map(\.id), detail: .summary)
        let followed = await ListingMatches.followedTitles(of: viewer?.id, languages: languages, in: store)
        // What the recorder is asked to record, marked for those who may record.
        let recorded = viewer?.mayRecord == true
            ? Set(try await store.recordings(in: day).filter(\.isScheduled).map { GridCell.recordingKey($0.what.channel, $0.what.start) }) : []
        return zip(slice.indices, zip(slice, listings)).map { offset, pair in
            GridRow(index: from + offset, channel: pair.0, programmes: pair.1.programmes.filter { filter.admits($0.programme) }, day: day,
                    clock: clock, followed: followed, recorded: recorded, languages: languages)
        }
    }

    /// What a guide of the bundled sample says (read with the channels, once per version: nothing on the grid's path).
    static func sampleNotice(_ snapshot: ChannelDirectory.Snapshot, _ words: Localizer) -> String? {
        guard let weeks = snapshot.sampleWeeks else { return nil }
        return weeks == 0 ? words("Sample listings: an admin adds your own on the sources page.")
                          : words("Sample listings, moved to this week: an admin adds your own on the sources page.")
    }

    private static func emptyModel(chrome: Chrome, zone: String, words: Localizer) -> Model {
        Model(chrome: chrome, title: words("Guide"), empty: true, day: "", dayLabel: "", firstDay: "", lastDay: "", coverageLabel: "", previousDay: nil,
              nextDay: nil, todayLink: nil, dayStart: 0, dayEnd: 0, dayMinutes: 1440, now: 0, nowOffset: nil,
              zoom: defaultZoom, isZoomChosen: false, zooms: [], total: 0, rowsFrom: 0, rowsTo: 0, rowCount: 1, rowsHTML: "", ruler: [],
              previousPage: nil, nextPage: nil, legend: [], focusChannel: "", focusTime: nil, panel: nil, closePanel: SitePath.guide(),
              notice: nil, isChosenLineup: false, zone: zone, genre: "",
              genres: ChipSet(kind: "genre-filter", label: words("Only one genre"), chips: []), groups: nil, group: "", followed: "",
              followedChoices: nil)
    }
}
