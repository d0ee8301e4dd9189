import Foundation
import GuideCore
import GuideIngest
import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Every API route through Hummingbird's test client, on a real SQLite store.
@Suite struct APITests {
    /// Two channels and a third with nothing on, around 2024-01-01 18:00 UTC.
    static let listings = """
        <?xml version="1.0" encoding="UTF-8"?>
        <tv>
          <channel id="one.uk"><display-name>One</display-name><icon src="https://example.org/one.png"/></channel>
          <channel id="two.uk"><display-name>Two</display-name></channel>
          <channel id="three.uk"><display-name>Three</display-name></channel>
          <programme channel="one.uk" start="20240101170000 +0000" stop="20240101183000 +0000"><title>Early Film</title></programme>
          <programme channel="one.uk" start="20240101183000 +0000" stop="20240101190000 +0000">
            <title>Doctor Who</title><sub-title>The Giggle</sub-title><desc>The Toymaker returns.</desc>
            <category>Drama</category><episode-num system="xmltv_ns">0.4.</episode-num>
          </programme>
          <programme channel="one.uk" start="20240101190000 +0000" stop="20240101200000 +0000"><title>News at Seven</title></programme>
          <programme channel="two.uk" start="20240101180000 +0000" stop="20240101200000 +0000"><title>Café Society</title></programme>
        </tv>
        """

    static func withAPI(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let server = try await TestServer(listings: listings, now: Date(timeIntervalSince1970: 1_704_131_100))  // 2024-01-01 17:45 UTC
        try await server.run(body)
    }

    static func json(_ response: TestResponse) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8), options: [.fragmentsAllowed])
    }

    /// A 4xx whose JSON body says what went wrong, containing `words`.
    static func expectError(_ response: TestResponse, _ status: HTTPResponse.Status, saying words: String,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(response.status == status, sourceLocation: sourceLocation)
        let body = try #require(try json(response) as? [String: Any], sourceLocation: sourceLocation)
        let message = (body["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains(words), "\(message)", sourceLocation: sourceLocation)
    }

    @Test func channelsInGuideOrder() async throws {
        try await Self.withAPI { client in
            try await client.execute(uri: "/api/channels", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let channels = try #require(try Self.json(response) as? [[String: Any]])
                #expect(channels.map { $0["id"] as? String } == ["one.uk", "two.uk", "three.uk"])
                #expect(channels.first?["icon"] as? String == "https://example.org/one.png")
            }
        }
    }

    @Test func guideWindowIncludesProgrammesCrossingItsEdges() async throws {
        try await Self.withAPI { client in
            let uri = "/api/guide?from=2024-01-01T18:00:00Z&to=2024-01-01T19:00:00Z&channels=two.uk,one.uk"
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                let guide = try #require(try Self.json(response) as? [String: Any])
                #expect(guide["from"] as? String == "2024-01-01T18:00:00Z")
                let rows = try #require(guide["channels"] as? [[String: Any]])
                #expect(rows.map { ($0["channel"] as? [String: Any])?["id"] as? String } == ["two.uk", "one.uk"])
                let titles = rows.map { ($0["programmes"] as? [[String: Any]] ?? []).map { $0["title"] as? String ?? "" } }
                #expect(titles == [["Café Society"], ["Early Film", "Doctor Who"]])
                let doctor = try #require((rows[1]["programmes"] as? [[String: Any]])?.last)
                #expect(doctor["start"] as? String == "2024-01-01T18:30:00Z")
                #expect(doctor["subTitle"] as? String == "The Giggle")
                // A summary: what a grid shows; the description is one GET /api/programmes/ID away.
                #expect(doctor["episode"] as? String == "S1 E5")
                #expect(doctor["categories"] as? [String] == ["Drama"])
                #expect(doctor["description"] == nil)
                #expect(Set(doctor.keys).isSubset(of: ["categories", "channel", "episode", "id", "isNew", "isPremiere", "isRepeat",
                                                       "start", "stop", "subTitle", "title"]))
            }
        }
    }

    @Test func guideRefusesBadWindowsAndChannels() async throws {
        try await Self.withAPI { client in
            try await client.execute(uri: "/api/guide?from=2024-01-01T19:00:00Z&to=2024-01-01T18:00:00Z", method: .get) {
                try Self.expectError($0, .badRequest, saying: "must be after")
            }
            try await client.execute(uri: "/api/guide?from=2024-01-01T00:00:00Z&to=2024-01-10T00:00:00Z", method: .get) {
                try Self.expectError($0, .badRequest, saying: "48 hours at most")
            }
            try await client.execute(uri: "/api/guide?from=yesterday", method: .get) {
                try Self.expectError($0, .badRequest, saying: "ISO 8601")
            }
            try await client.execute(uri: "/api/guide?from=2024-01-01T18:00:00Z&channels=one.uk,nosuch.tv", method: .get) {
                try Self.expectError($0, .notFound, saying: "no channel nosuch.tv")
            }
            let many = (0...1_000).map { "c\($0)" }.joined(separator: ",")
            try await client.execute(uri: "/api/guide?channels=\(many)", method: .get) {
                try Self.expectError($0, .badRequest, saying: "at most 1000")
            }
        }
    }

    @Test func nowAndNextWithNullsForNothing() async throws {
        try await Self.withAPI { client in
            try await client.execute(uri: "/api/now?at=2024-01-01T18:45:00%2B00:00", method: .get) { response in
                #expect(response.status == .ok)
                let rows = try #require(try Self.json(response) as? [[String: Any]])
                #expect(rows.count == 3)
                #expect((rows[0]["now"] as? [String: Any])?["title"] as? String == "Doctor Who")
                #expect((rows[0]["next"] as? [String: Any])?["title"] as? String == "News at Seven")
                #expect(rows[2]["name"] as? String == "Three")
                #expect(rows[2]["now"] is NSNull && rows[2]["next"] is NSNull)
            }
            try await client.execute(uri: "/api/now?at=tonight", method: .get) {
                try Self.expectError($0, .badRequest, saying: "not a time")
            }
        }
    }

    @Test func nowAndNextKeptOnlyWhileTheyHold() async throws {
        // Kept answers (NowNextAnswers) must be what the store says at every instant asked, in any order: around
        // every start and stop, with a programme starting inside another (however the import repairs it), and after
        // an import changes the listings.
        let overlapping = Self.listings.replacingOccurrences(of: "</tv>", with: """
              <programme channel="two.uk" start="20240101185000 +0000" stop="20240101185500 +0000"><title>Flash</title></programme>
            </tv>
            """)
        let server = try await TestServer(listings: overlapping, now: Date(timeIntervalSince1970: 1_704_131_100))
        try await server.run { client in
            func titles(_ found: [NowNext]) -> [String?] { found.flatMap { [$0.now?.programme.title, $0.next?.programme.title] } }
            func expectAnswers(at instants: [Date]) async throws {
                for instant in instants {
                    let asked = CivilTime.iso8601(instant).replacingOccurrences(of: "+", with: "%2B")
                    let answered = try await client.execute(uri: "/api/now?at=\(asked)", method: .get) { response in
                        try #require(try Self.json(response) as? [[String: Any]]).flatMap {
                            [($0["now"] as? [String: Any])?["title"] as? String, ($0["next"] as? [String: Any])?["title"] as? String]
                        }
                    }
                    #expect(answered == titles(try await server.store.nowNext(at: instant, channels: nil)), "\(asked)")
                }
            }
            let minutes = [0, 29, 30, 45, 49, 50, 54, 55, 59, 60, 61, 119, 120]
            let instants = minutes.flatMap { minute in
                [-1, 0, 1].map { Date(timeIntervalSince1970: 1_704_132_000 + Double(minute * 60 + $0)) }  // from 18:00 UTC
            }
            try await expectAnswers(at: instants)
            try await expectAnswers(at: instants.reversed())
            try await expectAnswers(at: instants.shuffled() + [instants[10]])
            // 18:45, kept from just before, is asked again first.
            try await server.importListings("""
                <tv><programme channel="one.uk" start="20240101183000 +0000" stop="20240101190000 +0000"><title>Doctor Who Special</title></programme></tv>
                """, as: "test")
            try await expectAnswers(at: [instants[10]] + instants)
            #expect(try await server.store.nowNext(at: instants[10], channels: nil).first?.now?.programme.title == "Doctor Who Special")
        }
    }

    @Test func nowAndNextByThePage() async throws {
        try await Self.withAPI { client in
            let all = try await client.execute(uri: "/api/now?at=2024-01-01T18:45:00Z", method: .get) { response in
                try #require(try Self.json(response) as? [[String: Any]]).map { $0["channel"] as? String }
            }
            let pages = [("from=1&count=1", Array(all[1...1])), ("from=1", Array(all[1...])), ("count=2", Array(all[..<2])),
                         ("from=3&count=5", []), ("from=1000000&count=1000", []),
                         ("channels=\(all[2]!),\(all[0]!)&from=1&count=1", [all[0]])]
            for (page, expected) in pages {
                try await client.execute(uri: "/api/now?at=2024-01-01T18:45:00Z&" + page, method: .get) { response in
                    #expect(response.status == .ok, "\(page)")
                    let rows = try Self.json(response) as? [[String: Any]]
                    #expect(rows?.map { $0["channel"] as? String } == expected, "\(page)")
                }
            }
            for hostile in ["count=0", "count=1001", "count=-1", "from=-1", "from=1000001", "from=9223372036854775807",
                            "count=1e308", "count=nan"] {
                try await client.execute(uri: "/api/now?" + hostile, method: .get) { response in
                    #expect(response.status == .badRequest, "\(hostile)")
                }
            }
        }
    }

    @Test func programmeByIDAndItsErrors() async throws {
        try await Self.withAPI { client in
            let id = try await client.execute(uri: "/api/search?q=doctor", method: .get) { response in
                try #require((try Self.json(response) as? [[String: Any]])?.first?["id"] as? Int)
            }
            try await client.execute(uri: "/api/programmes/\(id)", method: .get) { response in
                #expect(response.status == .ok)
                let programme = try #require(try Self.json(response) as? [String: Any])
                #expect(programme["title"] as? String == "Doctor Who")
                #expect(programme["description"] as? String == "The Toymaker returns.")
                #expect(programme["channel"] as? String == "one.uk")
            }
            try await client.execute(uri: "/api/programmes/abc", method: .get) {
                try Self.expectError($0, .badRequest, saying: "not a programme id")
            }
            try await client.execute(uri: "/api/programmes/999999", method: .get) {
                try Self.expectError($0, .notFound, saying: "no programme 999999")
            }
        }
    }

    @Test func searchWithTermsScopeAndLimit() async throws {
        try await Self.withAPI { client in
            try await client.execute(uri: "/api/search?q=CAFE", method: .get) { response in
                let titles = (try Self.json(response) as? [[String: Any]])?.map { $0["title"] as? String }
                #expect(titles == ["Café Society"])
            }
            try await client.execute(uri: "/api/search?q=toymaker&in=all", method: .get) { response in
                let titles = (try Self.json(response) as? [[String: Any]])?.map { $0["title"] as? String }
                #expect(titles == ["Doctor Who"])
            }
            try await client.execute(uri: "/api/search", method: .get) { try Self.expectError($0, .badRequest, saying: "needs q") }
            try await client.execute(uri: "/api/search?q=who&in=everywhere", method: .get) {
                try Self.expectError($0, .badRequest, saying: "title or all")
            }
            try await client.execute(uri: "/api/search?q=who&limit=0", method: .get) {
                try Self.expectError($0, .badRequest, saying: "from 1 to 500")
            }
        }
    }

    @Test func coverageAndUnknownRoutes() async throws {
        try await Self.withAPI { client in
            try await client.execute(uri: "/api/coverage", method: .get) { response in
                let coverage = try #require(try Self.json(response) as? [String: Any])
                #expect(coverage["start"] as? String == "2024-01-01T17:00:00Z")
                #expect(coverage["end"] as? String == "2024-01-01T20:00:00Z")
            }
            try await client.execute(uri: "/api/nothing/here", method: .get) {
                try Self.expectError($0, .notFound, saying: "no API route")
            }
        }
    }

    @Test func securityHeadersOnAnswersAndErrors() async throws {
        try await Self.withAPI { client in
            for uri in ["/api/channels", "/api/programmes/abc"] {
                try await client.execute(uri: uri, method: .get) { response in
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"))
                    #expect(!policy.contains("unsafe-inline"))
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                }
            }
        }
    }
}

/// The OpenAPI document describes the routes the server has, and the fields a programme really carries.
@Suite struct OpenAPITests {
    @Test func everyDocumentedPathAnswersAndProgrammeFieldsAreDescribed() async throws {
        try await APITests.withAPI { client in
            let document = try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                return try #require(try APITests.json(response) as? [String: Any])
            }
            let paths = try #require(document["paths"] as? [String: Any])
            #expect(Set(paths.keys) == ["/api/channels", "/api/guide", "/api/now", "/api/programmes/{id}", "/api/search",
                                        "/api/coverage", "/api/lineup", "/api/imports", "/api/sources", "/api/health", "/api/refresh",
                                        "/api/reminders", "/api/reminders/{id}", "/api/delivery-channels", "/api/delivery-channels/{id}",
                                        "/api/delivery-channels/{id}/test", "/api/push-key", "/api/saved-searches", "/api/saved-searches/{id}",
                                        "/api/progress", "/api/shows/{id}/watched", "/api/history", "/api/history/import",
                                        "/api/tvmaze", "/api/tvmaze/sync"])
            let id = try await client.execute(uri: "/api/search?q=doctor", method: .get) { response in
                try #require((try APITests.json(response) as? [[String: Any]])?.first?["id"] as? Int)
            }
            // Every open GET answers; those behind a token refuse a request without one, as documented.
            for (path, operations) in paths {
                let operations = operations as? [String: [String: Any]] ?? [:]
                for (method, operation) in operations where operation["security"] != nil {
                    let status = try await client.execute(uri: path, method: HTTPRequest.Method(method.uppercased()) ?? .get).status
                    #expect(status == .unauthorized, "\(method) \(path)")
                }
                guard let get = operations["get"], get["security"] == nil else { continue }
                let uri = path.replacingOccurrences(of: "{id}", with: "\(id)") + (path == "/api/search" ? "?q=who" : "")
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                }
            }
            let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
            let described = Set(((schemas["Programme"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]).keys)
            let programme = try await client.execute(uri: "/api/programmes/\(id)", method: .get) { response in
                try #require(try APITests.json(response) as? [String: Any])
            }
            #expect(Set(programme.keys).isSubset(of: described), "\(Set(programme.keys).subtracting(described))")
            // Every field a programme can have, present or not.
            let sample = ProgrammeDocument(Programme(channel: ChannelID("x"), start: Date(), titles: [LocalizedText("x")]))
            let fields = Set(Mirror(reflecting: sample).children.compactMap(\.label))
            #expect(fields == described, "undocumented: \(fields.subtracting(described)), gone: \(described.subtracting(fields))")
            // The guide window's and now/next's summaries: every key documented.
            let summary = Set(((schemas["ProgrammeSummary"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]).keys)
            let window = try await client.execute(uri: "/api/guide?from=2024-01-01T17:00:00Z&to=2024-01-01T21:00:00Z", method: .get) {
                try #require(try APITests.json($0) as? [String: Any])
            }
            for row in window["channels"] as? [[String: Any]] ?? [] {
                for programme in row["programmes"] as? [[String: Any]] ?? [] {
                    #expect(Set(programme.keys).isSubset(of: summary), "\(Set(programme.keys).subtracting(summary))")
                }
            }
            #expect(summary.contains("episode") && summary.contains("categories"))
        }
    }
}
