import Crypto
import Foundation
import GuideApplication
import GuideCore
import GuideHTTPServing
import GuideStore
import GuideThreads
import Hummingbird

/// The guide installed on a phone and used without a network: the web app manifest, the service worker
/// (Resources/static/sw.js), the page shown for what is not kept, and `/offline/listings`, the copy of the listings
/// the service worker keeps: the viewer's channels (a chosen lineup's first 120, else the guide's first 60) for the
/// next `offlineDays` days, as the grid's rows and each programme's details panel.
struct OfflineGuide: Sendable {
    let store: any ListingStore & SeriesStore & ChannelSettingsStore
    let directory: ChannelDirectory
    let lineups: Lineups
    let pages: Pages
    let settings: ServerSettings
    let addresses: ClientAddress
    /// Builds the copies on a thread of their own, a few at once: rendering thousands of panels must not hold the
    /// threads pages run on.
    let lane: BlockingLane
    /// Copies built for one client address (an unchanged copy is answered 304 without building).
    let builds: ClientQuota

    /// Channels kept for a chosen lineup, and for everyone else.
    static let chosenChannels = 120
    static let guestChannels = 60
    /// Details panels in one copy at most (the earliest programmes first): about 1.5 KB each.
    static let mostPanels = 8_000
    /// The channels of `lineup` an installed guide keeps.
    static func kept(_ lineup: (channels: [Channel], isChosen: Bool)) -> [Channel] {
        Array(lineup.channels.prefix(lineup.isChosen ? chosenChannels : guestChannels))
    }

    /// What the copy's JSON is; the service worker drops copies in another format.
    static let format = 2

    init(store: any ListingStore & SeriesStore & ChannelSettingsStore, directory: ChannelDirectory, lineups: Lineups, pages: Pages,
         settings: ServerSettings, addresses: ClientAddress) {
        (self.store, self.directory, self.lineups, self.pages, self.settings, self.addresses) = (store, directory, lineups, pages, settings, addresses)
        lane = BlockingLane(label: "tvguide.offline-copy", capacity: 4)
        builds = ClientQuota(limit: 12, per: 600, now: settings.now)
    }

    func register(on routes: RouteGroups) {
        routes.open.get(.manifest) { _, _ in manifest() }
        routes.open.get(.serviceWorker) { request, _ in try pages.assets.response(for: "sw.js", request: request, isVersioned: false) }
        routes.open.get(.offline) { _, context in try await page(context) }
        routes.open.get(.offlineListings) { request, context in try await listings(request, context) }
    }

    /// The web app manifest: what a phone needs to install the guide and open it on its own, at the now page.
    func manifest() -> Response {
        let icon = { (name: String, size: Int, purpose: String) -> [String: String] in
            ["src": SitePath.asset(PathText(name), query: "v=\(pages.assets.version)"), "sizes": "\(size)x\(size)", "type": "image/png", "purpose": purpose]
        }
        let document: [String: Any] = [
            "id": SitePath.guide(), "name": "tvguide", "short_name": "tvguide",
            "description": "What is on television now and for the next two weeks, on your channels.",
            "start_url": SitePath.now(), "scope": SitePath.guide(), "display": "standalone", "orientation": "any",
            "background_color": Self.themeColour, "theme_color": Self.themeColour,
            "icons": [icon("icon-192.png", 192, "any"), icon("icon-512.png", 512, "any"), icon("icon-maskable-512.png", 512, "maskable")],
            "shortcuts": [["name": "On now", "url": SitePath.now()], ["name": "Guide", "url": SitePath.guide()],
                          ["name": "Reminders", "url": SitePath.reminders()]],
        ]
        let body = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data()
        return Response(status: .ok, headers: [.contentType: "application/manifest+json", .cacheControl: "no-cache"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The guide's background (guide.css's `--bg`), for the phone's title bar and splash screen.
    static let themeColour = "#101418"

    struct OfflinePageModel: PageModel {
        var chrome: Chrome
        var title: String
        var days: Int
    }

    /// `/offline`: what the service worker shows for a page it does not keep (and, around a programme's panel, for a
    /// programme's own page).
    func page(_ context: some GuideContext) async throws -> HTMLPage {
        let words = pages.words(context)
        return try pages.page("offline", OfflinePageModel(chrome: await pages.chrome(context, section: "offline"), title: words("Offline"), days: settings.offlineDays))
    }

    /// The copy: JSON with the days (each with its grid page's address and its rows), the panels by programme id, and
    /// the pages and files the service worker keeps beside them. Its ETag names everything it is made from, down to
    /// the programmes the store answered with (ids and ends: a replaced row has a new id), so an unchanged copy costs
    /// a 304 after one summary query, and a copy made while the store still read the listings from before an import
    /// (PostgreSQL's schedule, loading) is never taken for the one after it.
    func listings(_ request: Request, _ context: some GuideContext) async throws -> Response {
        // `?kept` is the service worker's own copy, which it answers itself; reaching the server, there is none.
        if request.uri.queryParameters.has("kept") {
            throw Refusal(.notFound, saying: "This browser keeps no copy of the listings.")
        }
        let clock = settings.clock(context)
        let now = settings.now()
        let channels = Self.kept(try await lineups.of(context))
        let followed = await ListingMatches.followedTitles(of: context.viewer?.profile.id, languages: context.listingLanguages, in: store)
        var favourites: [ChannelID] = []
        if let viewer = context.viewer { favourites = try await store.favourites(of: viewer.profile.id) }
        let days = try await Self.days(in: store, count: settings.offlineDays, clock: clock, now: now)
        let chrome = await pages.chrome(context, section: "guide")
        let snapshot = try await directory.snapshot()
        // The copy's words and formats are the viewer's: another language or clock is another copy.
        let inputs = ["\(Self.format)", "\(snapshot.generation)", pages.assets.version, clock.zone.identifier, "\(clock.dayStartHour)",
                      context.language.code, clock.locale?.identifier ?? "", "\(clock.uses12Hours)",
                      context.listingLanguages.joined(separator: ","),
                      context.viewer.map { "\($0.profile.id.rawValue) \(chrome.csrf)" } ?? "guest"]
            + days.map(\.description) + channels.map(\.id.rawValue) + followed.sorted()
        let favouriteInputs: [String] = ["favourites"] + favourites.map(\.rawValue)
        let window = days.first.map { TimeWindow(start: $0.window.start, end: days[days.count - 1].window.end) }
        let read = { (detail: ProgrammeDetail) async throws -> [ChannelListings] in
            guard let window else { return [] }
            return try await store.guide(in: window, channels: channels.map(\.id), detail: detail)
        }
        let unchanged = Self.tag(inputs + favouriteInputs, try await read(.summary))
        if XMLTVFeed.isUnchanged(request, tag: unchanged, updated: nil) {
            return Response(status: .notModified, headers: [.eTag: unchanged, .cacheControl: "no-cache"])
        }
        guard builds.take(addresses.of(request, peer: context.peer)) else {
            throw Refusal(.tooManyRequests, headers: [.retryAfter: "\(builds.retryAfter())"],
                          saying: "This address has asked for many offline copies lately; try again in a few minutes.")
        }
        let listings = try await read(.full)
        let tag = Self.tag(inputs + favouriteInputs, listings)
        let copy = Copy(takenAt: now, clock: clock, days: days, channels: channels, listings: listings, followed: followed,
                        favourites: Set(favourites), tag: tag,
                        chrome: chrome, words: pages.words(context), languages: context.listingLanguages, snapshot: snapshot,
                        assets: pages.assets.version)
        let renderer = pages.renderer
        let built: Result<[UInt8], any Error>
        do {
            built = try await lane.run { Result { try copy.encoded(renderer: renderer) } }
        } catch {
            throw Refusal(.serviceUnavailable, headers: [.retryAfter: "10"], saying: "The server is making other offline copies; try again shortly.")
        }
        return CompressibleBody.response(try built.get(), for: request,
                                         headers: [.eTag: tag, .cacheControl: "no-cache", .contentType: "application/json"])
    }

    /// A copy's ETag: `inputs`, then each programme's id and end.
    static func tag(_ inputs: [String], _ listings: [ChannelListings]) -> String {
        var hasher = SHA256()
        for part in inputs {
            hasher.update(data: Data(part.utf8))
            hasher.update(data: [0])
        }
        for channel in listings {
            hasher.update(data: Data(channel.channel.rawValue.utf8))
            for stored in channel.programmes {
                withUnsafeBytes(of: stored.id.rawValue.littleEndian) { hasher.update(bufferPointer: $0) }
                withUnsafeBytes(of: stored.end.unixSeconds.littleEndian) { hasher.update(bufferPointer: $0) }
            }
        }
        return "\"offline-" + hasher.finalize().prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// The broadcast days kept: today and the following ones, as far as the listings go.
    static func days(in store: any ListingStore, count: Int, clock: ViewerClock, now: Date) async throws -> [BroadcastDay] {
        guard let coverage = try await store.coverage() else { return [] }
        let listed = Set(BroadcastDay.days(covering: coverage, zone: clock.zone, startHour: clock.dayStartHour))
        var day = clock.day(containing: now)
        var days: [BroadcastDay] = []
        for _ in 0..<count {
            if listed.contains(day) { days.append(day) }
            day = day.adding(days: 1)
        }
        return days
    }

    /// What a copy is made from, and its making (pure work, run on the lane).
    struct Copy: Sendable {
        var takenAt: Date
        var clock: ViewerClock
        var days: [BroadcastDay]
        var channels: [Channel]
        var listings: [ChannelListings]
        var followed: Set<String>
        var favourites: Set<ChannelID>
        var tag: String
        var chrome: Chrome
        var words: Localizer
        var languages: [String]
        var snapshot: ChannelDirectory.Snapshot
        var assets: String

        struct Document: Encodable {
            var format: Int
            var tag: String
            /// The server's clock when the copy was made (Unix seconds): offline pages tell the time from it.
            var takenAt: Int64
            var zone: String
            /// Whose copy it is: the profile's name, empty for a guest.
            var viewer: String
            /// The version of the app's files.
            var assets: String
            var channels: Int
            var days: [Day]
            /// Each programme's details panel, by id, as `/programmes/ID?part=panel` answers.
            var panels: [String: String]
            var panelsLeftOut: Int
            /// Pages kept as they are: the now page and the page for what is not kept.
            var pages: [String]
            /// The stylesheets, script and icons.
            var files: [String]
            /// The kept channels' logos (``ChannelLogos``), kept beside the pages.
            var logos: [String]
        }

        struct Day: Encodable {
            var day: String
            var start: Int64
            var end: Int64
            /// The day's grid page, with the kept channels only.
            var page: String
            /// The rows as the page's are (``GridRowsHTML``).
            var rows: [GridRowsHTML.Rendered]
        }

        func encoded(renderer: PageRenderer) throws -> [UInt8] {
            let documentDays = days.map { day in
                Day(day: day.description, start: day.window.start.unixSeconds, end: day.window.end.unixSeconds,
                    page: SitePath.guide(query: "day=\(day)&offline=1"),
                    rows: GridRowsHTML.rendered(zip(channels.indices, zip(channels, listings)).map { index, pair in
                        GridRow(index: index, channel: pair.0, programmes: pair.1.programmes.filter { $0.overlaps(day.window) },
                                day: day.window, clock: clock, followed: followed, languages: languages)
                    }, noListings: words("No listings")))
            }
            let programmes = listings.flatMap(\.programmes).sorted { $0.programme.start < $1.programme.start }
            let byTitle = Dictionary(grouping: programmes) { SearchText.fold($0.programme.title) }
            var panels: [String: String] = [:]
            for stored in programmes.prefix(OfflineGuide.mostPanels) {
                var details = ProgrammeDetails(
                    stored, channels: snapshot, clock: clock, now: takenAt,
                    airings: ProgrammeDetails.airings(of: stored, among: byTitle[SearchText.fold(stored.programme.title)] ?? [],
                                                      channels: snapshot, clock: clock, now: takenAt, words: words),
                    words: words, languages: languages)
                details.isFavourite = favourites.contains(stored.programme.channel)
                panels["\(stored.id.rawValue)"] = try renderer.render(
                    "panel", ProgrammePage.Model(chrome: chrome, title: details.title, panel: details, isPage: false))
            }
            let document = Document(
                format: OfflineGuide.format, tag: tag, takenAt: takenAt.unixSeconds, zone: clock.zone.identifier,
                viewer: chrome.signedInName ?? "", assets: assets, channels: channels.count,
                days: documentDays, panels: panels, panelsLeftOut: max(0, programmes.count - OfflineGuide.mostPanels),
                pages: [SitePath.now(), SitePath.offline()],
                files: ["guide.css", "grid-units.css", "installed.js", "grid.js", "grid-navigation.js", "guide.js"].map { SitePath.asset(PathText($0), query: "v=\(assets)") }
                    + ["icon-192.png", "icon-512.png", "favicon-32.png"].map { SitePath.asset(PathText($0), query: "v=\(assets)") },
                logos: channels.compactMap(ChannelLogos.address))
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            return Array(try encoder.encode(document))
        }
    }
}

extension StoredProgramme {
    /// Whether it is on at some point of `window`.
    func overlaps(_ window: TimeWindow) -> Bool {
        programme.start < window.end && end > window.start
    }
}
