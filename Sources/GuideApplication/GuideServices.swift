import Catalogs
import Foundation
import GuideHTTP
import GuideIngest
import GuideReminders
import GuideStore
import Prometheus
import SchedulesDirect
import TVMaze

/// The guide every door opens onto, assembled once: the composition root (`tvguide serve`, or a test) gives the
/// ``Parts`` (the store, the settings with the one clock, the transports and the clients made from them), and the
/// assembly builds from them each service the doors share: one channel directory, one export cache, one set of
/// lineup feeds, one recording desk, one set of reminder actions, one media-server reloader. The web routes, Home
/// Assistant and the background loops all use these; none makes its own.
@dynamicMemberLookup
public struct GuideServices: Sendable {
    /// What the composition root makes and hands over.
    public struct Parts: Sendable {
        public var store: any GuideDatabase
        public var settings: ServerSettings
        /// Refreshes the configured sources, on their intervals and when an admin asks.
        public var scheduler: RefreshScheduler
        /// Fetches what an admin imports by URL, and reaches the recorder and media servers an admin set up.
        public var feeds: any HTTPTransport
        /// TVmaze for the pages: a client whose policy bounds how long a page waits (``TVMazeClient/Policy/interactive``).
        public var tvmaze: TVMazeClient
        /// TVmaze's images, kept on disk.
        public var images: ImageCache
        /// The channels' logos, kept on disk, fetched through `outbound`.
        public var logos: ImageCache
        /// The outbound policy's transport: every address a viewer, a guest, a listings file or a playlist names.
        public var outbound: PolicedTransport
        /// Sends due reminders (run as a service beside the server) and the pages' test messages.
        public var reminders: ReminderDispatcher
        /// Where the metrics the process records are kept, for `/metrics` (the registry `MetricsSystem` was
        /// bootstrapped with); nil for none.
        public var metrics: PrometheusCollectorRegistry?
        /// The XMLTV grabbers installed on the machine, for the admin's grabber pages; nil where none may be run.
        public var grabbers: Grabbers?
        /// How the admin's Schedules Direct page reaches SD; nil where it cannot.
        public var schedulesDirect: SDConnection?
        /// Where the web door serves the logos and artwork a written feed names.
        public var links: WebLinks
        /// The six languages' catalogs, read once: the pages' words and the reminders'.
        public var translations: Translations
        /// Feeds' own tuner ports, for Plex (the devices door's); nil where nothing runs them (the tests of the router alone).
        public var tuners: (any TunerPortControl)?
        /// Followed shows kept current in the background, with a TVmaze client that may wait; nil where nothing does.
        public var followedShows: SeriesTracker?
        /// How long a request to record waits for the recorder (``RecordingDesk/pageDeadline``; a test of what the
        /// recorder answers waits longer on a loaded machine).
        public var recorderWait: Duration = RecordingDesk.pageDeadline

        public init(store: any GuideDatabase, settings: ServerSettings, scheduler: RefreshScheduler, feeds: any HTTPTransport,
                    tvmaze: TVMazeClient, images: ImageCache, logos: ImageCache, outbound: PolicedTransport, reminders: ReminderDispatcher,
                    links: WebLinks, translations: Translations, metrics: PrometheusCollectorRegistry? = nil, grabbers: Grabbers? = nil,
                    schedulesDirect: SDConnection? = nil, tuners: (any TunerPortControl)? = nil, followedShows: SeriesTracker? = nil) {
            (self.store, self.settings, self.scheduler, self.feeds, self.tvmaze) = (store, settings, scheduler, feeds, tvmaze)
            (self.images, self.logos, self.outbound, self.reminders, self.metrics) = (images, logos, outbound, reminders, metrics)
            (self.links, self.translations, self.grabbers, self.schedulesDirect, self.tuners, self.followedShows) = (links, translations, grabbers, schedulesDirect, tuners, followedShows)
        }
    }

    /// What the assembly was given; its fields read as the services' own (`services.store`).
    public let parts: Parts
    /// TVmaze for matching viewers' history imports: its own share of the pages' pace, 8 of TVmaze's 20 requests in
    /// 10 s, so an import of thousands of shows never holds a page.
    public let historyImports: TVMazeClient
    public static let historyImportsShare = 8
    /// Every channel with its place and logo, read once per version of the listings.
    public let directory: ChannelDirectory
    /// The XMLTV files the feeds serve, written once per version.
    public let exports: ExportCache
    /// The feeds an admin cut for media servers, their playlists and tuners.
    public let lineupFeeds: LineupFeeds
    /// Requests to record, kept, sent and read back.
    public let recordings: RecordingDesk
    /// "Remind me", delivery channels and test sends, with their checks: for the pages, the API and Home Assistant.
    public let reminderActions: ReminderActions
    /// Media servers told to reload when a feed changes.
    public let reloads: MediaServerReloads

    /// The assembly: each shared service built once from `parts`.
    public init(_ parts: Parts) {
        self.parts = parts
        historyImports = parts.tvmaze.share(of: Self.historyImportsShare)
        let store = parts.store, settings = parts.settings
        directory = ChannelDirectory(store: store)
        exports = ExportCache(store: store, directory: settings.exportDirectory)
        lineupFeeds = LineupFeeds(store: store, directory: directory, settings: settings, cache: exports, links: parts.links)
        recordings = RecordingDesk(store: store, transport: parts.feeds, now: settings.now, pageWait: parts.recorderWait)
        reminderActions = ReminderActions(store: store, directory: directory, settings: settings, dispatcher: parts.reminders,
                                          recordings: recordings)
        reloads = MediaServerReloads(store: store, feeds: lineupFeeds, transport: parts.feeds, now: settings.now)
        parts.tuners?.attach(lineupFeeds)
    }

    public subscript<Value>(dynamicMember part: KeyPath<Parts, Value>) -> Value {
        parts[keyPath: part]
    }
}
