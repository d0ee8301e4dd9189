import Clocks
import Foundation
import GuideCore
import GuideHTTP
import GuideStore
import Synchronization
import StoreTestSupport
import Testing
import TVMazeReplay
@testable import TVMaze

/// The client against a real loopback server replaying TVmaze's recorded answers.
@Suite struct TVMazeClientTests {
    /// A client on the replay server, with a store as its cache when asked.
    struct Rig {
        let server: ReplayServer
        let client: TVMazeClient
        let store: (any GuideDatabase)?
        let folder: String
        let clock: WallClock
        /// How long the client's tries wait: virtual, so a retry after 1 s takes no time.
        let time = ImmediateClock()

        init(cached: Bool = false, policy: TVMazeClient.Policy = Rig.quick, limiter: RateLimiter = RateLimiter(clock: ContinuousClock()),
             transport: AsyncHTTPTransport = TestHTTP.transport) async throws {
            server = try await ReplayServer()
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-tvmaze-\(UUID().uuidString)").path
            store = cached ? try await TestDatabase.open(in: folder) : nil
            let clock = WallClock()
            self.clock = clock
            client = TVMazeClient(base: server.base + "/", transport: transport, limiter: limiter, cache: store, policy: policy,
                                  now: { clock.now }, clock: time)
        }

        static var quick: TVMazeClient.Policy {
            var policy = TVMazeClient.Policy()
            policy.backoff = .milliseconds(10)
            return policy
        }

        func close() async throws {
            try await server.stop()
            try? FileManager.default.removeItem(atPath: folder)  // The test's own scratch folder.
        }
    }

    @Test func searchesAndSingleSearchAsRecorded() async throws {
        let rig = try await Rig()
        let girls = try await rig.client.searchShows("girls")
        #expect(girls.first?.name == "Girls")
        #expect(girls.first?.channel?.zone == "America/New_York")
        #expect(try await rig.client.searchShows("useless search string").isEmpty)
        #expect(try await rig.client.searchShows("Agents of SHIELD").first?.id == 31)
        let shameless = try #require(try await rig.client.singleSearch("Shameless", embed: [.seasons]))
        #expect(shameless.seasons.isEmpty == false)
        // A miss is TVmaze's 404 with an empty body: no show, not an error.
        #expect(try await rig.client.singleSearch("Aoeu Htns", embed: [.seasons]) == nil)
        let people = try await rig.client.searchPeople("lauren")
        #expect(people.first?.name == "Lauren Bush Lauren")
        // SYNTHETIC redirect (TVmaze answers lookups with one) to the recorded show.
        #expect(try await rig.client.show(thetvdb: 264492)?.name == "Under the Dome")
        #expect(try await rig.client.show(imdb: "tt0000001") == nil)
        try await rig.close()
    }

    @Test func showsSeasonsEpisodesAndPeopleAsRecorded() async throws {
        let rig = try await Rig()
        let client = rig.client
        let dome = try #require(try await client.show(1, embed: [.episodes, .cast]))
        #expect(dome.status == "Ended" && dome.hasEnded)
        #expect(dome.episodes.count == 39)
        #expect(dome.cast.first?.person?.name == "Mike Vogel")
        let flash = try #require(try await client.show(13, embed: [.seasons]))
        #expect(flash.nextEpisodeID == 1_767_393 && flash.previousEpisodeID == 1_692_473)
        #expect(flash.seasons.last?.episodeCount == nil)
        #expect(try await client.episodes(ofShow: 1).count == 39)
        #expect(try await client.seasons(ofShow: 1).map(\.number) == [1, 2, 3])
        #expect(try await client.episode(ofShow: 13, season: 2, number: 2)?.code == "S02E02")
        // Not there: a 404 with an error body.
        #expect(try await client.episode(ofShow: 13, season: 100, number: 100) == nil)
        #expect(try await client.crew(ofShow: 1).first { $0.job == "Creator" }?.person?.name == "Stephen King")
        #expect(try await client.cast(ofShow: 1).count > 5)
        let pilot = try #require(try await client.episode(1))
        #expect(pilot.airTime() == .instant(CivilTime.parseISO8601("2013-06-25T02:00:00Z")!))
        #expect(try await client.episodes(ofShow: 249, on: CivilDate(year: 2012, month: 6, day: 6)).isEmpty == false)

        let mike = try #require(try await client.person(1))
        #expect(mike.name == "Mike Vogel" && mike.birthday == CivilDate(year: 1979, month: 7, day: 17))
        // Credits with their shows: one request, not one per show.
        let before = rig.server.requests.count
        let credits = try await client.castCredits(ofPerson: 1)
        #expect(credits.count > 1 && credits.allSatisfy { $0.show?.name != nil })
        #expect(rig.server.requests.count == before + 1)
        try await rig.close()
    }

    @Test func theIndexPagesEndWithA404AndUpdatesAreAMap() async throws {
        let rig = try await Rig()
        #expect(try await rig.client.showIndex(page: 0)?.count == 240)
        let page1 = try #require(try await rig.client.showIndex(page: 1))
        #expect(page1.count == 245)
        // Drift: a global web channel (no country, no zone) and the 2022-only fields.
        #expect(page1.contains { $0.channel?.isWebChannel == true && $0.timeZone == nil } || page1.contains { $0.channel?.isWebChannel == true })
        #expect(page1.contains { $0.ended != nil })
        #expect(try await rig.client.showIndex(page: 2) == nil)
        let updates = try await rig.client.showUpdates()
        #expect(updates[1] == 1_488_136_720)
        #expect(updates.count > 10_000)
        try await rig.close()
    }

    @Test func scheduleEpisodesCarryTheirShowAndTheTVDayRule() async throws {
        let rig = try await Rig()
        let day = try await rig.client.schedule(country: "US", on: CivilDate(year: 2019, month: 1, day: 19))
        #expect(day.count == 37)
        #expect(day.allSatisfy { $0.show != nil })
        // America's Test Kitchen: airdate 2019-01-19 at 02:30 in New York, which is really the 20th.
        let kitchen = try #require(day.first { $0.show?.name == "America's Test Kitchen" })
        #expect(kitchen.airdate == "2019-01-19" && kitchen.airtime == "02:30")
        #expect(kitchen.airTime().instant == CivilTime.parseISO8601("2019-01-20T07:30:00Z"))
        try await rig.close()
    }

    @Test func aBurstOf100CallsKeepsTo20In10Seconds() async throws {
        // Time on a clock that jumps instead of sleeping; the requests are real, to the replay server, uncached.
        let clock = JumpingClock()
        let rig = try await Rig(limiter: RateLimiter(limit: 20, per: .seconds(10), clock: clock))
        let sent = try await withThrowingTaskGroup(of: Duration.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let episode = try await rig.client.episode(ofShow: 13, season: 2, number: 2)
                    #expect(episode?.name != nil)
                    return clock.elapsed()
                }
            }
            return try await group.reduce(into: [Duration]()) { $0.append($1) }
        }
        #expect(rig.server.requests(to: "/shows/13/episodebynumber").count == 100)
        // 20 at once, then 20 more every 10 s: the last leave at 40 s, none before its slot.
        #expect(clock.elapsed() == .seconds(40))
        let times = sent.sorted()
        for (index, time) in times.enumerated() {
            #expect(time >= .seconds(10 * (index / 20)))
        }
        try await rig.close()
    }

    @Test func aTooManyRequestsAnswerIsRetriedAfterItsRetryAfter() async throws {
        let rig = try await Rig()
        // SYNTHETIC 429s: the first says wait 1 s, the second gives no Retry-After (backoff).
        rig.server.script("/shows/1", .tooManyRequests(retryAfter: 1), .tooManyRequests())
        let started = rig.time.now
        #expect(try await rig.client.show(1)?.name == "Under the Dome")
        #expect(started.duration(to: rig.time.now) >= .seconds(1))
        #expect(rig.server.requests(to: "/shows/1").count == 3)
        // Three in a row: the user is told to slow down; nothing made up.
        rig.server.script("/shows/13", .tooManyRequests(retryAfter: 0), .tooManyRequests(retryAfter: 0), .tooManyRequests(retryAfter: 0))
        await #expect(throws: TVMazeError.status(429, url: rig.server.base + "/shows/13")) { try await rig.client.show(13) }
        #expect(rig.server.requests(to: "/shows/13").count == 3)
        try await rig.close()
    }

    @Test func aSlowAnswerPastTheReadTimeoutIsRetried() async throws {
        // 3 s: at 300 ms an ordinary answer timed out too on the loaded 2-core CI machine (3 tries seen).
        let transport = AsyncHTTPTransport(readTimeout: .seconds(3))
        let rig = try await Rig(transport: transport)
        // SYNTHETIC: the first answer takes 10 s; the read timeout gives up on it and the second try is answered.
        rig.server.script("/people/1", ReplayServer.Answer(status: 200, body: Array("{}".utf8), delay: .seconds(10)))
        #expect(try await rig.client.person(1)?.name == "Mike Vogel")
        #expect(rig.server.requests(to: "/people/1").count == 2)
        try await transport.shutdown()
        try await rig.close()
    }

    @Test func aCachedAnswerIsNotAskedForAgainWithinItsTime() async throws {
        let rig = try await Rig(cached: true)
        #expect(try await rig.client.show(1)?.name == "Under the Dome")
        rig.clock.advance(by: 3599)
        #expect(try await rig.client.show(1)?.name == "Under the Dome")
        #expect(rig.server.requests(to: "/shows/1").count == 1)
        // A 404 is an answer too.
        #expect(try await rig.client.episode(ofShow: 13, season: 100, number: 100) == nil)
        #expect(try await rig.client.episode(ofShow: 13, season: 100, number: 100) == nil)
        #expect(rig.server.requests(to: "/shows/13/episodebynumber").count == 1)
        // The index keeps a day.
        _ = try await rig.client.showIndex(page: 0)
        rig.clock.advance(by: 2 * 3600)
        _ = try await rig.client.showIndex(page: 0)
        #expect(rig.server.requests(to: "/shows").count == 1)
        // An hour on, the show is asked for again; when TVmaze fails then, the older answer still serves.
        #expect(try await rig.client.show(1) != nil)
        #expect(rig.server.requests(to: "/shows/1").count == 2)
        rig.clock.advance(by: 3601)
        rig.server.script("/shows/1", .init(status: 503), .init(status: 503), .init(status: 503))
        #expect(try await rig.client.show(1)?.name == "Under the Dome")
        #expect(rig.server.requests(to: "/shows/1").count == 5)
        // Forgetting a show (as /updates/shows says it changed) asks again at once.
        try await rig.client.forget(show: 1)
        #expect(try await rig.client.show(1) != nil)
        #expect(rig.server.requests(to: "/shows/1").count == 6)
        try await rig.close()
    }
}

/// Images on disk, fetched once.
@Suite struct ImageCacheTests {
    @Test func anImageIsFetchedOnceAndOnlyFromTVmazesHost() async throws {
        let server = try await ReplayServer()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-images-\(UUID().uuidString)").path
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 1000)
        // SYNTHETIC image bytes (the fixtures hold no images).
        server.script("/uploads/images/medium_portrait/0/1815.jpg", .init(status: 200, headers: [("Content-Type", "image/jpeg")], body: jpeg))
        let cache = ImageCache(directory: folder, transport: TestHTTP.transport, origins: [server.base], largestTotal: 2_500, now: { Date() })
        let url = try #require(cache.canonical(server.base + "/uploads/images/medium_portrait/0/1815.jpg"))
        let first = try #require(try await cache.file(for: url))
        #expect(first.contentType == "image/jpeg")
        #expect(try Data(contentsOf: URL(fileURLWithPath: first.path)) == Data(jpeg))
        #expect(try await cache.file(for: url)?.path == first.path)
        #expect(server.requests(to: "/uploads/images/medium_portrait/0/1815.jpg").count == 1)
        // Not an open proxy: other hosts, schemes and ports, queries, users and odd paths are refused without a request.
        let port = try #require(URL(string: server.base)?.port)
        for refused in ["http://example.org/a.jpg", "file:///etc/passwd", "https://static.tvmaze.com:9/a.jpg",
                        server.base + "/uploads/a.jpg?v=1", server.base + "/uploads/a.jpg#x", "http://user@127.0.0.1:\(port)/a.jpg",
                        server.base + "/uploads/../a.jpg", server.base + "/uploads/a b.jpg", "http://127.0.0.1:\(port + 1)/a.jpg"] {
            #expect(cache.canonical(refused) == nil, "\(refused)")
        }
        #expect(ImageCache(directory: folder, transport: TestHTTP.transport, now: { Date() }).canonical("https://STATIC.tvmaze.com:443/uploads/a.jpg")?.absoluteString
                == "https://static.tvmaze.com/uploads/a.jpg")
        // A missing image is not stored.
        #expect(try await cache.file(for: try #require(cache.canonical(server.base + "/uploads/none.jpg"))) == nil)
        // Full: the image used longest ago makes room (1,004 bytes each, 2,500 at most).
        for index in 2...3 {
            server.script("/uploads/\(index).jpg", .init(status: 200, headers: [("Content-Type", "image/jpeg")], body: jpeg))
        }
        _ = try await cache.file(for: try #require(cache.canonical(server.base + "/uploads/2.jpg")))
        _ = try await cache.file(for: url)
        _ = try await cache.file(for: try #require(cache.canonical(server.base + "/uploads/3.jpg")))
        #expect(try await cache.totalBytes() <= 2_500)
        #expect(try await cache.isCached(url), "used lately: kept")
        #expect(try await !cache.isCached(try #require(cache.canonical(server.base + "/uploads/2.jpg"))), "used longest ago: removed")
        try await server.stop()
        try? FileManager.default.removeItem(atPath: folder)  // The test's own scratch folder.
    }
}

/// Air times as TVmaze gives them, seen from viewers' zones.
@Suite struct AirTimeTests {
    static let london = TimeZone(identifier: "Europe/London")!
    static let tokyo = TimeZone(identifier: "Asia/Tokyo")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    @Test func anEpisodeAt0230EasternFallsOnTheRightDayElsewhere() {
        // America's Test Kitchen, recorded: airdate 2019-01-19 (the TV-day rule), airtime 02:30, airstamp 07:30Z.
        let kitchen = AirTime(airdate: "2019-01-19", airtime: "02:30", airstamp: "2019-01-20T07:30:00+00:00")
        #expect(kitchen.day(in: Self.newYork) == CivilDate(year: 2019, month: 1, day: 20))
        #expect(kitchen.day(in: Self.london) == CivilDate(year: 2019, month: 1, day: 20))
        #expect(kitchen.day(in: Self.tokyo) == CivilDate(year: 2019, month: 1, day: 20))
        // 22:30 Eastern is the next day in London and Tokyo.
        let late = AirTime(airdate: "2019-01-19", airtime: "22:30", airstamp: "2019-01-20T03:30:00+00:00")
        #expect(late.day(in: Self.newYork) == CivilDate(year: 2019, month: 1, day: 19))
        #expect(late.day(in: Self.london) == CivilDate(year: 2019, month: 1, day: 20))
        #expect(late.day(in: Self.tokyo) == CivilDate(year: 2019, month: 1, day: 20))
        // Without an airstamp the show's zone places it, across a DST change too.
        #expect(AirTime(airdate: "2019-03-10", airtime: "20:00", airstamp: nil, zone: Self.newYork).instant
                == CivilTime.parseISO8601("2019-03-11T00:00:00Z"))
    }

    @Test func hostileNumbersFromTVmazeAreMappedWithoutTrapping() throws {
        // What a broken or hostile TVmaze answer could hold: extreme integers, a huge rating, impossible dates.
        let json = """
            {"id": 9223372036854775807, "name": "Extreme", "season": -1, "number": 9223372036854775807, "runtime": -9223372036854775808,
             "airdate": "9999-99-99", "airtime": "99:99", "airstamp": "not a time", "rating": {"average": 1e308},
             "_embedded": {"show": {"id": 1, "name": "Show", "runtime": 9223372036854775807, "averageRuntime": -1,
                                    "premiered": "-1", "ended": "1e308", "updated": -9223372036854775808,
                                    "network": {"id": -1, "name": "Net", "country": {"timezone": "Not/AZone"}}}}}
            """
        let episode = Episode(try JSONDecoder().decode(TVMazeEpisode.self, from: Data(json.utf8)))
        // Out of any season's or episode's range: unknown, so the episode reads as a special.
        #expect(episode.season == nil && episode.number == nil && episode.code == "Special")
        #expect(Episode.code(season: 2012, number: 150) == "S2012E150" && Episode.code(season: 1, number: 3) == "S01E03")
        #expect(episode.airTime() == .unknown)
        #expect(episode.show?.premiered == nil && episode.show?.ended == nil && episode.show?.channel?.timeZone == nil)
        #expect(episode.rating == 1e308)
        // One past Int64: not a number JSONDecoder will give as an Int, so the answer is unreadable, not a trap.
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TVMazeEpisode.self, from: Data(#"{"id": 9223372036854775808}"#.utf8))
        }
        // A stored episode's end clamps its runtime to a programme's range, whatever TVmaze said.
        let airing = Airing(show: Show(id: 1, name: "Show"), episode: episode, reminders: false,
                            time: .instant(Date(timeIntervalSince1970: 0)))
        #expect(airing.end == Date(timeIntervalSince1970: 0))
    }

    @Test func aStreamingReleaseWithNoAirtimeIsAllDayNotNoon() throws {
        // Ted Lasso 1x03, recorded: Apple TV+ worldwide, airtime "", airstamp a 12:00 UTC placeholder.
        let data = try Data(contentsOf: ReplayServer.fixtures.appendingPathComponent("show_44458_episodebynumber_s1e3.json"))
        let wire = try JSONDecoder().decode(TVMazeEpisode.self, from: data)
        #expect(wire.airtime == "" && wire.airstamp == "2020-08-14T12:00:00+00:00")
        let episode = Episode(wire)
        #expect(episode.airTime() == .day(CivilDate(year: 2020, month: 8, day: 14)))
        #expect(episode.airTime().day(in: Self.tokyo) == CivilDate(year: 2020, month: 8, day: 14))
        #expect(episode.airTime().instant == nil)
        // Unannounced: Firefly's unaired episode.
        let unaired = Episode(try JSONDecoder().decode(TVMazeEpisode.self, from: Data(contentsOf: ReplayServer.fixtures
            .appendingPathComponent("show_180_episodebynumber_s1e13_unaired.json"))))
        #expect(unaired.airTime() == .unknown)
    }
}

/// The client's idea of now, moved by the tests.
final class WallClock: Sendable {
    private let instant = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { instant.withLock { $0 } }
    func advance(by seconds: TimeInterval) { instant.withLock { $0 += seconds } }
}
