import Foundation
import GuideCore
import GuideStore
import Testing

@Suite struct QueryTests {
    static func guide() async throws -> StoreFixture {
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([
            ("a", "20240101180000", "20240101183000", "Früh News"),
            ("a", "20240101183000", "20240101183000", "Weather"),
            ("a", "20240101183000", "20240101190000", "Doctor Who"),
            ("a", "20240101190000", "20240101200000", "Café Society"),
            ("b", "20240101170000", "20240101190000", "The Big Film"),
            ("b", "20240101190000", "20240101193000", "ニュース７"),
            ("b", "20240101200000", "20240101210000", "Doctor Foster"),
        ], channels: ["a", "b", "c"]))
        return fixture
    }

    @Test func nowAndNextFollowStartInclusiveStopExclusive() async throws {
        let store = try await Self.guide().store
        let at1830 = try await store.nowNext(at: StoreFixture.date("20240101183000"), channels: nil)
        #expect(at1830.map(\.channel.rawValue) == ["a", "b", "c"])
        #expect(at1830[0].now?.programme.title == "Doctor Who")
        #expect(at1830[0].next?.programme.title == "Café Society")
        #expect(at1830[1].now?.programme.title == "The Big Film")
        #expect(at1830[1].next?.programme.title == "ニュース７")
        #expect(at1830[2].now == nil && at1830[2].next == nil)
        // Just before the stop it is still on; at the stop the next one is.
        let at1929 = try await store.nowNext(at: StoreFixture.date("20240101192959"), channels: [ChannelID("b")])
        #expect(at1929.first?.now?.programme.title == "ニュース７")
        #expect(at1929.first?.next?.programme.title == "Doctor Foster")
        let gap = try await store.nowNext(at: StoreFixture.date("20240101194500"), channels: [ChannelID("b")])
        #expect(gap.first?.now == nil)
        #expect(gap.first?.next?.programme.title == "Doctor Foster")
    }

    /// What the caller says it has (`/api/now`'s kept summaries) is left out, its id given; the rest is as without.
    @Test func nowAndNextLeaveOutWhatTheCallerHas() async throws {
        let store = try await Self.guide().store
        let at = StoreFixture.date("20240101183000")
        let whole = try await store.nowNext(at: at, channels: nil, detail: .summary)
        let had = Set([whole[0].next?.id, whole[1].now?.id].compactMap { $0 })
        #expect(had.count == 2)
        let answers = try await store.nowNext(at: at, channels: nil, detail: .summary, omitting: { had.contains($0) })
        #expect(answers.map(\.nowID) == whole.map(\.nowID) && answers.map(\.nextID) == whole.map(\.nextID))
        #expect(answers.map(\.nowID) == whole.map { $0.now?.id } && answers.map(\.nextID) == whole.map { $0.next?.id })
        #expect(answers.map { $0.now?.programme.title } == ["Doctor Who", nil, nil])
        #expect(answers.map { $0.next?.programme.title } == [nil, "ニュース７", nil])
        #expect(answers.map(\.holdsUntil) == whole.map(\.holdsUntil))
    }

    /// Two programmes at the same start and stop on one channel, as a real guide has (Rick7C2's WWE Network): the
    /// later in the guide is on now and the earlier is next, on either store, whatever order their titles came in.
    /// SQLite's schedule had ordered them by title (`bench answers` found it).
    @Test func ofTwoProgrammesAtOnceTheLaterInTheGuideIsOnNow() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([
            ("a", "20240101180000", "20240101190000", "Total Divas"),
            ("a", "20240101190000", "20240101200000", "205 Live"),
            ("a", "20240101190000", "20240101200000", "Total Divas"),
            ("a", "20240101200000", "20240101210000", "WWE Countdown"),
        ], channels: ["a"]))
        let window = TimeWindow(start: StoreFixture.date("20240101180000"), end: StoreFixture.date("20240101210000"))
        #expect(try await fixture.store.programmes(on: ChannelID("a"), in: window).map(\.programme.title)
                == ["Total Divas", "205 Live", "Total Divas", "WWE Countdown"])
        let before = try await fixture.store.nowNext(at: StoreFixture.date("20240101183000"), channels: nil)
        #expect(before.first?.next?.programme.title == "205 Live")
        let during = try await fixture.store.nowNext(at: StoreFixture.date("20240101193000"), channels: nil)
        #expect(during.first?.now?.programme.title == "Total Divas")
        #expect(during.first?.now?.programme.start == StoreFixture.date("20240101190000"))
        #expect(during.first?.next?.programme.title == "WWE Countdown")
    }

    @Test func windowIncludesProgrammesCrossingItsEdges() async throws {
        let store = try await Self.guide().store
        let window = TimeWindow(start: StoreFixture.date("20240101182000"), end: StoreFixture.date("20240101190000"))
        #expect(try await store.programmes(on: ChannelID("a"), in: window).map(\.programme.title)
                == ["Früh News", "Weather", "Doctor Who"])
    }

    /// Which channels a feed for some hours lists: those with a programme overlapping them, in the order asked, by
    /// the grid's own window rule (a programme crossing an edge counts); an unknown channel is not listed.
    @Test func channelsListedInAWindowAreThoseWithAProgrammeInIt() async throws {
        let store = try await Self.guide().store
        let channels = ["c", "b", "a", "nowhere"].map { ChannelID($0) }
        func listed(_ from: String, _ to: String) async throws -> [String] {
            try await store.listedChannels(channels, in: TimeWindow(start: StoreFixture.date(from), end: StoreFixture.date(to))).map(\.rawValue)
        }
        #expect(try await listed("20240101180000", "20240101183000") == ["b", "a"])
        #expect(try await listed("20240101193000", "20240101200000") == ["a"], "b has nothing from 19:30 to 20:00")
        #expect(try await listed("20240101185959", "20240101190001") == ["b", "a"])
        #expect(try await listed("20240101200000", "20240101203000") == ["b"])
        #expect(try await listed("20240102000000", "20240103000000") == [])
    }

    @Test func coverageIsFirstStartToLastStop() async throws {
        let coverage = try #require(try await Self.guide().store.coverage())
        #expect(coverage == TimeWindow(start: StoreFixture.date("20240101170000"), end: StoreFixture.date("20240101210000")))
        #expect(try await StoreFixture().store.coverage() == nil)
    }

    @Test(arguments: [
        (["doctor"], ["Doctor Who", "Doctor Foster"]),
        (["DOCTOR", "who"], ["Doctor Who"]),
        (["who doctor"], ["Doctor Who"]),
        (["cafe"], ["Café Society"]),
        (["FRUH"], ["Früh News"]),
        (["octo"], ["Doctor Who", "Doctor Foster"]),
        (["ニュース"], ["ニュース７"]),
        (["ース"], ["ニュース７"]),
        (["w"], ["Früh News", "Weather", "Doctor Who"]),
        (["doctor", "nobody"], []),
    ] as [([String], [String])])
    func searchFindsTitlesHoldingEveryTerm(terms: [String], titles: [String]) async throws {
        let results = try await Self.guide().store.search(SearchQuery(terms))
        #expect(results.map(\.programme.title) == titles)
    }

    @Test func searchCanLookInDescriptions() async throws {
        let store = try await Self.guide().store
        #expect(try await store.search(SearchQuery(["about", "film"], scope: .title)).isEmpty)
        #expect(try await store.search(SearchQuery(["about", "film"], scope: .all)).map(\.programme.title) == ["The Big Film"])
    }

    /// The trigram indexes say only which texts hold each trigram of a term (v37): "ratio, opinion" holds "tio" and
    /// "ion" but not "tion", and is not found. A term's quotes are text, not the index's query language.
    @Test func aTextHoldingATermsTrigramsApartIsNotFound() async throws {
        let fixture = try await StoreFixture()
        try await fixture.importXML(StoreFixture.xml([
            ("a", "20240101180000", "20240101183000", "Ratio, Opinion"),
            ("a", "20240101183000", "20240101190000", "A Nation"),
            ("a", "20240101190000", "20240101200000", "Say \"Hi\" Now"),
        ], channels: ["a"]))
        func titles(_ terms: [String], _ scope: SearchQuery.Scope) async throws -> [String] {
            try await fixture.store.search(SearchQuery(terms, scope: scope)).map(\.programme.title)
        }
        for scope in SearchQuery.Scope.allCases {
            #expect(try await titles(["tion"], scope) == ["A Nation"])
            #expect(try await titles(["\"hi\""], scope) == ["Say \"Hi\" Now"])
            #expect(try await titles(["hi\"", "\"say"], scope).isEmpty)
        }
        #expect(try await titles(["about ratio", "opinion"], .all) == ["Ratio, Opinion"])
    }

    @Test func searchHonoursTheLimitInStartOrder() async throws {
        let results = try await Self.guide().store.search(SearchQuery(["o"], limit: 2))
        #expect(results.map(\.programme.title) == ["Doctor Who", "Café Society"])
    }
}
