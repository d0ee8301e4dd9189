import Foundation
import GuideHTTP
import StoreTestSupport
import Testing
import TestReceivers

/// The one JSON call, against a real HTTP server on loopback: an answer decoded, and each way a call fails told apart.
@Suite struct JSONCallTests {
    struct Status: Decodable, Equatable { var code: Int }

    @Test func eachWayACallEndsIsToldApart() async throws {
        let receiver = try await Receiver()
        defer { Task { try? await receiver.stop() } }
        receiver.answer("/ok", json: #"{"code":7}"#)
        receiver.answer("/broken", with: [503])
        receiver.answer("/broken", json: #"{"error":"down for maintenance"}"#)
        receiver.answer("/html", json: "<html>not json</html>")
        receiver.answer("/large", json: "[" + Array(repeating: "1", count: 600).joined(separator: ",") + "]")
        receiver.trickle("/slow")
        // A deadline a loaded machine meets (a full parallel run once took 2 s for a loopback answer); the trickle's is 2 s.
        let call = JSONCall(transport: TestHTTP.outbound, largest: 1_000, deadline: .seconds(30))

        #expect(try await call.decode(Status.self, "GET", receiver.url("/ok")) == Status(code: 7))
        // A form is sent encoded, with its type.
        _ = try await call.send("POST", receiver.url("/ok"), body: .form([("name", "a b&c")]))
        let posted = try #require(receiver.requests(to: "/ok").last)
        #expect(String(decoding: posted.body, as: UTF8.self) == "name=a%20b%26c" && posted.headers["content-type"] == "application/x-www-form-urlencoded")

        func failure(_ path: String, _ address: String? = nil, largest: Int = 1_000, deadline: Duration = .seconds(30)) async -> JSONCall.Failure? {
            do {
                var bounded = call
                (bounded.largest, bounded.deadline) = (largest, deadline)
                _ = try await bounded.decode(Status.self, "GET", address ?? receiver.url(path))
                return nil
            } catch {
                return error
            }
        }
        guard case .status(503, let answer) = await failure("/broken") else { Issue.record("a 503 is a status"); return }
        #expect(answer.contains("down for maintenance"))
        guard case .undecodable = await failure("/html") else { Issue.record("not JSON is undecodable"); return }
        guard case .tooLarge(limit: 1_000) = await failure("/large") else { Issue.record("past its bound is too large"); return }
        guard case .notAnAddress = await failure("", "file:///etc/passwd") else { Issue.record("only http(s)"); return }
        // The head at once (4 KB to come), then a byte a second: the deadline holds for the whole answer.
        let started = ContinuousClock.now
        guard case .timedOut = await failure("/slow", largest: 1 << 20, deadline: .seconds(2)) else { Issue.record("a trickle past the deadline times out"); return }
        #expect(ContinuousClock.now - started < .seconds(10))
        // An exchange takes any status with its words (Schedules Direct's codes ride on errors); a cut answer keeps its start.
        let broken = try await call.exchange("GET", receiver.url("/broken"))
        #expect(broken.status == 503 && String(decoding: broken.body, as: UTF8.self).contains("down for maintenance"))
        var cutting = call
        cutting.cutsLongAnswers = true
        let cut = try await cutting.exchange("GET", receiver.url("/large"))
        #expect(cut.status == 200 && cut.body.count == 1_000 && cut.body.starts(with: Data("[1,1,".utf8)))
        // The outbound policy's refusal comes through as one: the tests' policy allows loopback only.
        guard case .refused = await failure("", "http://10.0.0.1/status") else { Issue.record("a private address is refused"); return }
    }

    /// A key stays with the origin it was given for (issue 43, point 4): a recorder, a media server or a tuner that
    /// answers with a redirect to another origin gets the call followed there without its keys, tokens or challenge
    /// answer, whatever their header's name; a redirect on the same origin keeps them; a POST's redirect is its answer.
    /// Before, the transport followed the redirect and an Emby recorder's `X-Emby-Token` reached the other origin.
    @Test(arguments: [TestHTTP.transport as any HTTPTransport, TestHTTP.outbound])
    func credentialsNeverFollowARedirectToAnotherOrigin(transport: any HTTPTransport) async throws {
        let home = try await Receiver(), elsewhere = try await Receiver()
        defer { Task { try? await home.stop(); try? await elsewhere.stop() } }
        elsewhere.answer("/landing", json: #"{"code":1}"#)
        home.answer("/landing", json: #"{"code":2}"#)
        home.redirect("/away", to: elsewhere.url("/landing"))
        home.redirect("/here", to: "/landing", status: 307)
        home.respond("/guarded") { request in
            request.headers["authorization"] == nil
                ? .init(status: 401, json: "{}", headers: [("WWW-Authenticate", #"Digest realm="tuner", nonce="abc", qop="auth""#)])
                : .init(status: 302, json: "{}", headers: [("Location", elsewhere.url("/landing"))])
        }
        let call = JSONCall(transport: transport, credentials: HTTPCredentials(username: "admin", password: "secret"),
                            headers: [("X-Emby-Token", "emby-key"), ("token", "sd-token")], largest: 1_000, deadline: .seconds(10))
        let keyHeaders = ["x-emby-token", "token", "x-plex-token", "authorization", "cookie"]

        #expect(try await call.decode(Status.self, "GET", home.url("/away"), headers: [("X-Plex-Token", "plex-key"), ("Cookie", "a=b")]) == Status(code: 1))
        #expect(try await call.decode(Status.self, "GET", home.url("/guarded")) == Status(code: 1))
        let landed = elsewhere.requests(to: "/landing")
        #expect(landed.count == 2)
        for request in landed {
            #expect(keyHeaders.allSatisfy { request.headers[$0] == nil }, "\(request.headers)")
            #expect(request.headers["accept"] == "application/json" && request.headers["user-agent"]?.hasPrefix("tvguide/") == true)
        }
        // The challenge was answered at home, where it was asked.
        #expect(home.requests(to: "/guarded").last?.headers["authorization"]?.hasPrefix("Digest ") == true)
        // On the same origin the keys go on.
        #expect(try await call.decode(Status.self, "GET", home.url("/here")) == Status(code: 2))
        #expect(home.requests(to: "/landing").last?.headers["x-emby-token"] == "emby-key")
        // A POST is not sent on: its redirect is its answer, its body (a sign-in's password) goes nowhere else.
        let posted = try await call.exchange("POST", home.url("/away"), body: .json(Data(#"{"password":"p"}"#.utf8)))
        #expect(posted.status == 302 && elsewhere.requests(to: "/landing").count == 2)
    }
}
