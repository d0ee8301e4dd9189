import Catalogs
import Foundation
import GuideApplication
import GuideHTTP
import GuideHTTPServing
import GuideIngest
import GuideReminders
import GuideStore
import Hummingbird
import HummingbirdCore
import HummingbirdBcrypt
import Logging
import Prometheus
import SchedulesDirect
import ServiceLifecycle
import TVMaze

/// The web guide and its API, served by Hummingbird.
public enum GuideServer {
    /// Every route, behind the security headers, the error pages and the session and form-token checks.
    public static func router(_ services: GuideServices) throws -> Router<GuideRequestContext> {
        try routerAndTable(services).router
    }

    /// The router and the table of its routes (every path and the methods it takes).
    static func routerAndTable(_ services: GuideServices) throws -> (router: Router<GuideRequestContext>, table: RouteTable) {
        let store = services.store, settings = services.settings
        let translations = services.translations
        let renderer = try PageRenderer(translations: translations)
        let assets = try StaticAssets()
        let accounts = Accounts(store: store, now: settings.now, cost: settings.secretCost)
        let directory = services.directory
        let addresses = ClientAddress(trustedProxies: settings.trustedProxies)
        let series = SeriesServices(store: store, settings: settings, client: services.tvmaze, images: services.images, addresses: addresses)
        let episodes = FollowedEpisodes(store: store, settings: settings)
        let watched = WatchHistory(store: store, tracker: series.tracker, now: settings.now)
        let pages = Pages(renderer: renderer, assets: assets, episodes: episodes, translations: translations)
        let lineups = Lineups(directory: directory, store: store)
        let sessions = SessionMiddleware(accounts: accounts, formTokens: FormTokens(store: store, now: settings.now),
                                         secureCookies: settings.secureCookies, publicURL: settings.publicURL)

        // HEAD wherever GET is (RFC 9110): monitors and feed checkers ask HEAD, and a 404 reads to them as "gone".
        let router = Router(context: GuideRequestContext.self, options: .autoGenerateHeadEndpoints)
        // Every route is in the group of who may call it (RouteGroups); a middleware applies to the routes after it.
        let routes = RouteGroups(router, accounts: accounts)
        router.add(middleware: RequestLog())
        if let registry = services.metrics {
            router.add(middleware: MetricsMiddleware())
            // /metrics checks its own credential (--metrics), before any session is read.
            ServerMetrics(registry: registry, store: store, accounts: accounts, access: settings.metrics, now: settings.now)
                .register(on: routes)
        }
        router.add(middleware: SecurityHeaders())
        router.add(middleware: ErrorPages(renderer: renderer, assets: assets, translations: translations, sessions: sessions))
        Probes(store: store).register(on: routes)
        router.add(middleware: RouteIntake(table: routes.table, bodies: BodyIntake(bound: settings.bodiesInFlight)))
        router.add(middleware: sessions)
        // Each controller is given what it uses: the store protocols it reads and writes, and the shared parts.
        APIRoutes(store: store, directory: directory, now: settings.now).register(on: routes)
        AccountRoutes(store: store, directory: directory, feeds: services.feeds, clock: settings.clock).register(on: routes)
        GridPage(store: store, directory: directory, lineups: lineups, pages: pages, settings: settings).register(on: routes)
        ProgrammePage(store: store, directory: directory, pages: pages, settings: settings, watched: watched).register(on: routes)
        NowPage(store: store, directory: directory, lineups: lineups, pages: pages, settings: settings).register(on: routes)
        OfflineGuide(store: store, directory: directory, lineups: lineups, pages: pages, settings: settings, addresses: addresses)
            .register(on: routes)
        SearchPage(store: store, directory: directory, pages: pages, settings: settings).register(on: routes)
        LineupPage(store: store, directory: directory, pages: pages).register(on: routes)
        SignInPages(accounts: accounts, pages: pages, settings: settings, addresses: addresses, sessions: sessions).register(on: routes)
        AdminPages(store: store, accounts: accounts, pages: pages, settings: settings, feeds: services.feeds).register(on: routes)
        let calendar = CalendarFeed(store: store, settings: settings, episodes: episodes, translations: translations)
        calendar.register(on: routes)
        SettingsPage(store: store, pages: pages, settings: settings, calendar: calendar).register(on: routes)
        ChannelAdminPage(store: store, directory: directory, pages: pages).register(on: routes)
        SourcePages(store: store, pages: pages, settings: settings, addresses: addresses, scheduler: services.scheduler,
                    refreshWatchers: RefreshEvents.slots(), outbound: services.outbound)
            .register(on: routes)
        GrabberPages(store: store, pages: pages, grabbers: services.grabbers).register(on: routes)
        BoxPresetPages(store: store, pages: pages, scheduler: services.scheduler, feeds: services.feeds).register(on: routes)
        SchedulesDirectPages(store: store, pages: pages, settings: settings, connection: services.schedulesDirect,
                             scheduler: services.scheduler).register(on: routes)
        SourceRoutes(store: store, settings: settings, scheduler: services.scheduler).register(on: routes)
        XMLTVFeed(store: store, directory: directory, settings: settings, cache: services.exports).register(on: routes)
        LineupFeedRoutes(feeds: services.lineupFeeds).register(on: routes)
        FeedAdminPage(store: store, directory: directory, pages: pages, settings: settings, feeds: services.lineupFeeds, tuners: services.tuners,
                      reloads: services.reloads)
            .register(on: routes)
        series.register(on: routes)
        ChannelLogos(cache: services.logos, directory: directory, clientAddress: addresses, now: settings.now).register(on: routes)
        ProgrammeArtworkImages(cache: services.images, store: store, connection: services.schedulesDirect, now: settings.now).register(on: routes)
        ShowPages(store: store, directory: directory, pages: pages, settings: settings, episodes: episodes, series: series, watched: watched).register(on: routes)
        EpisodePages(pages: pages, settings: settings, series: series, watched: watched).register(on: routes)
        let sync = TVMazeSync(history: watched, client: series.client, accounts: store)
        let tvmazeAccounts = TVMazeAccountPages(sync: sync, runner: TVMazeSyncRunner(sync: sync), series: series)
        tvmazeAccounts.register(on: routes)
        TVMazeAccountRoutes(pages: tvmazeAccounts).register(on: routes)
        WatchedPages(watched: watched, series: series, pages: pages, settings: settings, accounts: tvmazeAccounts).register(on: routes)
        WatchedRoutes(watched: watched, series: series).register(on: routes)
        HistoryImportPages(importer: HistoryImport(client: services.historyImports, history: watched), series: series, pages: pages,
                           jobs: HistoryImportJobs(now: settings.now)).register(on: routes)
        UpcomingPage(store: store, directory: directory, pages: pages, settings: settings, episodes: episodes).register(on: routes)
        CalendarPage(pages: pages, settings: settings, episodes: episodes).register(on: routes)
        let desk = services.recordings, reminders = services.reminderActions
        RemindersPage(store: store, pages: pages, settings: settings, actions: reminders).register(on: routes)
        RecordingsPage(store: store, directory: directory, pages: pages, settings: settings, desk: desk).register(on: routes)
        RecorderAdminPage(store: store, directory: directory, pages: pages, desk: desk, now: settings.now).register(on: routes)
        ReminderRoutes(actions: reminders).register(on: routes)
        routes.open.get(SitePath.asset) { request, _, file in
            try assets.response(for: file.rawValue, request: request)
        }
        return (router, routes.table)
    }

    /// Where this door serves a channel's logo, a programme's artwork and its page, for the other doors and the feeds.
    public static let links = WebLinks(logo: { ChannelLogos.address(of: $0) }, artwork: { SitePath.artwork(query: "p=" + $0) },
                                       programme: { SitePath.programme($0) })

    /// A secret's bcrypt hash at the server's cost (12), for `tvguide profiles reset-secret`.
    public static func hashSecret(_ secret: String) -> String {
        Bcrypt.hash(secret, cost: ServerSettings.defaultSecretCost)
    }

    /// Whether `text` is an IPv4 or IPv6 address, as `--trusted-proxy` takes.
    public static func isIPAddress(_ text: String) -> Bool {
        ClientAddress.canonical(text) != nil
    }

    /// A one-time code for creating the first admin (`xxxx-xxxx-xxxx`, 48 random bits), for `serve` to print.
    public static func newSetupCode() -> String {
        let hex = Array(Accounts.randomToken().prefix(12))
        return [hex[0..<4], hex[4..<8], hex[8..<12]].map { String($0) }.joined(separator: "-")
    }

    /// Real listings (see Resources/PROVENANCE.md) for a first run, so the guide is never empty.
    public static var sampleListings: URL? {
        Bundle.module.url(forResource: "sample-listings.xml", withExtension: "gz")
    }

    /// The sample's first start and last stop (2026-02-14 07:30 to 2026-02-18 02:30 UTC; SampleListingsTests reads them
    /// from the file): what ``SampleWeeks`` moves to the current week.
    public static let sampleSpan = Date(timeIntervalSince1970: 1_771_054_200)..<Date(timeIntervalSince1970: 1_771_381_800)

    /// The server on `host`:`port`, every connection within `limits`, with `services` running beside it (they start
    /// with it and stop after it, in reverse order: put the database first) and `startup` run once they have
    /// started, before the server listens.
    public static func buildApplication(_ guide: GuideServices, host: String, port: Int, limits: ConnectionLimits = ConnectionLimits(),
                                        services: [any Service] = [], startup: (@Sendable () async throws -> Void)? = nil,
                                        logger: Logger = Logger(label: "tvguide")) throws -> some ApplicationProtocol {
        var application = Application(router: try router(guide), server: HTTPDoor.server(limits),
                                      configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "tvguide"),
                                      services: services, logger: logger)
        if let startup { application.beforeServerStarts(perform: startup) }
        return application
    }
}
