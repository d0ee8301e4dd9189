import Catalogs
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideReminders
import GuideStore
import Prometheus
import SchedulesDirect
import TVMaze

/// What the assembly is told by serve's settings: where files are kept, whom to ask, how a reminder signs.
public struct GuideConfiguration: Sendable {
    /// The settings every door shares, with the one clock.
    public var settings: ServerSettings
    /// The database's folder and name stem: images, logos and exports are kept beside it.
    public var localFiles: String
    public var tvmazeBase: String
    public var schedulesDirectBase: String
    public var hdhomerunGuide: String
    /// The XMLTV grabbers that may be run; nil for none.
    public var grabbers: Grabbers?
    /// E-mail reminders' server; nil sends none.
    public var mail: SMTPSettings?
    /// Web Push's contact (VAPID's subject).
    public var pushContact: String
    /// Where the web door serves logos, artwork and programme pages.
    public var links: WebLinks
    /// The registry /metrics reads; nil for none.
    public var metrics: PrometheusCollectorRegistry?

    public init(settings: ServerSettings, localFiles: String, tvmazeBase: String, schedulesDirectBase: String, hdhomerunGuide: String,
                grabbers: Grabbers?, mail: SMTPSettings?, pushContact: String, links: WebLinks, metrics: PrometheusCollectorRegistry?) {
        (self.settings, self.localFiles, self.tvmazeBase, self.schedulesDirectBase) = (settings, localFiles, tvmazeBase, schedulesDirectBase)
        (self.hdhomerunGuide, self.grabbers, self.mail, self.pushContact) = (hdhomerunGuide, grabbers, mail, pushContact)
        (self.links, self.metrics) = (links, metrics)
    }
}

extension GuideServices {
    /// The assembly as `serve` runs it: from the configuration and the transports it is given (feeds and the
    /// addresses an admin sets up; images, with short timeouts; the outbound policy's), the clients, caches and
    /// dispatcher, then each shared service, all once. One rate limiter serves both TVmaze clients (the pages' and the
    /// followed-shows loop's): TVmaze counts 20 requests in 10 s per address, not per client.
    public static func assemble(_ configuration: GuideConfiguration, store: any GuideDatabase, feeds: any HTTPTransport,
                                images: any HTTPTransport, outbound: PolicedTransport, tuners: (any TunerPortControl)?) throws -> GuideServices {
        let settings = configuration.settings, clock = settings.clock
        let limiter = RateLimiter(clock: clock.waits)
        let translations = try Translations()
        let schedulesDirect = SDConnection(base: configuration.schedulesDirectBase, transport: feeds)
        let scheduler = RefreshScheduler(
            refresher: SourceRefresher(store: store, transport: feeds, tvmazeBase: configuration.tvmazeBase, schedulesDirect: schedulesDirect,
                                       grabbers: configuration.grabbers, hdhomerunGuide: configuration.hdhomerunGuide,
                                       now: clock.now, clock: clock.waits),
            now: clock.now, clock: clock.waits)
        return GuideServices(Parts(
            store: store, settings: settings, scheduler: scheduler, feeds: feeds,
            // Pages ask while someone waits: at most 10 s a request, or 503 "busy".
            tvmaze: TVMazeClient(base: configuration.tvmazeBase, transport: feeds, limiter: limiter, cache: store, policy: .interactive,
                                 now: clock.now, clock: clock.waits),
            images: ImageCache(directory: configuration.localFiles + ".images", transport: images, now: clock.now),
            logos: ImageCache(directory: configuration.localFiles + ".logos", listingsThrough: outbound,
                              largest: 1024 * 1024, largestTotal: 64 * 1024 * 1024, now: clock.now),
            outbound: outbound,
            // Reminders go where viewers say: through the outbound policy, each send within its deadline.
            reminders: ReminderDispatcher(store: store,
                                          senders: ReminderSenders(transport: outbound, mail: configuration.mail.map(SMTPClient.init),
                                                                   push: VAPIDKey(store: store, subject: configuration.pushContact, now: clock.now)),
                                          clock: clock.waits, now: clock.now, translations: translations, site: settings.publicURL,
                                          defaultClock: ViewerClock(zone: settings.timeZone, dayStartHour: settings.dayStartHour)),
            links: configuration.links, translations: translations, metrics: configuration.metrics, grabbers: configuration.grabbers,
            schedulesDirect: schedulesDirect, tuners: tuners,
            followedShows: SeriesTracker(client: TVMazeClient(base: configuration.tvmazeBase, transport: feeds, limiter: limiter, cache: store,
                                                              now: clock.now, clock: clock.waits),
                                         store: store, now: clock.now)))
    }
}
