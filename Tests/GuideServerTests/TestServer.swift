import Catalogs
import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideHTTPServing
import GuideIngest
import GuideReminders
import GuideServer
import GuideStore
import Hummingbird
import StoreTestSupport
import HummingbirdTesting
import Synchronization
import SchedulesDirect
import TVMaze
import Testing

/// A real store (SQLite, or PostgreSQL: StoreTestSupport) with listings imported, a clock the test moves, and the server's router.
final class TestServer: Sendable {
    let folder: String
    let store: any GuideDatabase
    let clock: TestClock
    /// The server's refresher, as `serve` has it: fetching over the network (loopback and files in these tests).
    let scheduler: RefreshScheduler
    static let setupCode = "1234-5678-9abc"
    /// TVmaze's address: by default one where nothing listens, so a page asking TVmaze fails fast.
    let tvmazeURL: String
    /// bcrypt's cost: the lowest (4) by default, as the tests check the rules, not the hash's strength.
    let secretCost: UInt8
    /// The XMLTV grabbers grabber sources run, and the admin's grabber pages list; none unless a test gives them.
    let grabbers: Grabbers?
    /// The catalogs, read once for the test's server, as serve reads them once.
    let translations: Translations

    /// Schedules Direct (a stand-in's address), for its sources and the admin's page; none unless a test gives it.
    let schedulesDirect: SDConnection?

    init(listings: String, now: Date, tvmazeURL: String = "http://127.0.0.1:9", secretCost: UInt8 = 4,
         grabbers: Grabbers? = nil, schedulesDirectURL: String? = nil, hdhomerunGuideURL: String = HDHomeRunGuide.defaultBase) async throws {
        self.tvmazeURL = tvmazeURL
        self.secretCost = secretCost
        self.grabbers = grabbers
        translations = try Translations()
        schedulesDirect = schedulesDirectURL.map { SDConnection(base: $0, transport: TestHTTP.transport) }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-web-\(UUID().uuidString)").path
        store = try await TestDatabase.open(in: folder)
        clock = TestClock(now)
        let guideClock = clock.guideClock
        scheduler = RefreshScheduler(
            refresher: SourceRefresher(store: store, transport: TestHTTP.transport, schedulesDirect: schedulesDirect, grabbers: grabbers,
                                       hdhomerunGuide: hdhomerunGuideURL, now: guideClock.now, clock: guideClock.waits),
            now: guideClock.now, clock: guideClock.waits)
        try await importListings(listings, as: "test")
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)  // Scratch space of one test.
    }

    func importListings(_ text: String, as source: String) async throws {
        let chunks = Mutex([Data(text.utf8)])
        _ = try await ListingImporter(store: store).importStream(source: SourceName(source), name: "\(source).xml", totalBytes: nil) {
            chunks.withLock { $0.isEmpty ? Data() : $0.removeFirst() }
        }
    }

    var settings: ServerSettings {
        // Requests through a live server come from loopback, which the tests treat as a reverse proxy: the client
        // addresses they sign in from are the X-Forwarded-For they send.
        var settings = ServerSettings(clock: clock.guideClock, timeZone: TimeZone(identifier: "UTC")!, dayStartHour: 5,
                                      secureCookies: true, secretCost: secretCost, setupCode: Self.setupCode,
                                      exportDirectory: folder + "/export")
        settings.trustedProxies = ["127.0.0.1"]
        return settings
    }

    /// The server's parts, as `serve` makes them: TVmaze at `tvmazeURL` (pages wait 10 s at most), images kept in
    /// the test's folder.
    var parts: GuideServices.Parts {
        let now = clock.guideClock.now
        return GuideServices.Parts(
            store: store, settings: settings, scheduler: scheduler, feeds: TestHTTP.transport,
            tvmaze: TVMazeClient(base: tvmazeURL, transport: TestHTTP.transport, limiter: RateLimiter(clock: ContinuousClock()), cache: store,
                                 policy: .interactive, now: now, clock: ContinuousClock()),
            images: ImageCache(directory: folder + "/images", transport: TestHTTP.transport, now: now),
            logos: ImageCache(directory: folder + "/logos", listingsThrough: TestHTTP.outbound, largest: 64 * 1024, now: now),
            outbound: TestHTTP.outbound,
            reminders: ReminderDispatcher(store: store,
                                          senders: ReminderSenders(transport: TestHTTP.outbound,
                                                                   push: VAPIDKey(store: store, subject: "mailto:admin@guide.example", now: now)),
                                          clock: ContinuousClock(), now: now),
            links: GuideServer.links, translations: translations, grabbers: grabbers, schedulesDirect: schedulesDirect)
    }

    /// The server's services, assembled from ``parts`` as `serve` assembles them.
    var services: GuideServices { GuideServices(parts) }

    func advance(by seconds: TimeInterval) {
        clock.advance(by: seconds)
    }

    /// Runs `body` against the router (`.router`) or a real server on a loopback port (`.live`).
    /// `change` adjusts the server's parts first (metrics, settings).
    func run(_ mode: TestingSetup, limits: ConnectionLimits = ConnectionLimits(), change: (inout GuideServices.Parts) -> Void = { _ in },
             _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var parts = self.parts
        change(&parts)
        let app = Application(router: try GuideServer.router(GuideServices(parts)), server: HTTPDoor.server(limits))
        try await app.test(mode) { client in try await body(client) }
    }

    func run(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await run(.router, body)
    }
}

/// A browser's memory across requests: the cookies the server set, sent back on every request, and the form token
/// the last page gave it (read from the page's forms, as a browser posts it).
final class CookieJar: Sendable {
    private let cookies = Mutex<[String: String]>([:])
    /// The last form token a page carried, and the session cookie it was given with.
    private let formToken = Mutex<(token: String, session: String?)?>(nil)

    subscript(_ name: String) -> String? { cookies.withLock { $0[name] } }

    /// The form token for the jar's session now, asking a page for one when the session changed since the last.
    func currentFormToken(_ client: any TestClientProtocol) async throws -> String? {
        let session = self["tvguide_session"]
        if let known = formToken.withLock({ $0 }), known.session == session { return known.token }
        try await send(client, "/search")
        return formToken.withLock { $0?.token }
    }

    /// Sends a request with the jar's cookies (and, for forms, the form token), keeping what it sets.
    @discardableResult
    func send(_ client: any TestClientProtocol, _ uri: String, method: HTTPRequest.Method = .get, form: [String: String]? = nil,
              repeated: [(String, String)] = [], withToken: Bool = true, headers extra: HTTPFields = [:],
              body raw: ByteBuffer? = nil) async throws -> TestResponse {
        var body = raw
        var headers = extra
        if var form {
            if withToken { form["csrf"] = try await currentFormToken(client) }
            headers[.contentType] = "application/x-www-form-urlencoded"
            // `repeated` holds fields sent more than once (checkboxes, lists), after the others.
            let fields = form.map { ($0.key, $0.value) } + repeated
            body = ByteBuffer(string: fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&"))
        }
        let session = self["tvguide_session"]
        let cookieHeader = cookies.withLock { $0.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if !cookieHeader.isEmpty { headers[.cookie] = cookieHeader }
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body)
        for header in response.headers[values: .setCookie] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
            cookies.withLock { jar in
                if pair.count == 2, !pair[1].isEmpty { jar[pair[0]] = pair[1] } else { jar[pair[0]] = nil }
            }
        }
        if let token = Self.formToken(in: String(buffer: response.body)) {
            formToken.withLock { $0 = (token, session) }
        }
        return response
    }

    /// Posts files as a browser's file form does (`multipart/form-data`), with the form token unless told not to.
    @discardableResult
    func upload(_ client: any TestClientProtocol, _ uri: String, files: [(field: String, name: String, bytes: [UInt8])],
                withToken: Bool = true, headers: HTTPFields = [:]) async throws -> TestResponse {
        let boundary = "----tvguide-test-\(UUID().uuidString)"
        var body: [UInt8] = []
        func part(_ disposition: String, _ bytes: [UInt8]) {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; \(disposition)\r\n\r\n".utf8) + bytes + Array("\r\n".utf8)
        }
        if withToken, let token = try await currentFormToken(client) { part(#"name="csrf""#, Array(token.utf8)) }
        for file in files { part(#"name="\#(file.field)"; filename="\#(file.name)""#, file.bytes) }
        body += Array("--\(boundary)--\r\n".utf8)
        var fields = headers
        fields[.contentType] = "multipart/form-data; boundary=\(boundary)"
        return try await send(client, uri, method: .post, headers: fields, body: ByteBuffer(bytes: body))
    }

    /// The `csrf` field of a page's first form.
    static func formToken(in page: String) -> String? {
        guard let field = page.range(of: #"name="csrf" value=""#) else { return nil }
        let token = page[field.upperBound...].prefix { $0 != "\"" }
        return token.isEmpty ? nil : String(token)
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

/// A wall clock that stands still until a test moves it.
final class TestClock: Sendable {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    var now: Date { instant.withLock { $0 } }
    /// The guide's clock: this time, and real waits.
    var guideClock: GuideClock { GuideClock(now: { [self] in now }, waits: ContinuousClock()) }
    func advance(by seconds: TimeInterval) { instant.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

extension TestServer {
    /// `/api/channels` as the API answers it, by channel id.
    static func apiChannels(_ client: any TestClientProtocol) async throws -> [String: [String: Any]] {
        let body = try await client.execute(uri: "/api/channels", method: .get).body
        let list = try #require(try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0) })
    }
}
