import Foundation
import GuideApplication
import GuideCore
@testable import GuideDevices
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A feed as an HDHomeRun tuner (``HDHomeRunDevice``): its four answers at `/hdhomerun/TOKEN/`, a tuner port per feed
/// for Plex (refused out of range or twice), the lineup's numbers, and the SSDP searches answered. The answers against a
/// real device's, and a port and SSDP on a running serve: Tests/Browser/test_media_servers.py. On both stores.
@Suite struct TunerTests {
    @Test func aFeedIsATunerAtItsSecretAddress() async throws {
        let (server, _) = try await PlaylistSourceTests.serverWithPlaylist()
        _ = try #require(try await server.scheduler.refresh([SourceName("iptv")]).first)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let page = String(buffer: try await admin.send(client, "/admin/feeds", method: .post,
                                                           form: ["name": "Plex", "channels": "group:UK", "days": "7", "shape": "media-server"]).body)
            let base = try #require(page.components(separatedBy: "(their tuner address): <code>").dropFirst().first?.components(separatedBy: "</code>").first)
            let path = try #require(URL(string: base)?.path)
            #expect(path.hasPrefix("/hdhomerun/"))
            let discover = try JSONSerialization.jsonObject(with: Data(buffer: try await client.execute(uri: path + "/discover.json", method: .get).body)) as? [String: Any]
            #expect(discover?["BaseURL"] as? String == base && discover?["LineupURL"] as? String == base + "/lineup.json")
            #expect(discover?["ModelNumber"] as? String == "HDTC-2US" && discover?["TunerCount"] as? Int == 2)
            let lineup = try JSONDecoder().decode([HDHomeRunDevice.Channel].self,
                                                  from: Data(buffer: try await client.execute(uri: path + "/lineup.json", method: .get).body))
            #expect(lineup.map(\.guideNumber) == ["101", "105"] && lineup.map(\.url) == ["https://streams.example/bbc1.m3u8", "https://streams.example/five.m3u8"])
            #expect(lineup.map(\.guideName) == ["BBC One", "Channel 5"], "\(lineup)")
            #expect(try await client.execute(uri: path + "/lineup_status.json", method: .get).status == .ok)
            #expect(String(buffer: try await client.execute(uri: path + "/device.xml", method: .get).body).contains("<deviceType>urn:schemas-upnp-org:device:MediaServer:1</deviceType>"))
            #expect(try await client.execute(uri: path + "/other.json", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/hdhomerun/" + String(repeating: "0", count: 43) + "/discover.json", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/hdhomerun/" + String(repeating: "0", count: 500) + "/discover.json", method: .get).status == .notFound)

            // A port of its own, for Plex: in range, once.
            let feed = try #require(try await server.store.lineupFeeds().first)
            let set = try await admin.send(client, "/admin/feeds/tuner-port", method: .post, form: ["id": "\(feed.id)", "port": "35123"])
            #expect(set.status == .ok && String(buffer: set.body).contains("on port 35123"))
            #expect(try await server.store.lineupFeeds().first?.tunerPort == 35123)
            for port in ["0", "80", "1023", "65536", "-1", "9223372036854775807", "9223372036854775808", "1e3", "nan", "x"] {
                let refused = try await admin.send(client, "/admin/feeds/tuner-port", method: .post, form: ["id": "\(feed.id)", "port": port])
                #expect(refused.status == .badRequest, "\(port)")
            }
            for id in ["0", "-1", "9223372036854775808", "999"] {
                #expect(try await admin.send(client, "/admin/feeds/tuner-port", method: .post, form: ["id": id, "port": "35124"]).status == .badRequest, "\(id)")
            }
            _ = try await admin.send(client, "/admin/feeds", method: .post, form: ["name": "Plex 2", "channels": "group:UK", "days": "7", "shape": "media-server"])
            let second = try #require(try await server.store.lineupFeeds().first { $0.name == "Plex 2" })
            let taken = try await admin.send(client, "/admin/feeds/tuner-port", method: .post, form: ["id": "\(second.id)", "port": "35123"])
            #expect(taken.status == .badRequest && String(buffer: taken.body).contains("another feed"))
            _ = try await admin.send(client, "/admin/feeds/tuner-port", method: .post, form: ["id": "\(feed.id)", "port": ""])
            #expect(try await server.store.lineupFeeds().first { $0.id == feed.id }?.tunerPort == nil)
            // A guest cannot set one.
            #expect(try await client.execute(uri: "/admin/feeds/tuner-port", method: .post).status != .ok)
        }
    }

    @Test func theLineupNumbersEveryChannelOnce() {
        let lineup = HDHomeRunDevice.lineup([
            (number: "4.1", name: "WCMH-DT HD", stream: "http://t/1"), (number: "4.1", name: "Again", stream: "http://t/2"),
            (number: nil, name: "None", stream: "http://t/3"), (number: " ", name: "Blank", stream: "http://t/4"),
            (number: "9223372036854775807", name: "Huge", stream: "http://t/5"), (number: nil, name: "After huge", stream: "http://t/6"),
        ])
        #expect(lineup.count == 6 && Set(lineup.map(\.guideNumber)).count == 6, "\(lineup)")
        #expect(lineup[0].guideNumber == "4.1" && lineup[0].hd == 1 && lineup[1].hd == nil)
        #expect(lineup[4].guideNumber == "9223372036854775807")
        #expect(HDHomeRunDevice.isHD("BBC One (HD)") && HDHomeRunDevice.isHD("Sky 4K") && !HDHomeRunDevice.isHD("HDTV Shop"))
        let small = HDHomeRunDevice.lineup([(number: "7", name: "A", stream: "s"), (number: nil, name: "B", stream: "s"), (number: "8", name: "C", stream: "s")])
        #expect(small.map(\.guideNumber) == ["7", "9", "8"])
    }

    @Test func ssdpAnswersSearchesFromTheLocalNetworkOnly() throws {
        let search = "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 1\r\nST: ssdp:all\r\n\r\n"
        #expect(SSDPResponder.searchTarget(search) == "ssdp:all")
        #expect(SSDPResponder.searchTarget(search.replacingOccurrences(of: "\r\n", with: "\n")) == "ssdp:all")
        for hostile in ["", "NOTIFY * HTTP/1.1\r\nNT: upnp:rootdevice\r\n\r\n", "M-SEARCH * HTTP/1.1\r\nST: ssdp:all\r\n\r\n",
                        "M-SEARCH * HTTP/1.1\r\nMAN: \"ssdp:discover\"\r\nST: " + String(repeating: "x", count: 5000) + "\r\n\r\n",
                        String(repeating: "M-SEARCH * HTTP/1.1\r\n", count: 100), "M-SEARCH * HTTP/1.1\r\nMAN: \"ssdp:discover\"\r\nST:\r\n\r\n"] {
            #expect(SSDPResponder.searchTarget(hostile) == nil)
        }
        for nearby in ["127.0.0.1", "192.168.1.5", "10.0.0.2", "172.16.4.4", "169.254.3.3", "fe80::1", "::1", "fd00::5"] {
            #expect(DiscoveryGate.isNearby(nearby), "\(nearby)")
        }
        // Carrier-grade NAT is the carrier's network, shared with strangers (issue 43).
        for far in ["8.8.8.8", "2001:4860::8888", "224.0.0.1", "0.0.0.0", "not an address", "100.64.0.1", "100.127.255.254"] {
            #expect(!DiscoveryGate.isNearby(far), "\(far)")
        }
        // Only on the address serve listens on (issue 43): before, every interface answered whatever --host said.
        func answered(_ host: String, _ here: String) -> Bool { DiscoveryGate.answers(listeningOn: DiscoveryGate.addresses(listeningOn: host), from: here) }
        #expect(answered("127.0.0.1", "127.0.0.1") && !answered("127.0.0.1", "192.168.1.5"))
        #expect(answered("192.168.1.5", "192.168.1.5") && !answered("192.168.1.5", "10.0.0.2"))
        #expect(answered("0.0.0.0", "10.0.0.2") && answered("::", "fe80::1"))
        #expect(answered("localhost", "127.0.0.1") && !answered("localhost", "192.168.1.5"))
        #expect(answered("[::1]", "::1") && !answered("name.invalid", "192.168.1.5"))
        // No tuner port listens: nothing to answer, and nothing for a searcher far away either.
        let responder = SSDPResponder(port: 1900, tuners: TunerPorts(host: "127.0.0.1"), gate: DiscoveryGate(host: "127.0.0.1", now: { Date() }))
        #expect(responder.answers(to: search, from: try SocketAddress(ipAddress: "127.0.0.1", port: 1900)).isEmpty)
        #expect(DiscoveryGate.localAddress(towards: try SocketAddress(ipAddress: "127.0.0.1", port: 1900)) == "127.0.0.1")
    }

    /// HDHomeRun's own discovery (libhdhomerun's packets): the request Debian's hdhomerun_config sends, read; hostile
    /// ones refused; a reply as clients read it; device ids whose check digit holds. On a running serve, with
    /// hdhomerun_config itself: Tests/Browser/test_media_servers.py.
    @Test func hdhomerunDiscoveryPackets() throws {
        // Captured from `hdhomerun_config discover 127.0.0.1` (../shared/data/hdhomerun/NOTES.md).
        let captured: [UInt8] = [0x00, 0x02, 0x00, 0x0c, 0x01, 0x04, 0xff, 0xff, 0xff, 0xff, 0x02, 0x04, 0xff, 0xff, 0xff, 0xff, 0x73, 0xcc, 0x7d, 0x8f]
        let any = try #require(HDHomeRunDiscovery.request(captured))
        #expect(any.deviceType == 0xFFFF_FFFF && any.deviceID == 0xFFFF_FFFF)
        func sealed(_ payload: [UInt8], type: UInt16 = 2) -> [UInt8] {
            let head = [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
            let check = HDHomeRunDiscovery.crc(head[...])
            return head + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: check >> $0) }
        }
        let one = try #require(HDHomeRunDiscovery.request(sealed([0x01, 4, 0, 0, 0, 1, 0x02, 4, 0x10, 0x20, 0x30, 0x40])))
        #expect(one.deviceType == 1 && one.deviceID == 0x1020_3040)
        // An unknown tag, even a long one (a two-byte length), is passed over.
        #expect(HDHomeRunDiscovery.request(sealed([0x33, 0x80 | 4, 1] + [UInt8](repeating: 7, count: 132) + [0x02, 4, 0, 0, 0, 9]))?.deviceID == 9)
        var corrupted = captured
        corrupted[7] = 0
        for hostile in [corrupted, Array(captured.prefix(19)), [], Array(captured.prefix(8)), sealed([0x01, 4, 0, 0], type: 2),
                        sealed([0x01, 0x81]), sealed([0x01, 4, 0, 0, 0, 1], type: 3), sealed([UInt8](repeating: 0, count: 2000)),
                        sealed([0x01, 0xFF, 0xFF])] {
            #expect(HDHomeRunDiscovery.request(hostile) == nil, "\(hostile.prefix(12))")
        }
        // A reply: type 3, its length, the items, the CRC.
        let reply = HDHomeRunDiscovery.reply(deviceID: 0x1234_5678, tunerCount: 2, base: "http://127.0.0.1:5004", lineup: "http://127.0.0.1:5004/lineup.json")
        #expect(reply.prefix(2) == [0, 3] && Int(reply[2]) << 8 | Int(reply[3]) == reply.count - 8)
        #expect(HDHomeRunDiscovery.crc(reply.dropLast(4)) == reply.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        #expect(String(decoding: reply, as: UTF8.self).contains("http://127.0.0.1:5004/lineup.json"))
        // Device ids: the check digit holds, legacy models' prefixes never, distinct per feed, the same each time.
        let ids = (0..<2_000).map { HDHomeRunDevice.deviceNumber(feed: Int64($0)) }
        #expect(ids.allSatisfy(HDHomeRunDevice.checkDigitHolds) && Set(ids).count == ids.count)
        #expect(ids.allSatisfy { ![0x100, 0x101, 0x102, 0x103, 0x111, 0x120, 0x121, 0x122].contains($0 >> 20) })
        #expect(HDHomeRunDevice.deviceID(feed: 7) == String(format: "%08X", HDHomeRunDevice.deviceNumber(feed: 7)))
        // A digit off fails the check; before, ids were 8 digits of a hash (1 in 16 passed).
        #expect((1..<16).allSatisfy { !HDHomeRunDevice.checkDigitHolds(ids[7] ^ UInt32($0)) })
        // No tuner listens: nothing is answered.
        let discovery = HDHomeRunDiscovery(port: 65001, tuners: TunerPorts(host: "127.0.0.1"), gate: DiscoveryGate(host: "127.0.0.1", now: { Date() }))
        #expect(discovery.answers(to: captured, from: try SocketAddress(ipAddress: "127.0.0.1", port: 40000)).isEmpty)
    }
}
