import BoxesReplay
import Foundation
import GuideCore
import GuideHTTP
import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import Testing

/// The presets for the boxes people have: a short form makes an ordinary source and fetches it. Tvheadend's export
/// behind its Digest challenge (a stand-in that checks the digest itself), an HDHomeRun's guide by its rotating key.
@Suite struct BoxPresetPagesTests {
    @Test func tvheadendsExportWithItsPasswordAnsweredToItsChallenge() async throws {
        let tvheadend = try await TvheadendStandIn()
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let page = String(buffer: try await admin.send(client, "/admin/boxes").body)
            #expect(page.contains("id=\"tvheadend-preset\"") && page.contains("id=\"hdhomerun-preset\""))
            for bad in ["http://x", "a b", "192.168.1.20:9981", "host/path", ""] {
                let refused = try await admin.send(client, "/admin/boxes/tvheadend", method: .post, form: ["name": "T", "host": bad])
                #expect(refused.status == .badRequest, "\(bad)")
            }
            #expect(try await server.store.sources().isEmpty)

            let added = try await admin.send(client, "/admin/boxes/tvheadend", method: .post,
                                             form: ["name": "Living room", "host": "127.0.0.1", "port": String(tvheadend.port),
                                                    "username": "tvguide", "password": "hunter2 & more"])
            #expect(String(buffer: added.body).contains("Added Living room (http://127.0.0.1:\(tvheadend.port)/xmltv/channels)"))
            // The preset fetched it at once.
            try await SourcePagesTests.settle(server)
            let status = try #require(try await server.store.sources().first { $0.definition.name.rawValue == "Living room" })
            #expect(status.lastOutcome == .imported, "\(status.lastError ?? "")")
            #expect(status.programmes == 5)
            // Asked without a password, challenged, then answered with the digest: the password itself never sent.
            let asked = tvheadend.requests
            #expect(asked.count >= 2 && asked.first?.headers["authorization"] == nil)
            #expect(asked.last?.headers["authorization"]?.hasPrefix("Digest username=\"tvguide\", realm=\"tvheadend\"") == true)
            #expect(!asked.contains { ($0.headers["authorization"] ?? "").contains("hunter2") })
            // Nor shown: the source's address has none.
            let sources = String(buffer: try await admin.send(client, "/admin/sources").body)
            #expect(!sources.contains("hunter2"))

            // A wrong password is the refresh's failure, saying so; the guide keeps what it had.
            try await server.store.setSourceCredentials(#"{"username":"tvguide","password":"wrong"}"#, of: SourceName("Living room"))
            let refused = try #require(try await server.scheduler.refresher.refresh([SourceName("Living room")]).first)
            #expect(refused.outcome == .failed)
            #expect(refused.error?.hasSuffix("answered 401: its user name or password was refused") == true, "\(refused.error ?? "")")
            // Removing the source forgets its password.
            try await server.store.removeSource(SourceName("Living room"))
            #expect(try await server.store.sourceCredentials(of: SourceName("Living room")) == nil)
        }
        try await tvheadend.stop()
    }

    @Test func anHDHomeRunsGuideFromItsPreset() async throws {
        let tuner = try await HDHomeRunStandIn(now: { Date() })
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening, hdhomerunGuideURL: tuner.guideBase)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let port = String(tuner.device.split(separator: ":").last ?? "")
            let added = String(buffer: try await admin.send(client, "/admin/boxes/hdhomerun", method: .post,
                                                            form: ["name": "Tuner", "host": "127.0.0.1", "port": port, "days": "1"]).body)
            #expect(added.contains("Added Tuner (http://127.0.0.1:\(port))"))
            try await SourcePagesTests.settle(server)
            let status = try #require(try await server.store.sources().first { $0.definition.name.rawValue == "Tuner" })
            #expect(status.lastOutcome == .imported, "\(status.lastError ?? "")")
            #expect(try await server.store.sourceChannels(of: SourceName("Tuner")).count == 6)
            #expect(tuner.requests(to: "/discover.json").count == 1)
        }
        try await tuner.stop()
    }

    @Test func credentialsAnswerTheRFCsExample() {
        // RFC 7616 section 3.9.1: the same request answered with MD5 and with SHA-256.
        let credentials = HTTPCredentials(username: "Mufasa", password: "Circle of Life")
        let challenge = #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=%@, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#
        let nonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
        let md5 = credentials.authorization(answering: challenge.replacingOccurrences(of: "%@", with: "MD5"), method: "GET",
                                            uri: "/dir/index.html", clientNonce: nonce)
        #expect(md5?.contains(#"response="8ca523f5e9506fed4657c9700eebdbec""#) == true, "\(md5 ?? "")")
        #expect(md5?.contains(#"opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#) == true)
        let sha = credentials.authorization(answering: challenge.replacingOccurrences(of: "%@", with: "SHA-256"), method: "GET",
                                            uri: "/dir/index.html", clientNonce: nonce)
        #expect(sha?.contains(#"response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1""#) == true)
        #expect(credentials.authorization(answering: #"Basic realm="x""#, method: "GET", uri: "/") == "Basic TXVmYXNhOkNpcmNsZSBvZiBMaWZl")
        #expect(credentials.authorization(answering: "Negotiate", method: "GET", uri: "/") == nil)
        #expect(credentials.authorization(answering: #"Digest realm="x", nonce="n", algorithm=SHA-512-256, qop="auth""#, method: "GET", uri: "/") == nil)
    }
}

/// An Enigma2 receiver's EPG from its preset: the bouquet found by name on the receiver (behind OpenWebif's Basic
/// authentication), its events imported with OpenWebif's HTML escapes read back and its placeholder left out.
@Suite struct Enigma2PresetTests {
    @Test func aReceiversBouquetEPGFromItsPreset() async throws {
        let receiver = try await OpenWebifStandIn(now: { Date() })
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let missing = try await admin.send(client, "/admin/boxes/enigma2", method: .post,
                                               form: ["host": "127.0.0.1", "port": String(receiver.port), "bouquet": "Sport",
                                                      "username": "root", "password": "dreambox"])
            #expect(missing.status == .badGateway)
            #expect(String(buffer: missing.body).contains("the receiver has no bouquet called Sport; it has Favourites (TV), News"))
            let refused = try await admin.send(client, "/admin/boxes/enigma2", method: .post,
                                               form: ["host": "127.0.0.1", "port": String(receiver.port)])
            #expect(String(buffer: refused.body).contains("answered 401: it needs a user name and password"))
            #expect(try await server.store.sources().isEmpty)

            let added = String(buffer: try await admin.send(client, "/admin/boxes/enigma2", method: .post,
                                                            form: ["host": "127.0.0.1", "port": String(receiver.port), "bouquet": "favourites (tv)",
                                                                   "username": "root", "password": "dreambox"]).body)
            #expect(added.contains("Added Enigma2 Favourites (TV)"), "\(added)")
            try await SourcePagesTests.settle(server)
            let status = try #require(try await server.store.sources().first { $0.definition.format == .openwebif })
            #expect(status.lastOutcome == .imported, "\(status.lastError ?? "")")
            #expect(status.programmes == 18)
            let channels = try await server.store.sourceChannels(of: status.definition.name)
            #expect(Set(channels.map(\.name)) == ["Das Erste HD", "ZDF HD", "Arte & Kultur"])
            #expect(channels.contains { $0.id.rawValue == "1_0_19_283D_3FB_1_C00000_0_0_0.enigma2" })
            let programmes = try await server.store.everyProgramme().map(\.programme).filter { $0.channel.rawValue.hasSuffix(".enigma2") }
            #expect(programmes.contains { $0.title == "Arte & Kultur \"Stunde\" 0" && $0.subTitle == "Folge 0" && $0.categories.map(\.text) == ["Nachrichten"] })
            #expect(!programmes.contains { $0.title == "N/A" })
            // The password went to the receiver only when it asked, and is not in the source's address.
            #expect(!status.definition.location.contains("dreambox"))
        }
        try await receiver.stop()
    }
}
