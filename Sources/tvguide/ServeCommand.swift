import ArgumentParser
import Catalogs
import Configuration
import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideHomeAssistant
import GuideIngest
import GuideReminders
import GuideServer
import GuideStore
import GuideStoreBackends
import Hummingbird
import Logging
import Metrics
import Prometheus
import SchedulesDirect
import ServiceLifecycle
import TVMaze

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: Output.words("Serve the web guide, its JSON API and an XMLTV feed."),
        discussion: Output.words("It refreshes each configured source (tvguide sources) on its interval in the background. With an empty database it first fetches the sources, or, when there are none, imports the bundled sample listings, so there is always a guide to see. Until a profile exists it prints a one-time setup code: open /setup and enter it to create the admin.")
    )

    @OptionGroup var given: ServeOptions

    /// The composition root: the database, the HTTP clients, TVmaze, the image cache and the refresh scheduler are
    /// made here and nowhere else, and handed to the server; the database runs in the application's service group.
    func run() async throws {
        Self.fewerMallocArenas()
        try await serve(try await given.settings())
    }

    /// glibc gives each thread that allocates an arena of its own (up to 8 a core) and keeps what is freed in each: a
    /// server whose requests hop between NIO's, Swift's, GRDB's and the import's threads grew by about 1.2 MB a minute
    /// for 30 minutes of the soak (200 to 273 MB). With 2 arenas (as MALLOC_ARENA_MAX=2 does) a 10-minute soak of the
    /// same traffic stayed at 135-149 MB. Set before the server's threads start; an environment variable still wins.
    static func fewerMallocArenas() {
        #if os(Linux)
        // mallopt(M_ARENA_MAX, 2); malloc.h is not in Swift's Glibc module, so the function is looked up by name.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let arenaMax: Int32 = -8  // M_ARENA_MAX
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil,
              let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, 2)
        #endif
    }

    private func serve(_ options: ServeSettings) async throws {
        if options.logFormat == .json { LoggingSystem.bootstrap { JSONLogLines(label: $0, now: GuideClock.system().now) } }
        let registry = options.metrics == .off ? nil : PrometheusCollectorRegistry()
        if let registry { MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry)) }
        let password = try StoreOptions.password(ProcessInfo.processInfo.environment)
        // The one clock: what time it is (--pretend-now moves it) and what everything that waits sleeps on (retries,
        // the rate limiter, the scheduler, the background loops).
        let guideClock = GuideClock.system(pretending: options.pretendNow)
        let now = guideClock.now, clock = guideClock.waits
        let database = try CLIFailure.translating { try makeGuideDatabase(options.store.path, password: password, now: now) }
        // One limiter for both TVmaze clients (the pages' and the followed-shows loop's): TVmaze counts 20 requests
        // in 10 s per address, not per client.
        let limiter = RateLimiter(clock: clock)
        // A code is made at every start; it works only while no profile exists, and is shown only then.
        var configured = ServerSettings(clock: guideClock, dayStartHour: options.dayStart, secureCookies: !options.insecureCookies,
                                        setupCode: GuideServer.newSetupCode(), exportDirectory: options.store.localFiles + ".export")
        configured.trustedProxies = options.trustedProxies
        configured.offlineDays = options.offlineDays
        configured.publicURL = options.publicURL
        configured.hostNames = ["0.0.0.0", "::", "127.0.0.1", "::1"].contains(options.host) ? [] : [options.host]
        configured.metrics = options.metrics
        let settings = configured
        // Every address a viewer, a guest, a listings file or a playlist names is fetched through this (allowed-hosts).
        let outbound = PolicedTransport(policy: options.outbound, trusting: options.outboundCA, connectTimeout: .seconds(5), readTimeout: .seconds(10))
        let grabbers = options.grabbers.grabbers(localFiles: options.store.localFiles)
        // Feeds an admin gave a tuner port, each served there as an HDHomeRun tuner for Plex, on serve's own host.
        let tuners = TunerPorts(host: options.host)
        try await withHTTPTransport { feeds in
            // Images get their own client with short timeouts: a poster that cannot be fetched must not hold a page up.
            try await withHTTPTransport(connectTimeout: .seconds(3), readTimeout: .seconds(10)) { imageFetches in
                let scheduler = RefreshScheduler(
                    refresher: SourceRefresher(store: database, transport: feeds, tvmazeBase: options.tvmazeBase,
                                               schedulesDirect: SDConnection(base: options.schedulesDirectBase, transport: feeds),
                                               grabbers: grabbers, hdhomerunGuide: options.hdhomerunGuide, now: now, clock: clock),
                    now: now, clock: clock)
                let guide = GuideServices(GuideServices.Parts(
                    store: database, settings: settings, scheduler: scheduler, feeds: feeds,
                    // Pages ask while someone waits: at most 10 s a request, or 503 "busy".
                    tvmaze: TVMazeClient(base: options.tvmazeBase, transport: feeds, limiter: limiter, cache: database, policy: .interactive,
                                         now: now, clock: clock),
                    images: ImageCache(directory: options.store.localFiles + ".images", transport: imageFetches, now: now),
                    logos: ImageCache(directory: options.store.localFiles + ".logos", listingsThrough: outbound,
                                      largest: 1024 * 1024, largestTotal: 64 * 1024 * 1024, now: now),
                    outbound: outbound,
                    // Reminders go where viewers say: through the outbound policy, each send within its deadline.
                    reminders: ReminderDispatcher(store: database,
                                                  senders: ReminderSenders(transport: outbound, mail: options.mail.map(SMTPClient.init),
                                                                           push: VAPIDKey(store: database, subject: options.pushContact, now: now)),
                                                  clock: clock,
                                                  now: now, translations: try Translations(), site: options.publicURL,
                                                  defaultClock: ViewerClock(zone: settings.timeZone, dayStartHour: settings.dayStartHour)),
                    links: GuideServer.links, metrics: registry, grabbers: grabbers,
                    schedulesDirect: SDConnection(base: options.schedulesDirectBase, transport: feeds),
                    tuners: tuners))
                let followed = SeriesTracker(client: TVMazeClient(base: options.tvmazeBase, transport: feeds, limiter: limiter, cache: database,
                                                                  now: now, clock: clock),
                                             store: database, now: now)
                // The scheduler starts once the first run's work is done, so the two never fetch a source at once; the
                // reminders once the schema is up to date.
                let (started, starting) = AsyncStream<Void>.makeStream()
                let (prepared, preparing) = AsyncStream<Void>.makeStream()
                let (schemaReady, readying) = AsyncStream<Void>.makeStream()  // One stream a waiter.
                let application = try GuideServer.buildApplication(
                    guide, host: options.host, port: options.port,
                    services: [database,
                               // A graceful shutdown lets the import running now finish.
                               Background(onGracefulShutdown: { scheduler.stopAfterCurrentRefresh() }) {
                                   for await _ in started {}
                                   await scheduler.run()
                               },
                               Background { await Self.keepFollowedShowsCurrent(followed, database: database, clock: clock) },
                               Background { await tuners.run() },
                               // Requests to record that waited for the recorder are sent, and its state read back.
                               Background { [desk = guide.recordings] in
                                   await Self.keepRecordingsCurrent(desk, clock: clock)
                               },
                               // Home Assistant's sensors, events and commands, when a broker is set.
                               Background { [broker = options.homeAssistant] in
                                   if let broker {
                                       await HomeAssistantBridge(broker: broker, guide: guide, clock: clock, site: options.publicURL).run()
                                   } else {
                                       await Self.untilCancelled()
                                   }
                               },
                               // Answers SSDP searches while serve runs, when the admin turned it on.
                               Background { [ssdp = options.ssdpPort] in
                                   if let ssdp { await SSDPResponder(port: ssdp, tuners: tuners, now: now).run() } else { await Self.untilCancelled() }
                               },
                               Background { [reloads = guide.reloads] in
                                   for await _ in schemaReady {}
                                   await reloads.run(clock: clock) { Output.error($0) }
                               },
                               Background { [reminders = guide.reminders] in
                                   for await _ in prepared {}
                                   async let episodes: Void = Self.keepEpisodeRemindersCurrent(
                                       EpisodeReminders(store: database, defaultZone: settings.timeZone), now: now, clock: clock)
                                   async let searches: Void = Self.keepSavedSearchesCurrent(
                                       SavedSearchReminders(store: database), recordings: guide.recordings,
                                       database: database, now: now, clock: clock)
                                   await reminders.run()
                                   await episodes
                                   await searches
                               }],
                    startup: {
                        try await firstRun(database: database, scheduler: scheduler, settings: settings, options: options)
                        starting.finish()
                        preparing.finish()
                        readying.finish()
                    })
                try await application.runService()
            }
        }
    }

    /// Before the server listens: the schema brought up to date; an empty guide filled (its due sources fetched, or
    /// the bundled sample imported when there are none); the setup code shown while no profile exists.
    private func firstRun(database: any GuideDatabase, scheduler: RefreshScheduler, settings: ServerSettings,
                          options: ServeSettings) async throws {
        let words = Output.words
        try await CLIFailure.translating {
            try await database.prepare()
            let sources = try await database.sources()
            let due = sources.filter { $0.nextDue <= settings.now() }.map(\.definition.name)
            if try await database.counts().programmes == 0, !due.isEmpty {
                // The first run with sources fetches them before showing an empty guide; a source whose last refresh
                // failed, or never finished (the process stopped during it), waits for its retry like any other.
                Output.error(words.plural("The guide is empty: fetching its {count} due source first ...",
                                          "The guide is empty: fetching its {count} due sources first ...", count: due.count))
                let bar = RefreshBar()
                let reports = try await scheduler.refresher.refresh(due) { bar.show($0) }
                bar.done()
                for report in reports { Output.error(RefreshCommand.line(report)) }
            }
            if try await database.counts().programmes == 0, sources.isEmpty, let sample = GuideServer.sampleListings {
                Output.error(words("The guide is empty: importing the bundled sample listings ({file}) ...", ["file": sample.lastPathComponent]))
                let summary = try await ListingImporter(store: database).importFile(at: sample.path, as: SourceName("sample"))
                Output.error(words("Imported {programmes} ({channels}). Add your own: tvguide import FILE-OR-URL", [
                    "programmes": words.plural("{count} programme", "{count} programmes", count: summary.programmes),
                    "channels": words.plural("{count} channel", "{count} channels", count: summary.channels)]))
            }
            let address = "http://\(options.host == "0.0.0.0" ? "127.0.0.1" : options.host):\(options.port)"
            if try await database.profiles().isEmpty, let code = settings.setupCode {
                if let file = options.setupCodeFile {
                    try SetupCodeFile.write(code, to: file)
                    Output.error(words("No profiles yet. To create the admin, open {address}/setup and enter the setup code in {file} (readable by this service's user and root: sudo cat {file})",
                                       ["address": address, "file": file]))
                } else {
                    Output.error(words("No profiles yet. To create the admin, open {address}/setup and enter the setup code {code}",
                                       ["address": address, "code": code]))
                }
            } else if let file = options.setupCodeFile {
                SetupCodeFile.remove(file)
            }
            Output.error(words("tvguide: serving {address}/ (API at /api, XMLTV at /xmltv.xml), database {database}",
                               ["address": address, "database": options.store.described]))
            if !sources.isEmpty {
                Output.error(words.plural("Refreshing {count} source on its interval (tvguide sources list).",
                                          "Refreshing {count} sources on their intervals (tvguide sources list).", count: sources.count))
            }
        }
    }

    /// Every 6 hours (first a minute after starting), brings followed shows up to date through `/updates/shows`, then
    /// syncs the profiles' TVmaze accounts (each one's outcome is kept with it, for its history page).
    static func keepFollowedShowsCurrent(_ tracker: SeriesTracker, database: any GuideDatabase, clock: any Clock<Duration>) async {
        var wait: Duration = .seconds(60)
        let accounts = TVMazeSync(history: WatchHistory(store: database, tracker: tracker, now: tracker.now), client: tracker.client, accounts: database)
        while !Task.isCancelled {
            try? await clock.sleep(for: wait)
            wait = .seconds(6 * 3600)
            try? await accounts.syncAll()
            guard !Task.isCancelled, (try? await database.trackedShows().isEmpty) == false else { continue }
            do {
                let report = try await tracker.refresh()
                if !report.refetched.isEmpty || !report.failed.isEmpty {
                    Output.error(Output.words("Followed shows: {updated} updated from TVmaze, {failed} could not be fetched.",
                                              ["updated": String(report.refetched.count), "failed": String(report.failed.count)]))
                }
            } catch {
                Output.error(Output.words("Followed shows could not be brought up to date: {error}", ["error": Sentence(error).worded(Output.words)]))
            }
        }
    }
}

extension ServeCommand {
    /// After every import (a new generation of the listings, looked for each minute) and every hour, every saved
    /// search's matches reminded.
    static func keepSavedSearchesCurrent(_ searches: SavedSearchReminders, recordings: RecordingDesk, database: any GuideDatabase,
                                         now: @escaping @Sendable () -> Date, clock: any Clock<Duration>) async {
        // Hourly too: programmes come within the two weeks' reach as time passes. Searches that record ask the recorder.
        await afterEveryImport(of: database, atLeastEvery: 3600, now: now, clock: clock) {
            try await searches.run(at: now())
            try await recordings.recordSavedSearches(at: now())
        } failed: { error in
            Output.error(Output.words("Saved searches could not be checked: {error}", ["error": Sentence(error).worded(Output.words)]))
        }
    }

    /// Every 5 minutes, every profile's episode reminders made to match its followed shows (TVmaze's times change,
    /// episodes get dated, the followed-shows loop brings new copies).
    static func keepEpisodeRemindersCurrent(_ episodes: EpisodeReminders, now: @escaping @Sendable () -> Date,
                                            clock: any Clock<Duration>) async {
        while !Task.isCancelled {
            do {
                try await episodes.syncAll(at: now())
            } catch {
                Output.error(Output.words("Episode reminders could not be brought up to date: {error}", ["error": Sentence(error).worded(Output.words)]))
            }
            try? await clock.sleep(for: .seconds(300))
        }
    }
}

/// Work that runs for as long as the server does, as a service of its group: cancelled when the group shuts down, or,
/// given `onGracefulShutdown`, told so and waited for (the services before it in the group, the store among them, stop
/// after it).
extension ServeCommand {
    /// Every 2 minutes: what waits for the recorder sent, what it did read back (nothing without a recorder).
    static func keepRecordingsCurrent(_ desk: RecordingDesk, clock: any Clock<Duration>) async {
        while !Task.isCancelled {
            do {
                try await desk.sync()
            } catch is CancellationError {
                return
            } catch {
                Output.error(Output.words("Recordings: {error}", ["error": Sentence(error).worded(Output.words)]))
            }
            try? await clock.sleep(for: .seconds(120))
        }
    }

    /// Waits until the task is cancelled (serve's shutdown): a service with nothing to do must not end before it.
    static func untilCancelled() async {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
}

struct Background: Service {
    let work: @Sendable () async -> Void
    let onGracefulShutdown: (@Sendable () -> Void)?

    init(onGracefulShutdown: (@Sendable () -> Void)? = nil, _ work: @escaping @Sendable () async -> Void) {
        self.work = work
        self.onGracefulShutdown = onGracefulShutdown
    }

    func run() async throws {
        if let onGracefulShutdown {
            await withGracefulShutdownHandler { await work() } onGracefulShutdown: { onGracefulShutdown() }
        } else {
            await cancelWhenGracefulShutdown { await work() }
        }
    }
}
