import Foundation
import GuideIngest
import GuideStore
import Hummingbird
import HummingbirdCore
import HummingbirdBcrypt
import Logging

/// The web guide and its API, served by Hummingbird.
public enum GuideServer {
    /// Every route, behind the security headers, the error pages and the session and form-token checks. `scheduler`
    /// refreshes sources when an admin asks (by default one fetching over the network, on `settings.now`'s clock).
    public static func router(store: any GuideDatabase, settings: ServerSettings = ServerSettings(),
                              scheduler: RefreshScheduler? = nil) throws -> Router<GuideRequestContext> {
        let scheduler = scheduler ?? RefreshScheduler(
            refresher: SourceRefresher(store: store, transport: AsyncHTTPTransport.shared, now: settings.now), now: settings.now)
        let renderer = try PageRenderer()
        let assets = try StaticAssets()
        let accounts = Accounts(store: store, now: settings.now, cost: settings.secretCost)
        let directory = ChannelDirectory(store: store)
        let series = SeriesServices(store: store, settings: settings)
        let site = Site(store: store, accounts: accounts, renderer: renderer, assets: assets, directory: directory, settings: settings,
                        scheduler: scheduler, series: series)
        let sessions = SessionMiddleware(accounts: accounts, secureCookies: settings.secureCookies)

        let router = Router(context: GuideRequestContext.self)
        router.add(middleware: SecurityHeaders())
        router.add(middleware: ErrorPages(renderer: renderer, assets: assets))
        router.add(middleware: sessions)
        APIRoutes(store: store, directory: directory, now: settings.now).register(on: router)
        AccountRoutes(site: site).register(on: router)
        GridPage(site: site).register(on: router)
        ProgrammePage(site: site).register(on: router)
        NowPage(site: site).register(on: router)
        SearchPage(site: site).register(on: router)
        LineupPage(site: site).register(on: router)
        SignInPages(site: site, sessions: sessions).register(on: router)
        AdminPages(site: site).register(on: router)
        SourcePages(site: site).register(on: router)
        SourceRoutes(site: site).register(on: router)
        XMLTVFeed(site: site).register(on: router)
        series.register(on: router)
        ShowPages(site: site).register(on: router)
        EpisodePages(site: site).register(on: router)
        UpcomingPage(site: site).register(on: router)
        CalendarPage(site: site).register(on: router)
        CalendarFeed(site: site).register(on: router)
        router.get("static/:file") { request, context in
            try assets.response(for: context.parameters.get("file") ?? "", request: request)
        }
        return router
    }

    /// A secret's bcrypt hash at the server's cost (12), for `tvguide profiles reset-secret`.
    public static func hashSecret(_ secret: String) -> String {
        Bcrypt.hash(secret, cost: ServerSettings().secretCost)
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

    /// The server on `host`:`port`, every connection within `limits`.
    public static func application(store: any GuideDatabase, settings: ServerSettings, scheduler: RefreshScheduler? = nil,
                                   host: String, port: Int, limits: ConnectionLimits = ConnectionLimits(),
                                   logger: Logger = Logger(label: "tvguide")) throws -> some ApplicationProtocol {
        Application(router: try router(store: store, settings: settings, scheduler: scheduler), server: server(limits),
                    configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "tvguide"),
                    logger: logger)
    }

    /// HTTP/1.1 with the connection limits: header sizes, idle and slow-client timeouts, counts per address and in all.
    public static func server(_ limits: ConnectionLimits) -> HTTPServerBuilder {
        let census = ConnectionGuard.Census(limits: limits)
        return .http1(configuration: HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionGuard(census: census)], idleTimeout: limits.idleTimeout,
            httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.largestHeaderField, maxHeaderListSize: limits.largestHeaders,
                                            maxHeaderFieldCount: limits.mostHeaderFields)))
    }
}
