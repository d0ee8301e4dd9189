import AsyncHTTPClient
import Foundation
import GuideCore
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// Sign-in as an attacker tries it, over a real loopback server: bursts that once were all checked, an attack that
/// once locked the owner out, bcrypt that once held up every page, names that once answered differently.
@Suite struct SignInAttackTests {
    /// A client that shows redirects instead of following them (the process's one; it lives as long as the tests).
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // A burst arrives at once, not 8 connections at a time.
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// A browser at `address` (sent as X-Forwarded-For through the loopback proxy the tests trust).
    struct Browser {
        let port: Int
        let address: String
        /// The guest's nonce cookie, and the form token the page gave with it.
        let nonce: String
        let csrf: String

        static func at(_ address: String, port: Int) async throws -> Browser {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/signin")
            request.headers.add(name: "X-Forwarded-For", value: address)
            let response = try await SignInAttackTests.http.execute(request, timeout: .seconds(60))
            let cookie = response.headers["set-cookie"].first { $0.hasPrefix("tvguide_csrf=") } ?? ""
            let nonce = cookie.dropFirst("tvguide_csrf=".count).prefix { $0 != ";" }
            let page = String(buffer: try await response.body.collect(upTo: 1 << 20))
            return Browser(port: port, address: address, nonce: String(nonce), csrf: CookieJar.formToken(in: page) ?? "")
        }

        /// Posts the sign-in form; the status, and Location and Retry-After when sent.
        func signIn(_ name: String, _ secret: String, next: String? = nil) async throws -> (status: Int, location: String?, retryAfter: String?) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/signin")
            request.method = .POST
            request.headers.add(name: "X-Forwarded-For", value: address)
            request.headers.add(name: "Cookie", value: "tvguide_csrf=\(nonce)")
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            var form = "csrf=\(csrf)&name=\(name)&secret=\(secret)"
            if let next { form += "&next=\(next)" }
            request.body = .bytes(ByteBuffer(string: form))
            let response = try await SignInAttackTests.http.execute(request, timeout: .seconds(60))
            _ = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), response.headers.first(name: "location"), response.headers.first(name: "retry-after"))
        }
    }

    /// A server whose admin Ada signs in with "correct horse", and a viewer Kid with PIN 2468.
    static func withProfiles(cost: UInt8 = 4, _ body: @escaping @Sendable (TestServer, Int) async throws -> Void) async throws {
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening, secretCost: cost)
        try await server.run(.live) { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/profiles", method: .post, form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            try await body(server, try #require(client.port))
        }
    }

    @Test func aBurstOfWrongTriesIsCheckedAtMostFiveTimes() async throws {
        try await Self.withProfiles { _, port in
            let attacker = try await Browser.at("127.0.0.2", port: port)
            // 40 wrong PINs at once: before, every one was checked and the count rose by one.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for guess in 0..<40 { group.addTask { try await attacker.signIn("Kid", String(format: "%04d", 3000 + guess)).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 401 }.count <= 5, "checked: \(statuses.filter { $0 == 401 }.count)")
            #expect(statuses.filter { $0 == 401 }.count + statuses.filter { $0 == 429 }.count == 40)
            // Even the right PIN is not checked from there now.
            let right = try await attacker.signIn("Kid", "2468")
            #expect(right.status == 429 && right.retryAfter != nil)
        }
    }

    @Test func theOwnerSignsInFromAnotherAddressDuringAnAttack() async throws {
        try await Self.withProfiles { _, port in
            let owner = try await Browser.at("127.0.0.3", port: port)
            #expect(try await owner.signIn("Kid", "2468").status == 303, "the owner's device signed in before")
            // An attack from one address, then from 60 addresses together (more than the name's shared count allows).
            let attacker = try await Browser.at("127.0.0.2", port: port)
            for guess in 0..<10 { _ = try await attacker.signIn("Kid", String(format: "%04d", guess)) }
            for host in 0..<60 {
                _ = try await Browser.at("10.0.\(host / 250).\(host % 250 + 1)", port: port).signIn("Kid", "1111")
            }
            let stranger = try await Browser.at("10.9.9.9", port: port)
            #expect(try await stranger.signIn("Kid", "2468").status == 429, "a new address waits while the name is attacked")
            // The owner's own address is not locked out by any of it.
            #expect(try await owner.signIn("Kid", "2468").status == 303)
            // Nor is the admin, whose name was not attacked, from a new address.
            let admin = try await Browser.at("127.0.0.4", port: port)
            #expect(try await admin.signIn("Ada", "correct%20horse").status == 303)
        }
    }

    @Test func unknownAndKnownNamesAnswerAlike() async throws {
        try await Self.withProfiles { _, port in
            let browser = try await Browser.at("127.0.0.5", port: port)
            var known: [(Int, String?)] = [], unknown: [(Int, String?)] = []
            for guess in 0..<7 {
                let a = try await browser.signIn("Kid", "99\(guess)9"), b = try await browser.signIn("Nobody", "99\(guess)9")
                known.append((a.status, a.retryAfter))
                unknown.append((b.status, b.retryAfter))
            }
            #expect(known.map(\.0) == unknown.map(\.0))
            #expect(known.map(\.1) == unknown.map(\.1))
            #expect(known.map(\.0) == [401, 401, 401, 401, 401, 429, 429])
        }
    }

    /// bcrypt on its own thread with a bounded queue: 50 sign-ins at a real cost never hold up the API.
    @Test func signInBurstsDoNotDelayTheAPI() async throws {
        try await Self.withProfiles(cost: 11) { _, port in
            var browsers: [Browser] = []
            for host in 0..<50 { browsers.append(try await Browser.at("10.1.0.\(host + 1)", port: port)) }
            let burst = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for browser in browsers {
                        group.addTask {
                            // 0: no answer within the sign-in's 60 s, which a machine running two suites at once has seen.
                            do {
                                return try await browser.signIn("Kid", "0000").status
                            } catch let error as HTTPClientError where error == .deadlineExceeded {
                                return 0
                            }
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            var took: [Duration] = []
            for _ in 0..<5 {
                let began = ContinuousClock.now
                do {
                    let response = try await SignInAttackTests.http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/now"),
                                                                            timeout: .seconds(30))
                    _ = try await response.body.collect(upTo: 1 << 22)
                    #expect(response.status == .ok)
                } catch let error as HTTPClientError where error == .deadlineExceeded {
                    // One answer that never came in 30 s is one slow answer: the median below judges, not one stall
                    // of a loaded machine (a release build beside the suite once held one for over 30 s).
                }
                took.append(ContinuousClock.now - began)
            }
            let statuses = try await burst.value
            // The middle of five: the suites beside this one load the same two cores, and a bound must not flake. With
            // bcrypt on the cooperative threads the API waited behind the queue (8 verifies at cost 11, several seconds);
            // on its own thread it takes at most a core, and a clean-clone run with builds beside it once answered in 1.4 s.
            #expect(took.sorted()[2] < .seconds(2), "/api/now took \(took) during the burst")
            // Whether some are turned away (429) depends on how fast they reach the queue: on a loaded machine the
            // tries' counting in the store spaced all 50 out (CI, 164 s). The queue's turning away is proven with it
            // held full, below.
            #expect(Set(statuses).isSubset(of: [0, 401, 429]) && statuses.filter { $0 == 0 }.count < 10, "\(statuses)")
        }
    }

    @Test func theHasherTurnsAwayWorkBeyondItsQueue() async throws {
        let hasher = SecretHasher(capacity: 3)
        let hash = try await hasher.hash("secret", cost: 4)
        // The queue held full on purpose (a verify at cost 4 takes a millisecond, so 12 at once may never overlap):
        // one piece running until let go, two waiting behind it.
        let gate = Gate()
        let held = (0..<3).map { _ in Task { try await hasher.lane.run { gate.waitUntilOpen() } } }
        while hasher.hasRoom { try await Task.sleep(for: .milliseconds(5)) }
        await #expect(throws: SecretHasher.Busy.self, "a fourth piece into a queue of 3") {
            try await hasher.verify("secret", hash: hash)
        }
        gate.open()
        for piece in held { try await piece.value }
        #expect(try await hasher.verify("secret", hash: hash), "room again once the queue drained")
    }

    /// A sign-in while the hasher's queue is full is turned away unchecked and uncounted, with when to try again;
    /// once the queue drains, the same try is checked.
    @Test func aSignInIntoAFullQueueIsTurnedAway() async throws {
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        let hasher = SecretHasher(capacity: 2)
        let accounts = Accounts(store: server.store, now: server.clock.guideClock.now, cost: 4, hasher: hasher)
        let gate = Gate()
        let held = (0..<2).map { _ in Task { try await hasher.lane.run { gate.waitUntilOpen() } } }
        while hasher.hasRoom { try await Task.sleep(for: .milliseconds(5)) }
        for _ in 0..<6 {
            guard case .busy(let retryAfter) = try await accounts.signIn(name: "Nobody", secret: "0000", from: "10.2.0.1") else {
                Issue.record("a sign-in into a full queue was checked")
                return
            }
            #expect(retryAfter == 2)
        }
        gate.open()
        for piece in held { try await piece.value }
        // Six turned away counted nothing: the address's first checked try still has its free tries.
        guard case .wrong(let triesLeft, nil) = try await accounts.signIn(name: "Nobody", secret: "0000", from: "10.2.0.1") else {
            Issue.record("the try after the queue drained was not checked as wrong")
            return
        }
        #expect(triesLeft == SignInThrottle().addressAndName.freeTries - 1)
    }

    /// Holds the hasher's lane: its work waits, on the lane's own thread, until the test opens it.
    private final class Gate: Sendable {
        private let isOpen = Mutex(false)
        func open() { isOpen.withLock { $0 = true } }
        func waitUntilOpen() { while !isOpen.withLock({ $0 }) { usleep(1_000) } }
    }

    @Test func signingInNeverLeadsOffTheSite() async throws {
        try await Self.withProfiles { _, port in
            let browser = try await Browser.at("127.0.0.6", port: port)
            for next in ["/%09/evil.example", "/%0d%0a/evil.example", "/%20/evil.example", "//evil.example", "/%5Cevil.example",
                         "https://evil.example", "/%E2%80%8B/evil.example"] {
                let result = try await browser.signIn("Ada", "correct%20horse", next: next)
                #expect(result.status == 303 && result.location == "/", "\(next) led to \(result.location ?? "nothing")")
            }
            #expect(try await browser.signIn("Ada", "correct%20horse", next: "/now%3Fpage%3D2").location == "/now?page=2")
        }
    }

    @Test func onlyOneSetupEverSucceeds() async throws {
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        try await server.run(.live) { client in
            let port = try #require(client.port)
            let browser = try await Browser.at("127.0.0.7", port: port)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/setup")
                        request.method = .POST
                        request.headers.add(name: "Cookie", value: "tvguide_csrf=\(browser.nonce)")
                        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                        request.body = .bytes(ByteBuffer(string: "csrf=\(browser.csrf)&code=\(TestServer.setupCode)&name=Admin\(index)&kind=pin&secret=1234"))
                        return Int(try await SignInAttackTests.http.execute(request, timeout: .seconds(30)).status.code)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 303 }.count == 1, "\(statuses)")
            #expect(try await server.store.profiles().count == 1)
        }
    }
}
