import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideReminders
import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import StoreTestSupport
import TestReceivers
import TVMazeReplay
import Testing

/// What a viewer or a listings file names is reached only where the outbound policy allows (issue 27, point 2): every
/// kind of delivery channel and the channels' logos, on the default policy (public addresses only), and the same
/// receivers reached once the admin allows loopback.
@Suite struct OutboundRequestTests {
    /// The server with the default outbound policy (``OutboundPolicy/external``) for reminders and logos.
    static func external(_ services: inout GuideServices.Parts, folder: String, store: any GuideDatabase) {
        let external = PolicedTransport(policy: .external, connectTimeout: .seconds(1))
        services.reminders = ReminderDispatcher(store: store, senders: ReminderSenders(transport: external, push: services.reminders.senders.push),
                                                clock: ContinuousClock(), now: services.settings.now)
        services.logos = ImageCache(directory: folder + "/logos-external", listingsThrough: external, largest: 64 * 1024, now: services.settings.now)
        services.outbound = external
    }

    /// The targets of the issue: loopback, a private and a link-local address, IPv6 loopback and a name for loopback.
    static func refusedTargets(_ receiver: Receiver) -> [String] {
        ["http://127.0.0.1:\(receiver.port)/hook", "http://10.0.0.1/hook", "http://169.254.169.254/latest/meta-data/",
         "http://[::1]:\(receiver.port)/hook", "http://localhost:\(receiver.port)/hook"]
    }

    @Test func deliveryChannelsAreRefusedWhereThePolicyDoesNotReach() async throws {
        let server = try await TestServer(listings: RemindersPagesTests.listings, now: RemindersPagesTests.now)
        let receiver = try await Receiver()
        try await server.run(.router, change: { Self.external(&$0, folder: server.folder, store: server.store) }) { client in
            let jar = try await AccountTests.admin(client)
            let profile = try #require(try await server.store.profiles().first)
            for target in Self.refusedTargets(receiver) {
                for kind in ["webhook", "ntfy"] {
                    let added = try await jar.send(client, "/reminders/channels", method: .post, form: ["kind": kind, "name": "Home", "target": target])
                    #expect(added.status == .badRequest, "\(kind) at \(target)")
                    #expect(String(buffer: added.body).contains("refused by this server&#39;s outbound rules")
                            || String(buffer: added.body).contains("refused by this server's outbound rules"), "\(kind) at \(target)")
                }
            }
            #expect(try await server.store.deliveryChannels(of: profile.id).isEmpty)
            // A channel kept from before (when the admin allowed loopback) is refused at the send, and the viewer is
            // told only that: not whether a port is open, nor what answered.
            for target in Self.refusedTargets(receiver) {
                let channel = try await server.store.addDeliveryChannel(NewDeliveryChannel(profile: profile.id, kind: .webhook, name: "Old",
                                                                                           target: target, secret: nil), at: RemindersPagesTests.now)
                let tested = try await jar.send(client, "/reminders/channels/\(channel.id.rawValue)/test", method: .post, form: [:])
                #expect(tested.headers[.location]?.removingPercentEncoding == "/reminders?done=The test did not arrive: refused by this server's outbound rules",
                        "\(target)")
                try await server.store.removeDeliveryChannel(channel.id, of: profile.id)
                server.advance(by: 61)  // past the test sends' limit, a few a minute
            }
            #expect(receiver.requests.isEmpty, "nothing reached the receiver")
        }
        try await receiver.stop()
    }

    @Test func webPushEndpointsAreHTTPSOnly() async throws {
        let senders = ReminderSenders(transport: TestHTTP.outbound)
        let keys = #"{"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM", "auth": "tBHItJI5svbpez7KI4CCXg"}"#
        #expect(senders.problem(kind: .ntfy, target: "https://ntfy.sh/tv", secret: nil) == nil)
        for endpoint in ["http://127.0.0.1:9/push", "http://push.example.org/x", "ftp://push.example.org/x"] {
            let push = ReminderSenders(transport: TestHTTP.outbound, push: VAPIDKey(store: try await Self.scratchStore(), subject: "mailto:a@b.c",
                                                                                   now: { RemindersPagesTests.now }))
            #expect(push.problem(kind: .webPush, target: endpoint, secret: keys)?.description == "a push endpoint is an https URL", "\(endpoint)")
        }
    }

    static func scratchStore() async throws -> any GuideDatabase {
        try await TestDatabase.open(in: TestScratch.folder("tvguide-push"))
    }

    @Test func testSendsAreLimitedPerProfile() async throws {
        let server = try await TestServer(listings: RemindersPagesTests.listings, now: RemindersPagesTests.now)
        let receiver = try await Receiver()
        try await server.run { client in
            let jar = try await AccountTests.admin(client)
            #expect(try await jar.send(client, "/reminders/channels", method: .post,
                                       form: ["kind": "webhook", "name": "Home", "target": receiver.url("/hook")]).status == .seeOther)
            let profile = try #require(try await server.store.profiles().first)
            let channel = try #require(try await server.store.deliveryChannels(of: profile.id).first)
            var statuses: [HTTPResponse.Status] = []
            var retryAfter: String?
            for _ in 0..<30 {
                let tested = try await jar.send(client, "/reminders/channels/\(channel.id.rawValue)/test", method: .post, form: [:])
                statuses.append(tested.status)
                retryAfter = retryAfter ?? tested.headers[.retryAfter]
            }
            #expect(statuses.filter { $0 == .seeOther }.count == 3 && statuses.filter { $0 == .tooManyRequests }.count == 27)
            #expect(retryAfter.flatMap { Int($0) }.map { (1...60).contains($0) } == true)
            #expect(receiver.requests(to: "/hook").count == 3)
        }
        try await receiver.stop()
    }

    /// A playlist is somebody else's file: the guides its header names are offered only when they are http(s)
    /// addresses the policy allows; never a file on this server (issue 27, point 6).
    @Test func aPlaylistOffersOnlyAddressesThePolicyAllows() async throws {
        let server = try await TestServer(listings: PlaylistSourceTests.listings, now: PlaylistSourceTests.now)
        let path = server.folder + "/iptv.m3u"
        try FileManager.default.createDirectory(atPath: server.folder, withIntermediateDirectories: true)
        let guides = ["file:///etc/passwd", "/var/lib/tvguide/guide.sqlite", "http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:9/epg.xml",
                      "http://10.0.0.1/epg.xml", "ftp://guide.example/epg.xml", "https://user:pw@guide.example/epg.xml", "https://guide.example/epg.xml.gz"]
        try ("#EXTM3U x-tvg-url=\"\(guides.joined(separator: ","))\"\n#EXTINF:-1 tvg-id=\"bbc1.uk\",BBC One\nhttps://streams.example/bbc1.m3u8\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        try await server.store.addSource(SourceDefinition(name: SourceName("iptv"), format: .m3u, location: path))
        _ = try await server.scheduler.refresh([SourceName("iptv")])
        #expect(try await server.store.playlistHeader(of: SourceName("iptv"))?.guideURLs == guides, "the header is kept as it was")
        try await server.run(.router, change: { Self.external(&$0, folder: server.folder, store: server.store) }) { client in
            let admin = try await AccountTests.admin(client)
            let page = String(buffer: try await admin.send(client, "/admin/source?name=iptv").body)
            let offered = page.matches(of: /<code>([^<]*)<\/code>/).map { String($0.output.1) }.filter { guides.contains($0) }
            #expect(offered == ["https://guide.example/epg.xml.gz"], "\(offered)")
        }
    }

    /// A logo the listings name at an address the policy refuses is never fetched, directly or through a redirect, and
    /// the refusal is remembered: page views do not ask again.
    @Test func logosAreFetchedOnlyWhereThePolicyReaches() async throws {
        let host = try await ReplayServer()
        let inside = try await Receiver()
        let listings = "<tv>" + [("loop", "http://127.0.0.1:\(inside.port)/cam.png"), ("meta", "http://169.254.169.254/latest/x.png"),
                                 ("lan", "http://10.0.0.1/snapshot.png"), ("name", "http://localhost:\(inside.port)/cam.png"),
                                 ("v6", "http://[::1]:\(inside.port)/cam.png")].map { id, icon in
            #"<channel id="\#(id)"><display-name>\#(id)</display-name><icon src="\#(icon)"/></channel>"#
        }.joined() + "</tv>"
        let server = try await TestServer(listings: listings, now: PlaylistSourceTests.now)
        try await server.run(.router, change: { Self.external(&$0, folder: server.folder, store: server.store) }) { client in
            let found = try await TestServer.apiChannels(client)
            for id in ["loop", "meta", "lan", "name", "v6"] {
                let logo = try #require(found[id]?["logo"] as? String, "\(id)")
                for _ in 0..<3 { #expect(try await client.execute(uri: logo, method: .get).status == .notFound, "\(id)") }
            }
            #expect(inside.requests.isEmpty)
        }
        try await inside.stop()
        _ = host
    }
}
