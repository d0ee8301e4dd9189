// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "tvguide",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tvguide", targets: ["tvguide"]),
        .library(name: "GuideCore", targets: ["GuideCore"]),
        .library(name: "XMLTV", targets: ["XMLTV"]),
        .library(name: "GuideStore", targets: ["GuideStore"]),
        .library(name: "GuideIngest", targets: ["GuideIngest"]),
        .library(name: "GuideServer", targets: ["GuideServer"]),
        .library(name: "TVMaze", targets: ["TVMaze"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        // FilePath, which swift-configuration's file provider takes.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Starting other programs (the XMLTV grabbers; the tests' peers) and waiting for them without holding a thread.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        // Virtual time for the tests of what waits: retries, the rate limiter, the refresh scheduler.
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    ],
    targets: [
        // Values and pure rules. Foundation only.
        .target(name: "GuideCore"),
        // Which channel a name means among a guide's channels: pure code, no I/O (issue 44).
        .target(name: "ChannelMatching"),
        // Synchronous work that takes long (a guide's parse, SQLite's writer, bcrypt, a disk write, a DNS lookup) on
        // threads of its own, never on Swift's cooperative ones: the one place that may block a thread.
        .target(name: "GuideThreads", dependencies: [.target(name: "CMalloc", condition: .when(platforms: [.linux]))]),
        // glibc's allocator controls (mallopt, malloc_trim), for ``Allocator``.
        .systemLibrary(name: "CMalloc"),
        // The web's text formats as values: form and query fields, HTTP dates, HTML as text, iCalendar text. Foundation
        // and GuideCore only, so the fuzzer links them without a network stack.
        .target(name: "GuideWebFormats", dependencies: ["GuideCore"]),
        // The C library's memmem, for the layout scan (``ListingLayoutScanner``).
        .systemLibrary(name: "CStringSearch"),
        // System zlib, for streaming gzip inflation (zlib1g-dev).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // XMLTV and Radio Times bytes <-> GuideCore values.
        .target(name: "XMLTV", dependencies: ["GuideCore"]),
        // The translations: one gettext PO catalog per language, shipped with the program.
        .target(name: "Catalogs", dependencies: ["GuideCore"], resources: [.copy("locales")]),
        // The stores' protocols, values and the rules both backends share (merge, repairs, health, offers, tallies,
        // schedule assembly): what the rest of tvguide sees of a database.
        .target(name: "GuideStore", dependencies: [
            "GuideCore", "GuideThreads",
            // Bodies are found by a hash both stores compute alike (MD5: PostgreSQL has it built in).
            .product(name: "Crypto", package: "swift-crypto"),
            // A database is a service: PostgreSQL's client runs in the application's service group.
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // Each store's connection pool use, for /metrics.
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // The embedded store: SQLite through GRDB.
        .target(name: "GuideStoreSQLite", dependencies: [
            "GuideCore", "GuideStore", "GuideThreads",
            .product(name: "GRDB", package: "GRDB.swift"),
            // The SQLite C API GRDB wraps, for binding the import's hot INSERT directly.
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
            // SHA-256, for the migration that stores calendar feed secrets hashed.
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The shared store: PostgreSQL through PostgresNIO's PostgresClient.
        .target(name: "GuideStorePostgres", dependencies: [
            "GuideCore", "GuideStore", "GuideThreads", "CStringSearch",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
            // TLS to PostgreSQL (sslmode=require|verify-full).
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // Opens a database by its location: the one place that names the backends.
        .target(name: "GuideStoreBackends", dependencies: ["GuideCore", "GuideStore", "GuideStoreSQLite", "GuideStorePostgres", "GuideThreads"]),
        // HTTP for everything tvguide fetches (feeds, TVmaze, images): a GET whose body arrives as it is read.
        .target(name: "GuideHTTP", dependencies: [
            "GuideCore", "GuideThreads",
            // Answers sent gzip'd (Content-Encoding), and feeds that are.
            "CZlib",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            // Certificates an admin trusts for outbound requests besides the system's (outbound-ca).
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            // Digest authentication (MD5, SHA-256) for sources that ask for it (Tvheadend).
            .product(name: "Crypto", package: "swift-crypto"),
            // A credential left behind at a redirect to another origin, logged for the admin.
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Reminders: due ones claimed and sent, on time and once, to each profile's delivery channels.
        .target(name: "GuideReminders", dependencies: [
            "GuideCore", "GuideStore", "GuideHTTP", "Catalogs",
            // Why a delivery failed, in full, for the admin (a viewer is told less).
            .product(name: "Logging", package: "swift-log"),
            // HMAC-SHA256 for signed webhooks.
            .product(name: "Crypto", package: "swift-crypto"),
            // E-mail: SMTP over SwiftNIO, STARTTLS or TLS.
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            // Deliveries by channel kind and outcome, for /metrics.
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // Reading sources (files, URLs, gzip, TVmaze schedules) into the store.
        .target(name: "GuideIngest", dependencies: [
            "GuideCore", "GuideThreads", "GuideWebFormats", "XMLTV", "GuideStore", "GuideHTTP", "TVMaze", "SchedulesDirect",
            "CZlib", "CStringSearch", "ChannelMatching",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // The TVmaze API: shows, episodes, people, schedules; rate-limited, retried, cached in the store.
        .target(name: "TVMaze", dependencies: [
            "GuideCore", "GuideWebFormats", "XMLTV", "GuideStore", "GuideHTTP", "TrackerExports",
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // Schedules Direct's JSON API: a client that keeps SD's rules (one token, codes before statuses, stops and locks).
        // Tracker exports (TV Time, Trakt, SeriesGuide, IMDb, a plain CSV) read into watched shows and episodes.
        .target(name: "TrackerExports", dependencies: ["GuideCore", "CZlib"]),
        .target(name: "SchedulesDirect", dependencies: [
            "GuideCore", "GuideStore", "GuideHTTP", "XMLTV",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // Recorders tvguide asks to record (Tvheadend; Jellyfin or Emby and NextPVR next), each through its documented API.
        .target(name: "Recorders", dependencies: ["GuideCore", "GuideHTTP", .product(name: "Crypto", package: "swift-crypto")]),
        // The application: the services every door uses (channel directory, lineup feeds and their export cache, the
        // recording desk, reminder actions, media-server reloads), built once by one assembly (GuideServices) from the
        // settings and one clock. No HTTP server here: the doors serve it.
        .target(name: "GuideApplication", dependencies: [
            "GuideCore", "XMLTV", "GuideStore", "GuideHTTP", "GuideIngest", "TVMaze", "GuideReminders", "SchedulesDirect", "Recorders", "ChannelMatching",
            .product(name: "Logging", package: "swift-log"),
            // SHA-256: a feed's fingerprint and version, and how tokens are kept.
            .product(name: "Crypto", package: "swift-crypto"),
            // The registry /metrics reads, handed to the doors.
            .product(name: "Prometheus", package: "swift-prometheus"),
            // serve's background loops are services of its group.
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // The reminders' words in six languages (ReminderDispatcher).
            "Catalogs",
        ]),
        // What every HTTP door shares: the connection limits and the guard that keeps them, the server built with them,
        // the address a client reached us at, compressed bodies.
        .target(name: "GuideHTTPServing", dependencies: [
            "GuideApplication", "GuideCore", "GuideIngest",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            // The HTTP parts a connection's own handler (ConnectionGuard) sees between the decoder and Hummingbird.
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        ]),
        // The web guide and the JSON API, on Hummingbird: a door onto the application.
        .target(name: "GuideServer", dependencies: [
            "GuideApplication", "GuideHTTPServing", "GuideCore", "GuideThreads", "GuideWebFormats", "Catalogs", "XMLTV", "GuideStore", "GuideHTTP", "GuideIngest", "TVMaze", "GuideReminders", "SchedulesDirect", "TrackerExports",
            "Recorders",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Mustache", package: "swift-mustache"),
            // Graceful shutdown ends long-lived responses (the refresh progress events).
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // bcrypt for passwords and PINs; SHA-256 for session and API tokens.
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "Logging", package: "swift-log"),
            // Prometheus metrics at /metrics: swift-metrics' API, swift-prometheus' registry and text format.
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "Crypto", package: "swift-crypto"),
        ], exclude: ["Resources/PROVENANCE.md"], resources: [
            .copy("Resources/sample-listings.xml.gz"), .copy("Resources/openapi.json"),
            .copy("Resources/templates"), .copy("Resources/static"),
        ]),
        // The devices door: each feed's tuner port answering as an HDHomeRun (for Plex), found by HDHomeRun's discovery and SSDP.
        .target(name: "GuideDevices", dependencies: [
            "GuideApplication", "GuideHTTPServing", "GuideCore", "GuideStore", "GuideHTTP", "GuideThreads",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Home Assistant over MQTT discovery: a door onto the application (the MQTT client is GuideReminders' MQTTSession).
        .target(name: "GuideHomeAssistant", dependencies: [
            "GuideApplication", "GuideCore", "GuideStore", "GuideHTTP", "GuideReminders",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "tvguide", dependencies: [
            "GuideApplication", "GuideHomeAssistant", "GuideDevices", "GuideHTTPServing", "GuideCore", "GuideWebFormats", "Catalogs", "XMLTV", "GuideStore", "GuideStoreBackends", "GuideHTTP", "GuideIngest", "GuideServer", "TVMaze",
            "GuideReminders", "SchedulesDirect", "TrackerExports",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // serve's settings layered: flags over environment over the configuration file.
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // scripts/fuzz's targets: the XMLTV and Radio Times readers and the query-string parsers, under libFuzzer.
        .executableTarget(name: "GuideFuzz", dependencies: ["GuideCore", "GuideWebFormats", "XMLTV", "CLibFuzzer"]),
        // libFuzzer's driver, declared for GuideFuzz (linked by -sanitize=fuzzer).
        .target(name: "CLibFuzzer"),
        // scripts/bench's driver: parse and query timings in a release build.
        .executableTarget(name: "GuideBench", dependencies: [
            "GuideCore", "XMLTV", "ChannelMatching", "GuideStore", "GuideStoreBackends", "GuideIngest", "GuideHTTP", "GuideReminders",
            // A loopback webhook receiver for the reminders' delivery throughput.
            "TestReceivers",
            // Schedules Direct's stand-in, for an SD refresh of a whole lineup.
            "SchedulesDirect", "SchedulesDirectReplay",
            // A tracker's history imported, and Up next for a profile's followed shows.
            "TVMaze", "TrackerExports",
            .product(name: "NIOCore", package: "swift-nio"),
            // What recording the store pool's metrics costs.
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        .testTarget(name: "GuideCoreTests", dependencies: ["GuideCore", "GuideWebFormats"]),
        .testTarget(name: "ChannelMatchingTests", dependencies: ["ChannelMatching"]),
        .testTarget(name: "XMLTVTests", dependencies: ["XMLTV", "GuideCore", "TestReceivers"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GuideStoreTests", dependencies: [
            "GuideStore", "GuideStoreSQLite", "GuideStorePostgres", "GuideCore", "GuideThreads", "XMLTV", "StoreTestSupport", "TestReceivers", .product(name: "GRDB", package: "GRDB.swift"),
        ], exclude: ["Fixtures"]),
        .testTarget(name: "tvguideTests", dependencies: [
            "tvguide", "GuideCore", "GuideStore", "TVMazeReplay", "SchedulesDirectReplay", "StoreTestSupport", "TestReceivers",
        ]),
        .testTarget(name: "GuideServerTests", dependencies: [
            "GuideApplication", "GuideHomeAssistant", "GuideDevices", "GuideHTTPServing", "GuideServer", "GuideReminders", "TestReceivers", "GuideStore", "GuideIngest", "GuideCore", "GuideHTTP", "TVMaze", "TVMazeReplay",
            "SchedulesDirect", "SchedulesDirectReplay", "BoxesReplay", "XMLTV", "Recorders", "Catalogs",
            "StoreTestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            // Home Assistant's states change as the guide moves on, on a clock the test moves.
            .product(name: "Clocks", package: "swift-clocks"),
        ]),
        // Test support: a loopback server replaying TVmaze's recorded answers, for the Swift and browser tests.
        .target(name: "TVMazeReplay", dependencies: [
            // TVmaze's own clock, for a mark sent without a time: the machine's (GuideClock).
            "GuideCore",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ], exclude: ["Fixtures/PROVENANCE.md"], resources: [.copy("Fixtures/tvmaze"), .copy("Fixtures/composed")]),
        .executableTarget(name: "tvmaze-replay", dependencies: ["TVMazeReplay"]),
        // Test support: Schedules Direct's stand-in as a program, for the browser tests.
        .executableTarget(name: "sd-replay", dependencies: ["SchedulesDirectReplay", "GuideCore"]),
        // Test support: a Tvheadend recorder on loopback for the browser tests (Tests/Browser/test_recording.py).
        .executableTarget(name: "recorder-replay", dependencies: ["BoxesReplay"]),
        // Test support: each test's database, SQLite or (with TVGUIDE_TEST_POSTGRES) a schema of its own in PostgreSQL,
        // and waiting for a loop to sleep on a test clock.
        .target(name: "StoreTestSupport", dependencies: [
            "GuideStore", "GuideStoreBackends", "GuideCore", "GuideHTTP", "GuideThreads", .product(name: "Clocks", package: "swift-clocks"),
        ]),
        .testTarget(name: "TrackerExportsTests", dependencies: ["TrackerExports", "GuideCore", "TestReceivers"], exclude: ["Fixtures/PROVENANCE.md", "Fixtures/count_history.py"],
                    resources: [.copy("Fixtures/trackers")]),
        .testTarget(name: "TVMazeTests", dependencies: [
            "TVMaze", "TVMazeReplay", "TrackerExports", "TestReceivers", "GuideStore", "GuideHTTP", "GuideCore", "StoreTestSupport",
            .product(name: "Clocks", package: "swift-clocks"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // Test support: real peers: receivers on loopback for what reminders are sent to (an HTTP server for ntfy and
        // webhooks, Python's aiosmtpd for e-mail), and an independent iCalendar reader (Python's icalendar).
        .target(name: "TestReceivers", dependencies: [
            "GuideCore",
            .product(name: "Subprocess", package: "swift-subprocess"),
            .product(name: "SystemPackage", package: "swift-system"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // Test support: a loopback stand-in for Schedules Direct answering with its real recorded answers.
        .target(name: "SchedulesDirectReplay", dependencies: [
            "TestReceivers",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ], exclude: ["Fixtures/PROVENANCE.md"], resources: [.copy("Fixtures/schedulesdirect"), .copy("Fixtures/artwork.png")]),
        // Test support: stand-ins for the boxes people already have (an HDHomeRun tuner and its guide service, Tvheadend).
        .target(name: "BoxesReplay", dependencies: [
            "TestReceivers",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ], exclude: ["Fixtures/PROVENANCE.md"], resources: [.copy("Fixtures/boxes")]),
        .testTarget(name: "SchedulesDirectTests", dependencies: [
            "SchedulesDirect", "SchedulesDirectReplay", "GuideHTTP", "GuideStore", "GuideCore", "GuideIngest", "StoreTestSupport", "TestReceivers",
        ]),
        .testTarget(name: "GuideHTTPTests", dependencies: ["GuideHTTP", "GuideCore", "StoreTestSupport", "TestReceivers", .product(name: "NIOCore", package: "swift-nio")]),
        .testTarget(name: "GuideRemindersTests", dependencies: [
            "GuideReminders", "GuideStore", "GuideHTTP", "GuideCore", "StoreTestSupport", "TestReceivers", "Catalogs",
            .product(name: "Clocks", package: "swift-clocks"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "RecordersTests", dependencies: [
            "Recorders", "GuideHTTP", "GuideCore", "StoreTestSupport", "BoxesReplay", "TestReceivers",
        ]),
        .testTarget(name: "GuideIngestTests", dependencies: [
            "GuideIngest", "GuideHTTP", "GuideStore", "XMLTV", "GuideCore", "StoreTestSupport", "BoxesReplay", "TestReceivers",
            .product(name: "Clocks", package: "swift-clocks"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// scripts/test builds with TVGUIDE_WARNINGS_AS_ERRORS=1, so a warning in tvguide's own code (sources and tests) fails
// it; the packages tvguide uses are not affected, and without the variable a warning stays a warning (a newer compiler's
// new warnings do not stop a user's build).
if Context.environment["TVGUIDE_WARNINGS_AS_ERRORS"] != nil {
    for target in package.targets where target.type != .system && target.name != "CLibFuzzer" {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-warnings-as-errors"])]
    }
}

// The test targets are compiled without optimisation, also in a release build (scripts/test's one build serves the
// suites with the program they test, whose own targets stay optimised): on 2 cores the 13 test modules took 447 s to
// compile with -O and 204 s with -Onone, and the suites ran 15 s (SQLite: 148 -> 163 s) and 32 s (PostgreSQL:
// 231 -> 263 s) longer, the test code's own work unoptimised.
for target in package.targets where target.type == .test {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone"])]
}
