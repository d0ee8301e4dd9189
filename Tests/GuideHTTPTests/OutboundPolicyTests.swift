import Foundation
import GuideCore
import GuideHTTP
import StoreTestSupport
import TestReceivers
import Testing

/// The outbound policy: which addresses a viewer's, a guest's or a listings file's address may lead to, checked on the
/// address connected to and on every redirect (issue 27, point 2). Nothing here sends a byte beyond loopback: a refused
/// address is refused before any connection.
@Suite struct OutboundPolicyTests {
    /// The addresses the issue names, and more of each kind.
    static let refused = ["127.0.0.1", "127.8.9.10", "10.0.0.1", "172.16.5.4", "192.168.1.10", "100.64.0.1", "169.254.169.254",
                          "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd00::5", "fc00::1", "ff02::1",
                          "::ffff:127.0.0.1", "::ffff:8.8.8.8", "64:ff9b::a00:1", "2002:a00:1::1", "fd00:ec2::254"]

    @Test(arguments: refused)
    func privateAndSpecialAddressesAreRefusedByDefault(address: String) throws {
        let bytes = try #require(OutboundPolicy.bytes(of: address))
        #expect(!OutboundPolicy.external.allows(bytes, host: address, port: 80), "\(address)")
    }

    @Test(arguments: ["8.8.8.8", "1.1.1.1", "151.101.1.1", "2606:4700:4700::1111", "2a00:1450:4009:80b::200e"])
    func publicAddressesAreAllowed(address: String) throws {
        #expect(OutboundPolicy.external.allows(try #require(OutboundPolicy.bytes(of: address)), host: address, port: 443))
    }

    @Test func theAdminAllowsNetworksHostsAndPorts() throws {
        let policy = try OutboundPolicy(parsing: "private, ha.lan, 192.168.1.10:8123, [fd00::7]:443")
        let lan = try #require(OutboundPolicy.bytes(of: "192.168.1.20")), metadata = try #require(OutboundPolicy.bytes(of: "169.254.169.254"))
        let loopback = try #require(OutboundPolicy.bytes(of: "127.0.0.1"))
        #expect(policy.allows(lan, host: "nas.lan", port: 80))
        #expect(!policy.allows(metadata, host: "169.254.169.254", port: 80), "private is not link-local")
        #expect(!policy.allows(loopback, host: "localhost", port: 80), "private is not loopback")
        #expect(policy.allows(loopback, host: "ha.lan", port: 8123), "a host the admin named, whatever it resolves to")
        #expect(try OutboundPolicy(parsing: "192.168.1.10:8123").allows(try #require(OutboundPolicy.bytes(of: "192.168.1.10")), host: "x", port: 8123))
        #expect(!(try OutboundPolicy(parsing: "192.168.1.10:8123")).allows(try #require(OutboundPolicy.bytes(of: "192.168.1.10")), host: "x", port: 22))
        #expect(try OutboundPolicy(parsing: "loopback").allows(loopback, host: "localhost", port: 9))
        #expect(try OutboundPolicy(parsing: "*").allows(metadata, host: "x", port: 80))
        #expect(policy.written == "private, ha.lan, 192.168.1.10:8123, [fd00::7]:443")
        #expect(try OutboundPolicy(parsing: "").written == "external")
        for bad in ["http://x", "a b", "host:99999", "host:-1", "[::1", "host:9223372036854775807", "host:1e308", "host:nan", "ha..lan"] {
            #expect(throws: OutboundPolicyError.self, "\(bad)") { try OutboundPolicy(parsing: bad) }
        }
    }

    /// Each refused address, written as an address or as a name that resolves to loopback, is refused before anything
    /// is sent; through a redirect from an allowed receiver too.
    @Test func refusedAddressesAreNeverConnectedToNorRedirectedTo() async throws {
        let receiver = try await Receiver()
        let elsewhere = try await Receiver()
        // Only the first receiver's port is allowed: the admin named it.
        // Refusals come before any connection; the timeout only bounds reaching the allowed receiver, which on loaded
        // cores (CI beside a build) can take more than a second.
        let transport = PolicedTransport(policy: try OutboundPolicy(parsing: "127.0.0.1:\(receiver.port)"), connectTimeout: .seconds(15))
        let targets = ["http://127.0.0.1:\(elsewhere.port)/x", "http://10.0.0.1/x", "http://169.254.169.254/latest/meta-data/",
                       "http://[::1]:\(elsewhere.port)/x", "http://localhost:\(elsewhere.port)/x", "ftp://127.0.0.1/x",
                       "http://user:pass@127.0.0.1:\(receiver.port)/x"]
        for target in targets {
            await #expect(throws: OutboundRefusal.self, "\(target)") {
                _ = try await transport.get(try #require(URL(string: target)), headers: [])
            }
            receiver.redirect("/hop", to: target)
            await #expect(throws: OutboundRefusal.self, "redirect to \(target)") {
                _ = try await transport.get(try #require(URL(string: receiver.url("/hop"))), headers: [])
            }
        }
        #expect(elsewhere.requests.isEmpty)
        // What the admin allowed is fetched, and a redirect within it followed.
        receiver.redirect("/hop", to: "/image")
        let reply = try await transport.get(try #require(URL(string: receiver.url("/hop"))), headers: [])
        #expect(reply.status == 200)
        while try await reply.next() != nil {}
        #expect(receiver.requests.map(\.path).suffix(2) == ["/hop", "/image"])
        // A POST's redirect is its answer: the body goes nowhere else.
        receiver.redirect("/post", to: receiver.url("/image"), status: 307)
        let posted = try await transport.send("POST", try #require(URL(string: receiver.url("/post"))), headers: [], body: Data("secret".utf8))
        #expect(posted.status == 307)
        #expect(receiver.requests(to: "/image").count == 1)
        // More than 5 redirects are refused.
        receiver.redirect("/loop", to: "/loop")
        await #expect(throws: OutboundRefusal.self) { _ = try await transport.get(try #require(URL(string: receiver.url("/loop"))), headers: []) }
        #expect(receiver.requests(to: "/loop").count == RedirectHop.most + 1)
        try await receiver.stop()
        try await elsewhere.stop()
    }

    /// A credential goes only where it was given: a redirect within the origin keeps it, one to another origin
    /// (another port is another origin) goes on without `Authorization`, `Cookie` or SD's `token`.
    @Test func credentialsAreNotSentOnToAnotherOrigin() async throws {
        let receiver = try await Receiver()
        let elsewhere = try await Receiver()
        let credentials = [("Authorization", "Basic dHY6Z3VpZGU="), ("Cookie", "a=b"), ("token", "f3fca79989ca"), ("Accept", "image/*")]
        receiver.redirect("/same", to: "/image")
        receiver.redirect("/away", to: elsewhere.url("/image"))
        for path in ["/same", "/away"] {
            let reply = try await TestHTTP.outbound.get(try #require(URL(string: receiver.url(path))), headers: credentials)
            while try await reply.next() != nil {}
        }
        let kept = try #require(receiver.requests(to: "/image").first)
        #expect(kept.headers["authorization"] != nil && kept.headers["cookie"] == "a=b" && kept.headers["token"] != nil)
        let away = try #require(elsewhere.requests(to: "/image").first)
        #expect(away.headers["authorization"] == nil && away.headers["cookie"] == nil && away.headers["token"] == nil)
        #expect(away.headers["accept"] == "image/*")
        try await receiver.stop()
        try await elsewhere.stop()
    }

    @Test func aNameIsCheckedByTheAddressItResolvesTo() async throws {
        let receiver = try await Receiver()
        let url = try #require(URL(string: "http://localhost:\(receiver.port)/x"))
        await #expect(throws: OutboundRefusal.self) { _ = try await PolicedTransport(policy: .external).check(url) }
        // Allowed as loopback, it connects to the address it checked.
        let allowed = try await PolicedTransport(policy: OutboundPolicy(allowances: [.loopback])).check(url)
        #expect(OutboundPolicy.classify(allowed) == .loopback)
        let reply = try await TestHTTP.outbound.get(url, headers: [])
        #expect(reply.status == 200 && receiver.requests(to: "/x").first?.headers["host"] == "localhost:\(receiver.port)")
        try await receiver.stop()
    }
}
