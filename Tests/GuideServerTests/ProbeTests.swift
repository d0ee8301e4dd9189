import Foundation
import GuideCore
@testable import GuideServer
import Hummingbird
import Logging
import Synchronization
import HummingbirdTesting
import Testing

/// `/healthz` and `/readyz` for service managers and containers, and `X-Request-Id` on every answer. On both stores.
@Suite struct ProbeTests {
    @Test func aliveReadyAndEveryAnswerHasItsRequestID() async throws {
        let server = try await TestServer(listings: PlaylistSourceTests.listings, now: PlaylistSourceTests.now)
        try await server.run(.live) { client in
            let alive = try await client.execute(uri: "/healthz", method: .get)
            #expect(alive.status == .ok && alive.headers[.cacheControl] == "no-store")
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .ok && String(buffer: ready.body).contains(#""status":"ready""#))
            var ids: Set<String> = []
            for path in ["/healthz", "/now", "/nowhere", "/api/programmes/x"] {
                let id = try #require(try await client.execute(uri: path, method: .get).headers[RequestLog<GuideRequestContext>.header], "\(path)")
                #expect(!id.isEmpty)
                ids.insert(id)
            }
            #expect(ids.count == 4, "one id a request")
        }
    }

    @Test func notReadyWithoutListings() async throws {
        let server = try await TestServer(listings: "<tv></tv>", now: PlaylistSourceTests.now)
        try await server.run { client in
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .serviceUnavailable && String(buffer: ready.body).contains("no listings yet"))
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }
}

/// `serve --log-format json`: one JSON object a line, with the request's id.
@Suite struct JSONLogLinesTests {
    @Test func eachEntryIsOneJSONObjectWithTheRequestsID() throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "tvguide") { JSONLogLines(label: $0, now: { Date() }) { line in lines.withLock { $0.append(line) } } }
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.info("request", metadata: ["path": "/xmltv/TOKEN.xml", "status": "200"])
        logger.debug("not at info")
        let written = lines.withLock { $0 }
        #expect(written.count == 1 && written[0].hasSuffix("}\n") && !written[0].dropLast().contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: String])
        #expect(object["request"] == "abc123" && object["message"] == "request" && object["level"] == "info" && object["label"] == "tvguide")
        #expect(object["path"] == "/xmltv/TOKEN.xml" && object["status"] == "200")
        #expect(object["time"]?.hasSuffix("Z") == true && object["time"]?.count == 24)
        // Secret feed addresses are logged without their token.
        #expect(RequestLog<GuideRequestContext>.shown("/xmltv/0123abcd.xml.gz") == "/xmltv/TOKEN.xml.gz")
        #expect(RequestLog<GuideRequestContext>.shown("/calendar/feedcafe.ics") == "/calendar/TOKEN.ics")
        #expect(RequestLog<GuideRequestContext>.shown("/now") == "/now")
    }
}
