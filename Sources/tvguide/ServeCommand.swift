import ArgumentParser
import Catalogs
import Configuration
import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideHTTPServing
import GuideDevices
import GuideHomeAssistant
import GuideIngest
import GuideReminders
import GuideServer
import GuideStore
import GuideStoreBackends
import GuideThreads
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
        Allocator.tuneForServing()
        try await serve(try await given.settings())
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
        // Feeds an admin gave a tuner port, each served there as an HDHomeRun tuner for Plex, on serve's own host.
        let tuners = TunerPorts(host: options.host)
        let configuration = GuideConfiguration(
            settings: settings, localFiles: options.store.localFiles, tvmazeBase: options.tvmazeBase,
            schedulesDirectBase: options.schedulesDirectBase, hdhomerunGuide: options.hdhomerunGuide,
            grabbers: options.grabbers.grabbers(localFiles: options.store.localFiles), mail: options.mail,
            pushContact: options.pushContact, links: GuideServer.links, metrics: registry)
        try await withHTTPTransport { feeds in
            // Images get their own client with short timeouts: a poster that cannot be fetched must not hold a page up.
            try await withHTTPTransport(connectTimeout: .seconds(3), readTimeout: .seconds(10)) { images in
                let guide = try GuideServices.assemble(configuration, store: database, feeds: feeds, images: images, outbound: outbound,
                                                       tuners: tuners)
                let ready = StartGate()
                let discoveryGate = DiscoveryGate(host: options.host, now: now)
                // The doors other than the web's, each a service: the tuner ports; Home Assistant's sensors, events and
                // commands, when a broker is set; discovery's answers (SSDP's and HDHomeRun's), when the admin turned them on.
                let doors: [any Service] = [
                    BackgroundWork { await tuners.run() },
                    BackgroundWork { [broker = options.homeAssistant, profile = options.homeAssistantProfile] in
                        if let broker {
                            await HomeAssistantBridge(broker: broker, guide: guide, clock: clock, site: options.publicURL, profile: profile).run()
                        } else {
                            await BackgroundWork.untilCancelled()
                        }
                    },
                    BackgroundWork { [port = options.discovery.ssdpPort] in
                        if let port { await SSDPResponder(port: port, tuners: tuners, gate: discoveryGate).run() } else { await BackgroundWork.untilCancelled() }
                    },
                    BackgroundWork { [port = options.discovery.hdhomerunPort] in
                        if let port { await HDHomeRunDiscovery(port: port, tuners: tuners, gate: discoveryGate).run() } else { await BackgroundWork.untilCancelled() }
                    },
                ]
                let loops = guide.loops(after: ready) { Output.error($0.worded(Output.words)) }
                // The database first: the group stops in reverse order, so it closes last.
                let application = try GuideServer.buildApplication(
                    guide, host: options.host, port: options.port, services: [database] + loops + doors,
                    startup: {
                        try await firstRun(database: database, scheduler: guide.scheduler, settings: settings, options: options)
                        ready.open()
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
                // Moved by whole weeks to the one that holds now (or comes next), so the first screen is a living guide.
                let weeks = SampleWeeks.toShift(GuideServer.sampleSpan, now: settings.now())
                Output.error(weeks == 0 ? words("The guide is empty: importing the bundled sample listings ({file}) ...", ["file": sample.lastPathComponent])
                                        : words("The guide is empty: importing the bundled sample listings ({file}), moved to this week ...", ["file": sample.lastPathComponent]))
                let summary = try await ListingImporter(store: database).importFile(at: sample.path, as: SourceName("sample"), movedBy: weeks)
                try await database.setGuideSetting(GuideSettingName.sample, String(weeks))
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
}
