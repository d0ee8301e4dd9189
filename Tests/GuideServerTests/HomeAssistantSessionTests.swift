import Clocks
import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
@testable import GuideHomeAssistant
@testable import GuideReminders
import GuideStore
import TestReceivers
import Testing

/// The MQTT door holds (issue 43, point 5), against Debian's mosquitto: a command the broker kept does nothing and is
/// cleared, the sessions after a lost one each work, commands at QoS 1 and 2 are read right, the client id is not the
/// address, and a broker that stops answering is noticed.
@Suite(.enabled(if: Mosquitto.isInstalled, "Debian's mosquitto and mosquitto-clients (scripts/test installs them as root)"))
struct HomeAssistantSessionTests {
    /// A guide with Ada (Home Assistant's profile), a bridge to `broker` on a clock the test moves, and the programme
    /// on next on BBC One.
    static func bridge(_ broker: Mosquitto) async throws -> (TestServer, HomeAssistantBridge, Clocks.TestClock<Duration>, Profile, ProgrammeID) {
        let server = try await TestServer(listings: HomeAssistantTests.listings, now: HomeAssistantTests.start)
        let ada = try await server.store.createProfile(name: "Ada", role: .admin, secretKind: .password, secretHash: "x", onlyIfFirst: false)
        try await server.store.setFavourite(ChannelID("bbc1.uk"), true, of: ada.id)
        var parts = server.parts
        parts.outbound = PolicedTransport(policy: try OutboundPolicy(parsing: "127.0.0.1"))
        let clock = Clocks.TestClock<Duration>()
        let bridge = HomeAssistantBridge(broker: MQTTSettings(host: "127.0.0.1", port: broker.port, tls: false), guide: GuideServices(parts),
                                         clock: clock, site: nil, profile: "Ada")
        let next = try #require(try await server.store.nowNext(at: HomeAssistantTests.start, channels: [ChannelID("bbc1.uk")], detail: .summary).first?.next)
        return (server, bridge, clock, ada, next.id)
    }

    /// Before, a command published with the retain flag was carried out at every connection (the broker hands it to
    /// each new subscriber): here, a reminder set by a message nobody sent again.
    @Test func aRetainedCommandDoesNothingAndIsCleared() async throws {
        let broker = try await Mosquitto()
        defer { broker.stop() }
        let (server, bridge, _, ada, next) = try await Self.bridge(broker)
        try await broker.publish("tvguide/command", #"{"action": "remind", "programme": \#(next.rawValue), "lead": 5}"#, retain: true)
        let running = Task { await bridge.run() }
        defer { running.cancel() }
        #expect(try await broker.waitFor("tvguide/status", "online"))
        #expect(try await broker.waitFor("tvguide/command", nil), "the kept command is cleared")
        // A command sent as commands are is carried out: the session reads its topic.
        let live = try await broker.answer(to: #"{"action": "remind", "programme": \#(next.rawValue), "lead": 10}"#)
        #expect(live["ok"] as? Bool == true)
        #expect(try await server.store.reminders(of: ada.id, in: [.pending], limit: 10).map(\.what.leadMinutes) == [10])
    }

    /// Before, every session after the first ended at once (the reminders' stream, read by the first, was finished
    /// when it ended), so after a broker's restart tvguide connected, subscribed and dropped itself every 5 s.
    @Test func theSecondAndThirdSessionsAfterALostOneEachWork() async throws {
        let broker = try await Mosquitto()
        defer { broker.stop() }
        let (server, bridge, clock, ada, next) = try await Self.bridge(broker)
        let later = try #require(try await server.store.nowNext(at: HomeAssistantTests.start, channels: [ChannelID("five.uk")], detail: .summary).first?.next)
        let running = Task { await bridge.run() }
        defer { running.cancel() }
        #expect(try await broker.waitFor("tvguide/status", "online"))
        #expect(bridge.clientID.hasPrefix("tvguide-") && bridge.clientID.count > 16 && !bridge.clientID.contains("127.0.0.1"))
        for (session, qos, programme) in [(2, 1, next), (3, 2, later.id)] {
            try await broker.restart()
            // The broker forgot everything: tvguide is online again once it has connected anew (after its wait).
            var online = false
            for _ in 0..<20 where !online {
                await clock.advance(by: .seconds(10))
                online = try await broker.retained("tvguide/status") == "online"
            }
            #expect(online, "session \(session) connected")
            #expect(try await broker.waitFor("tvguide/channel/\(HomeAssistantPayloads.objectID(ChannelID("bbc1.uk")))/state", "Doctor Who"))
            // It answers commands, here published at QoS 1, then 2 (each read past its packet id, once).
            let answer = try await broker.answer(to: #"{"action": "remind", "programme": \#(programme.rawValue), "lead": \#(session)}"#, qos: qos)
            #expect(answer["ok"] as? Bool == true, "session \(session): \(answer)")
            #expect(try await server.store.reminders(of: ada.id, in: [.pending], limit: 10).count == session - 1)
        }
        // Two runs never share a client id.
        let (_, other, _, _, _) = try await Self.bridge(broker)
        #expect(other.clientID != bridge.clientID)
    }

    /// A broker that accepts the connection and then says nothing (its pings unanswered) ends the session within a
    /// keep-alive and a half; before, the connection was held as if it were alive.
    @Test func aSilentBrokerIsNoticed() async throws {
        let script = """
            import socket, sys, time
            server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(1)
            print(server.getsockname()[1], flush=True)
            client, _ = server.accept(); client.recv(4096); client.sendall(bytes([0x20, 2, 0, 0])); time.sleep(60)
            """
        let silent = RunningProgram("/usr/bin/python3", arguments: ["-c", script])
        defer { silent.end() }
        let port = try #require(Int(await silent.firstOutput().trimmingCharacters(in: .whitespacesAndNewlines)))
        let began = ContinuousClock.now
        await #expect(throws: MQTTFailure.self) {
            try await MQTTSession.session(to: "127.0.0.1", MQTTSettings(host: "127.0.0.1", port: port, tls: false), clientID: "test",
                                          will: (topic: "t/status", payload: "offline"), keepAlive: 2) { _ in try await Task.sleep(for: .seconds(30)) }
        }
        #expect(ContinuousClock.now - began < .seconds(20), "noticed after \(ContinuousClock.now - began)")
    }
}
