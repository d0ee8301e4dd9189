import Clocks
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import StoreTestSupport
import Synchronization
import Testing

/// Refreshes against a real HTTP server on loopback that misbehaves on purpose. For each misbehaviour: what the
/// report tells the user, and whether the stored guide changed.
@Suite struct RefreshTests {
    static let fixtures = IngestFixture.fixtures
    static let small = bytes("peer-fixtures/iptv-org-epg/epg.iptvx.one.content.xml")        // 207 KB
    static let smallGzip = bytes("peer-fixtures/iptv-org-epg/epg.iptvx.one.content.xml.gz")  // 24 KB
    static let other = bytes("peer-fixtures/iptv-org-epg/energeek.cl.content.xml")         // 137 KB
    static let radioTimes = bytes("radiotimes/26.dat")                                      // 153 KB

    static func bytes(_ path: String) -> [UInt8] {
        (try? [UInt8](Data(contentsOf: fixtures.appendingPathComponent(path)))) ?? []
    }

    /// A store, a server and a refresher with short waits.
    struct Rig {
        let fixture: IngestFixture
        let server: MisbehavingServer
        let refresher: SourceRefresher
        let transport: AsyncHTTPTransport

        /// `clock`: how long retries wait and downloads take; virtual for a test of a long wait.
        init(policy: FetchPolicy = Rig.quickPolicy, readTimeout: Duration = .seconds(5),
             clock: any Clock<Duration> = ContinuousClock(), readsChangesOnly: Bool = true) async throws {
            fixture = try await IngestFixture()
            server = try await MisbehavingServer()
            transport = AsyncHTTPTransport(readTimeout: .milliseconds(Int64(readTimeout / .milliseconds(1))))
            refresher = SourceRefresher(store: fixture.store, transport: transport, policy: policy, readsChangesOnly: readsChangesOnly,
                                        now: { Date() }, clock: clock)
        }

        static var quickPolicy: FetchPolicy {
            var policy = FetchPolicy()
            policy.backoff = .milliseconds(20)
            return policy
        }

        func add(_ name: String, _ path: String, format: SourceFormat = .xmltv, priority: Int = 0, channels: [String] = [],
                 timeShift: Int = 0) async throws {
            try await fixture.store.addSource(SourceDefinition(name: SourceName(name), format: format, location: server.url(path),
                                                         priority: priority, timeShift: timeShift, channels: channels))
        }

        func refresh(_ name: String, progress: ProgressLog? = nil) async throws -> SourceReport {
            let reports = try await refresher.refresh([SourceName(name)]) { progress?.append($0) }
            return try #require(reports.first)
        }

        /// The stored guide, as what a user would see of it.
        func guide() async throws -> [String] {
            try await fixture.all().map { "\($0.programme.channel) \($0.programme.start.timeIntervalSince1970) \($0.programme.title)" }
        }

        func close() async throws {
            try await transport.shutdown()
            try await server.stop()
        }
    }

    /// A first good refresh, then the misbehaving reply: the report says what went wrong and the guide is as it was.
    func expectFailureKeepsGuide(_ reply: MisbehavingServer.Reply, after first: [UInt8] = small,
                                 policy: FetchPolicy = Rig.quickPolicy, readTimeout: Duration = .seconds(5),
                                 says expected: String) async throws {
        // The first refresh with generous limits, so a busy machine cannot fail it; the strict ones for the second.
        let rig = try await Rig()
        rig.server.script("/guide.xml", .file(first))
        try await rig.add("feed", "/guide.xml")
        #expect(try await rig.refresh("feed").outcome == .imported)
        let before = try await rig.guide()
        #expect(!before.isEmpty)
        rig.server.script("/guide.xml", reply)
        let strictTransport = AsyncHTTPTransport(readTimeout: .milliseconds(Int64(readTimeout / .milliseconds(1))))
        let strict = SourceRefresher(store: rig.fixture.store, transport: strictTransport, policy: policy, now: { Date() }, clock: ContinuousClock())
        let report = try #require(try await strict.refresh([SourceName("feed")]).first)
        try await strictTransport.shutdown()
        #expect(report.outcome == .failed)
        #expect(report.error?.contains(expected) == true, "\(report.error ?? "no error")")
        #expect(try await rig.guide() == before)
        let status = try #require(try await rig.fixture.store.sources().first)
        #expect(status.lastOutcome == .failed)
        #expect(status.lastError == report.error)
        #expect(status.lastSuccess != nil)
        try await rig.close()
    }

    @Test func noContentLengthShowsBytesAndProgrammesAndImports() async throws {
        let rig = try await Rig()
        rig.server.script("/26.dat", .file(Self.radioTimes, sendsLength: false))
        try await rig.add("rt", "/{channel}.dat", format: .radiotimes, channels: ["26"])
        let progress = ProgressLog()
        let report = try await rig.refresh("rt", progress: progress)
        #expect(report.outcome == .imported, "\(report.error ?? "")")
        #expect(report.bytes == Int64(Self.radioTimes.count))
        #expect(report.programmes > 300)
        // Without a length there is no percentage: bytes and programmes parsed instead, growing.
        let feeds = progress.feeds
        #expect(feeds.allSatisfy { $0.totalBytes == nil && $0.fraction == nil })
        #expect(feeds.last?.bytes == Int64(Self.radioTimes.count))
        #expect((feeds.last?.programmes ?? 0) > 300)
        #expect(feeds.map(\.bytes) == feeds.map(\.bytes).sorted())
        #expect(progress.last?.downloadsDone == 1 && progress.last?.downloadsTotal == 1)
        #expect(try await rig.fixture.store.channels().map(\.id) == [ChannelID("26")])
        try await rig.close()
    }

    @Test func withContentLengthProgressHasAPercentage() async throws {
        let rig = try await Rig()
        rig.server.script("/guide.xml", MisbehavingServer.Reply(body: Self.small, chunk: 16 * 1024))
        try await rig.add("feed", "/guide.xml")
        let progress = ProgressLog()
        #expect(try await rig.refresh("feed", progress: progress).outcome == .imported)
        let fractions = progress.feeds.compactMap(\.fraction)
        #expect(fractions.count >= 2)
        #expect(fractions.last == 1)
        try await rig.close()
    }

    @Test func aSourceStartedAgainWhileRefreshingIsLeftToThatRefresh() async throws {
        let rig = try await Rig()
        rig.server.script("/slow.xml", MisbehavingServer.Reply(body: Self.other, chunk: 8 * 1024, pause: .milliseconds(20)))
        rig.server.script("/quick.xml", .file(Self.small))
        try await rig.add("slow", "/slow.xml")
        try await rig.add("quick", "/quick.xml")
        let scheduler = RefreshScheduler(refresher: rig.refresher, now: { Date() }, clock: ContinuousClock())
        #expect(try await scheduler.start([SourceName("slow")]) == [SourceName("slow")])
        #expect(scheduler.latest?.sources.map(\.name) == ["slow"])
        // "Refresh all" while it runs starts only the other; the progress shows both runs side by side.
        #expect(try await scheduler.start() == [SourceName("quick")])
        #expect(Set(scheduler.latest?.sources.map(\.name) ?? []) == ["slow", "quick"])
        await #expect(throws: StoreError.self) { try await scheduler.start([SourceName("nowhere")]) }
        for await progress in scheduler.updates() where progress.isFinished { break }
        #expect(scheduler.latest?.sources.map(\.phase) == [.imported, .imported])
        #expect(rig.server.requests(to: "/slow.xml").count == 1)
        try await rig.close()
    }

    @Test func aSlowDripWithinTheLimitsImports() async throws {
        let rig = try await Rig()
        rig.server.script("/guide.xml", MisbehavingServer.Reply(body: Self.other, chunk: 8 * 1024, pause: .milliseconds(10)))
        try await rig.add("feed", "/guide.xml")
        let progress = ProgressLog()
        let report = try await rig.refresh("feed", progress: progress)
        #expect(report.outcome == .imported)
        #expect(progress.feeds.count > 3)
        try await rig.close()
    }

    @Test func aDripSlowerThanTheTimeLimitIsStoppedAndDiscarded() async throws {
        var policy = Rig.quickPolicy
        policy.maximumDuration = .milliseconds(300)
        try await expectFailureKeepsGuide(MisbehavingServer.Reply(body: Self.small, chunk: 4 * 1024, pause: .milliseconds(20)),
                                          policy: policy, says: "took longer than")
    }

    @Test func aServerThatStopsSendingTimesOutAfterRetries() async throws {
        try await expectFailureKeepsGuide(MisbehavingServer.Reply(body: Self.small, chunk: 32 * 1024, pause: .seconds(3)),
                                          readTimeout: .milliseconds(300), says: "stopped sending")
    }

    @Test func aConnectionCutMidBodyIsRetriedThenSucceeds() async throws {
        let rig = try await Rig()
        rig.server.script("/guide.xml", MisbehavingServer.Reply(body: Self.small, cutAfter: 50_000), .file(Self.small))
        try await rig.add("feed", "/guide.xml")
        let progress = ProgressLog()
        let report = try await rig.refresh("feed", progress: progress)
        #expect(report.outcome == .imported)
        #expect(rig.server.requests(to: "/guide.xml").count == 2)
        // A cut, seen as such; beside 89 suites on 2 cores the close once arrived after the 5 s read timeout, and the
        // cut was seen as a stall at the same byte: retried all the same.
        let reasons = progress.feeds.filter { $0.attempt == 2 }.compactMap { $0.retryReason?.description }
        #expect(reasons.contains { $0.contains("broke off") || $0.contains("stopped sending after 50000 bytes") },
                "\(progress.feeds.map { "\($0.attempt) \($0.retryReason?.description ?? "")" })")
        try await rig.close()
    }

    @Test func aConnectionCutEveryTimeFailsAfterThreeRetries() async throws {
        try await expectFailureKeepsGuide(MisbehavingServer.Reply(body: Self.small, cutAfter: 50_000), says: "broke off")
    }

    @Test func aTooManyRequestsAnswerIsRetriedAfterItsRetryAfter() async throws {
        // Virtual time: the retry waits its second without the test waiting it.
        let clock = ImmediateClock()
        let rig = try await Rig(clock: clock)
        rig.server.script("/guide.xml", .status(429, headers: [("Retry-After", "1")]), .file(Self.small))
        try await rig.add("feed", "/guide.xml")
        let began = clock.now
        let report = try await rig.refresh("feed")
        #expect(report.outcome == .imported)
        #expect(began.duration(to: clock.now) >= .seconds(1))
        #expect(rig.server.requests(to: "/guide.xml").count == 2)
        try await rig.close()
    }

    @Test func aRetryAfterLongerThanARefreshWaitsFails() async throws {
        try await expectFailureKeepsGuide(.status(429, headers: [("Retry-After", "3600")]), says: "asked to wait 3600 s")
    }

    @Test func serverErrorsThenSuccessImports() async throws {
        let rig = try await Rig()
        rig.server.script("/guide.xml", .status(500), .status(502), .file(Self.small))
        try await rig.add("feed", "/guide.xml")
        let report = try await rig.refresh("feed")
        #expect(report.outcome == .imported)
        #expect(rig.server.requests(to: "/guide.xml").count == 3)
        try await rig.close()
    }

    @Test func serverErrorsEveryTimeFailAfterFourTries() async throws {
        try await expectFailureKeepsGuide(.status(503), says: "gave up after 4 tries")
    }

    @Test func aNotFoundIsNotRetried() async throws {
        let rig = try await Rig()
        try await rig.add("feed", "/missing.xml")
        let report = try await rig.refresh("feed")
        #expect(report.outcome == .failed)
        #expect(report.error?.contains("answered 404") == true)
        #expect(rig.server.requests(to: "/missing.xml").count == 1)
        try await rig.close()
    }

    @Test func gzipImportsWhateverItsName() async throws {
        let rig = try await Rig()
        rig.server.script("/guide", .file(Self.smallGzip, headers: [("Content-Type", "application/octet-stream")]))
        try await rig.add("feed", "/guide")
        let report = try await rig.refresh("feed")
        #expect(report.outcome == .imported)
        #expect(report.bytes == Int64(Self.smallGzip.count))
        #expect(report.programmes > 0)
        try await rig.close()
    }

    @Test func anUnchangedFeedIsNotDownloadedAgain() async throws {
        let rig = try await Rig()
        rig.server.script("/guide.xml", MisbehavingServer.Reply(headers: [("Last-Modified", "Sat, 21 Nov 2026 10:00:00 GMT")],
                                                                 body: Self.small, etag: "\"v1\""))
        try await rig.add("feed", "/guide.xml")
        #expect(try await rig.refresh("feed").outcome == .imported)
        let version = try await rig.fixture.store.version()
        let report = try await rig.refresh("feed")
        #expect(report.outcome == .unchanged)
        #expect(report.notModified == 1 && report.bytes == 0 && report.programmes == 0)
        let second = try #require(rig.server.requests(to: "/guide.xml").last)
        #expect(second.headers["if-none-match"] == "\"v1\"")
        #expect(second.headers["if-modified-since"] == "Sat, 21 Nov 2026 10:00:00 GMT")
        #expect(try await rig.fixture.store.version().generation == version.generation)
        #expect(try await rig.fixture.store.sources().first?.lastOutcome == .unchanged)
        try await rig.close()
    }

    @Test func aRedirectLoopIsAClearError() async throws {
        let rig = try await Rig()
        rig.server.script("/guide.xml", .file(Self.small))
        try await rig.add("feed", "/guide.xml")
        #expect(try await rig.refresh("feed").outcome == .imported)
        let before = try await rig.guide()
        rig.server.script("/guide.xml", .status(302, headers: [("Location", rig.server.url("/elsewhere.xml"))]))
        rig.server.script("/elsewhere.xml", .status(302, headers: [("Location", rig.server.url("/guide.xml"))]))
        let report = try await rig.refresh("feed")
        #expect(report.outcome == .failed)
        #expect(report.error?.contains("redirects in a loop") == true, "\(report.error ?? "")")
        #expect(try await rig.guide() == before)
        try await rig.close()
    }

    @Test func aBodyLargerThanAllowedIsRefusedByItsLength() async throws {
        var policy = Rig.quickPolicy
        policy.maximumBytes = 150_000
        try await expectFailureKeepsGuide(.file(Self.small), after: Self.other, policy: policy,
                                          says: "is 203 KB, more than the 146 KB allowed; not downloaded")
    }

    @Test func aBodyLargerThanAllowedWithoutALengthIsStopped() async throws {
        var policy = Rig.quickPolicy
        policy.maximumBytes = 150_000
        try await expectFailureKeepsGuide(.file(Self.small, sendsLength: false), after: Self.other, policy: policy,
                                          says: "sent more than the 146 KB allowed; stopped and discarded")
    }

    @Test func notListingsFailsBeforeTheStoreIsTouched() async throws {
        try await expectFailureKeepsGuide(.file(Array("<html><body>Service unavailable</body></html>".utf8)),
                                          says: "the root element is <html>, not <tv>: this is not an XMLTV file")
    }

    @Test func oneFailedChannelOfARadioTimesSourceLeavesAllItsChannelsAsTheyWere() async throws {
        let rig = try await Rig()
        rig.server.script("/26.dat", .file(Self.radioTimes))
        rig.server.script("/27.dat", .file(Self.radioTimes))
        try await rig.add("rt", "/{channel}.dat", format: .radiotimes, channels: ["26", "27"])
        let first = try await rig.refresh("rt")
        #expect(first.outcome == .imported && first.downloads == 2)
        let before = try await rig.guide()
        rig.server.script("/27.dat", MisbehavingServer.Reply(body: Self.radioTimes, cutAfter: 10_000))
        let report = try await rig.refresh("rt")
        #expect(report.outcome == .failed)
        #expect(try await rig.guide() == before)
        try await rig.close()
    }
}

extension RefreshTests {
    /// A TVmaze country schedule source: one request per day, networks as channels, episodes as programmes, times
    /// from `airstamp`. Replays a real recorded response.
    @Test func aTVmazeScheduleBecomesChannelsAndProgrammes() async throws {
        let fixture = try await IngestFixture()
        let server = try await MisbehavingServer()
        let transport = AsyncHTTPTransport()
        let day = Date(timeIntervalSince1970: 1_547_856_000)   // 2019-01-19T00:00:00Z, the recording's date
        let refresher = SourceRefresher(store: fixture.store, transport: transport, policy: Rig.quickPolicy, now: { day }, clock: ContinuousClock())
        server.script("/schedule?country=US&date=2019-01-19", .file(Self.bytes("tvmaze/schedule_US_2019-01-19.json")))
        server.script("/schedule?country=US&date=2019-01-20", .file(Array("[]".utf8)))
        try await fixture.store.addSource(SourceDefinition(name: SourceName("tvmaze-us"), format: .tvmaze,
                                                     location: server.url("/schedule?country=US"), days: 2))
        let report = try #require(try await refresher.refresh().first)
        #expect(report.outcome == .imported, "\(report.error ?? "")")
        #expect(report.downloads == 2)
        let recorded = try #require(try JSONSerialization.jsonObject(with: Data(Self.bytes("tvmaze/schedule_US_2019-01-19.json"))) as? [[String: Any]])
        // Networks, and local web channels for the episodes that have no network.
        let networks = Set(recorded.compactMap { episode -> String? in
            let show = episode["show"] as? [String: Any]
            return ((show?["network"] as? [String: Any]) ?? (show?["webChannel"] as? [String: Any]))?["name"] as? String
        })
        #expect(await Set(try fixture.store.channels().map(\.name)) == networks)
        let first = recorded[0], show = try #require(first["show"] as? [String: Any])
        let stored = try await fixture.all().first { $0.programme.title == show["name"] as? String }
        #expect(stored?.programme.subTitle == first["name"] as? String)
        #expect(stored.map { CivilTime.iso8601($0.programme.start) } == "2019-01-19T13:00:00Z")   // airstamp 13:00+00:00
        #expect(stored?.programme.episodeLabel == "S13 E3")
        #expect(stored.map { $0.end.timeIntervalSince($0.programme.start) } == TimeInterval(30 * 60))   // runtime 30
        try await transport.shutdown()
        try await server.stop()
    }
}

/// Progress snapshots collected from a refresh's callback.
final class ProgressLog: Sendable {
    private let updates = Mutex<[RefreshProgress]>([])

    func append(_ update: RefreshProgress) { updates.withLock { $0.append(update) } }

    var last: RefreshProgress? { updates.withLock { $0.last } }

    /// The first source's first feed, update by update.
    var feeds: [FeedProgress] {
        updates.withLock { $0.compactMap { $0.sources.first?.feeds.first } }
    }
}
