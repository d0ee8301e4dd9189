import Clocks
import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
@testable import GuideHomeAssistant
import GuideReminders
@testable import GuideServer
import GuideStore
import TestReceivers
import Synchronization
import Testing

/// Home Assistant over MQTT (``HomeAssistantBridge``), with Debian's mosquitto as the broker and its mosquitto_sub and
/// mosquitto_pub as Home Assistant's side: the discovery configurations and states read back, states published again
/// when the guide moves on (on a clock the test moves), a favourite dropped removes its entity, "remind me" as a
/// command, a broker the outbound policy refuses is never connected to. On both stores.
@Suite(.enabled(if: Mosquitto.isInstalled, "Debian's mosquitto and mosquitto-clients (scripts/test installs them as root)"))
struct HomeAssistantTests {
    static let start = Date(timeIntervalSince1970: 1_771_186_500)   // 2026-02-15 20:15 UTC
    static let listings = """
        <tv><channel id="bbc1.uk"><display-name>BBC One</display-name><display-name>101</display-name></channel>
        <channel id="five.uk"><display-name>Channel 5</display-name></channel>
        <channel id="film4.uk"><display-name>Film4</display-name></channel>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="bbc1.uk"><title>Doctor Who</title>
          <sub-title>The Star Beast</sub-title><episode-num system="xmltv_ns">0.0.</episode-num></programme>
        <programme start="20260215210000 +0000" stop="20260215220000 +0000" channel="bbc1.uk"><title>News at Ten</title></programme>
        <programme start="20260215200000 +0000" stop="20260215203000 +0000" channel="five.uk"><title>Quiz</title></programme>
        <programme start="20260215203000 +0000" stop="20260215213000 +0000" channel="five.uk"><title>Drama</title></programme>
        <programme start="20260215200000 +0000" stop="20260215220000 +0000" channel="film4.uk"><title>Alien</title></programme>
        </tv>
        """

    @Test func favouritesAreSensorsThatFollowTheGuideAndRemindMeIsACommand() async throws {
        let broker = try await Mosquitto()
        defer { broker.stop() }
        let server = try await TestServer(listings: Self.listings, now: Self.start)
        let ada = try await server.store.createProfile(name: "Ada", role: .admin, secretKind: .password, secretHash: "x", onlyIfFirst: false)
        try await server.store.setFavourite(ChannelID("bbc1.uk"), true, of: ada.id)
        try await server.store.setFavourite(ChannelID("five.uk"), true, of: ada.id)
        let clock = Clocks.TestClock<Duration>()
        var parts = server.parts
        parts.outbound = PolicedTransport(policy: try OutboundPolicy(parsing: "127.0.0.1"))
        parts.recorderWait = .seconds(30)   // What the recorder answers, not how fast: CI's PostgreSQL run waited over 3 s.
        let services = GuideServices(parts)
        let bridge = HomeAssistantBridge(broker: MQTTSettings(host: "127.0.0.1", port: broker.port, tls: false), guide: services,
                                         clock: clock, site: "https://tv.example", profile: "Ada")
        let running = Task { await bridge.run() }
        defer { running.cancel() }

        let bbc = HomeAssistantPayloads.objectID(ChannelID("bbc1.uk")), five = HomeAssistantPayloads.objectID(ChannelID("five.uk"))
        // Discovery: a sensor per favourite (none for Film4), the reminder event, all retained, tvguide online.
        let config = try await broker.json("homeassistant/sensor/tvguide/\(bbc)/config")
        #expect(config["name"] as? String == "BBC One" && config["state_topic"] as? String == "tvguide/channel/\(bbc)/state")
        #expect(config["availability_topic"] as? String == "tvguide/status" && config["unique_id"] as? String == "tvguide_\(bbc)")
        #expect((config["device"] as? [String: Any])?["name"] as? String == "tvguide")
        #expect(try await broker.retained("homeassistant/sensor/tvguide/\(HomeAssistantPayloads.objectID(ChannelID("film4.uk")))/config") == nil)
        #expect((try await broker.json("homeassistant/event/tvguide/reminder/config"))["event_types"] as? [String] == ["reminder"])
        #expect(try await broker.retained("tvguide/status") == "online")
        // States and attributes.
        #expect(try await broker.waitFor("tvguide/channel/\(bbc)/state", "Doctor Who"))
        let attributes = try await broker.json("tvguide/channel/\(bbc)/attributes")
        #expect(attributes["subtitle"] as? String == "The Star Beast" && attributes["episode"] as? String == "S1 E1")
        #expect(attributes["start"] as? String == "2026-02-15T20:00:00Z" && attributes["stop"] as? String == "2026-02-15T21:00:00Z")
        #expect((attributes["next"] as? [String: Any])?["title"] as? String == "News at Ten" && attributes["channel"] as? String == "BBC One")
        #expect((attributes["url"] as? String)?.hasPrefix("https://tv.example/programmes/") == true)
        #expect(try await broker.retained("tvguide/channel/\(five)/state") == "Quiz")

        // The guide moves on: at 20:31 Channel 5 shows Drama, published without being asked.
        server.advance(by: 16 * 60)
        await clock.advance(by: .seconds(60))
        #expect(try await broker.waitFor("tvguide/channel/\(five)/state", "Drama"))
        #expect(try await broker.retained("tvguide/channel/\(bbc)/state") == "Doctor Who")

        // "Remind me" from Home Assistant; a command it cannot do says why.
        let programme = try #require(try await server.store.nowNext(at: Self.start, channels: [ChannelID("bbc1.uk")], detail: .summary).first?.next)
        let answer = try await broker.answer(to: #"{"action": "remind", "programme": \#(programme.id.rawValue), "profile": "Ada", "lead": 5}"#)
        #expect(answer["ok"] as? Bool == true && answer["title"] as? String == "News at Ten")
        #expect(try await server.store.reminders(of: ada.id, in: [.pending], limit: 10).map(\.what.title) == ["News at Ten"])
        for wrong in [#"{"action": "remind", "programme": 1, "profile": "Nobody"}"#, #"{"action": "explode"}"#, "not json",
                      #"{"action": "remind", "programme": 9223372036854775807, "profile": "Ada", "lead": 9223372036854775807}"#] {
            let refused = try await broker.answer(to: wrong)
            #expect(refused["ok"] as? Bool == false && (refused["error"] as? String)?.isEmpty == false, "\(wrong)")
        }

        // "Record" from Home Assistant, on the recorder the admin set up (Tvheadend's stand-in); a viewer may not unless let.
        let tvheadend = try await RecordingDeskTests.tvheadend()
        defer { Task { try? await tvheadend.stop() } }
        try await server.store.setRecorder(RecorderSettings(kind: .tvheadend, address: "http://127.0.0.1:\(tvheadend.port)", username: "tvguide",
                                                            secret: "hunter2 & more"), at: Self.start)
        try await server.store.setRecorderChannels([ChannelID("bbc1.uk"): RecordingDeskTests.bbc])
        let airing = try #require(try await server.store.nowNext(at: Self.start, channels: [ChannelID("bbc1.uk")], detail: .summary).first?.now)
        // An admin's profile too records only if it was let: Home Assistant is not the admin at the page (before, an
        // admin's name passed "who may record").
        let unlet = try await broker.answer(to: #"{"action": "record", "programme": \#(airing.id.rawValue), "profile": "Ada"}"#)
        #expect(unlet["ok"] as? Bool == false && (unlet["error"] as? String)?.contains("not let Ada record") == true && tvheadend.recordingCount == 0)
        try await server.store.setCanRecord(ada.id, true)
        let recorded = try await broker.answer(to: #"{"action": "record", "programme": \#(airing.id.rawValue)}"#)
        #expect(recorded["ok"] as? Bool == true && recorded["state"] as? String == "scheduled" && tvheadend.recordingCount == 1, "\(recorded)")
        // Another profile, or one that does not exist, is refused alike: the answer names no profile.
        let kid = try await server.store.createProfile(name: "Kid", role: .viewer, secretKind: .pin, secretHash: "x", onlyIfFirst: false)
        try await server.store.setCanRecord(kid.id, true)
        let other = try await broker.answer(to: #"{"action": "record-series", "programme": \#(airing.id.rawValue), "profile": "Kid"}"#)
        let nobody = try await broker.answer(to: #"{"action": "record-series", "programme": \#(airing.id.rawValue), "profile": "Nobody"}"#)
        #expect(other["ok"] as? Bool == false && other["error"] as? String == nobody["error"] as? String && tvheadend.recordingCount == 1, "\(other)")
        #expect((other["error"] as? String)?.contains("Kid") == false)

        // A reminder sent is an event (the reminder just set: its lead time is now, 5 minutes before 21:00).
        let receiver = try await Receiver()
        _ = try await server.store.addDeliveryChannel(NewDeliveryChannel(profile: ada.id, kind: .webhook, name: "Home",
                                                                         target: receiver.url("/hook"), secret: nil), at: Self.start)
        // Kid's reminder for the same programme is sent too, but never published: only the chosen profile's are.
        _ = try await server.store.addDeliveryChannel(NewDeliveryChannel(profile: kid.id, kind: .webhook, name: "Kid's",
                                                                         target: receiver.url("/kid"), secret: nil), at: Self.start)
        _ = try await services.reminderActions.remind(kid, programme: String(programme.id.rawValue), lead: 5)
        server.advance(by: 24 * 60)
        let before = broker.subscriptions(to: "tvguide/event/reminder")
        async let events = Program.run("/usr/bin/mosquitto_sub", arguments: ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "tvguide/event/reminder",
                                                                              "-C", "2", "-W", "4"])
        try await broker.waitForSubscriber(to: "tvguide/event/reminder", beyond: before)
        #expect(try await services.reminders.sendDue().sent == 2)
        let lines = try await events.outputText.split(separator: "\n")
        #expect(lines.count == 1, "\(lines)")
        let announced = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(announced["event_type"] as? String == "reminder" && announced["title"] as? String == "News at Ten")
        #expect(announced["profile"] as? String == "Ada" && announced["start"] as? String == "2026-02-15T21:00:00Z")

        // A favourite dropped: its entity is removed (an empty retained configuration).
        try await server.store.setFavourite(ChannelID("five.uk"), false, of: ada.id)
        await clock.advance(by: .seconds(60))
        #expect(try await broker.waitFor("homeassistant/sensor/tvguide/\(five)/config", nil))
    }

    @Test func aBrokerTheOutboundPolicyRefusesIsNeverReached() async throws {
        let broker = try await Mosquitto()
        defer { broker.stop() }
        let server = try await TestServer(listings: Self.listings, now: Self.start)
        var parts = server.parts
        parts.outbound = PolicedTransport(policy: .external)
        let services = GuideServices(parts)
        let clock = Clocks.TestClock<Duration>()
        let bridge = HomeAssistantBridge(broker: MQTTSettings(host: "127.0.0.1", port: broker.port, tls: false), guide: services,
                                         clock: clock, site: nil, profile: "Ada")
        let running = Task { await bridge.run() }
        try await Task.sleep(for: .milliseconds(500))
        running.cancel()
        #expect(try await broker.retained("tvguide/status") == nil)
    }

    @Test func brokerAddressesAreParsedOrRefused() throws {
        #expect(try MQTTSettings.parse("mqtt://ha@192.168.1.5", password: "p").get() == MQTTSettings(host: "192.168.1.5", port: 1883, tls: false, username: "ha", password: "p"))
        #expect(try MQTTSettings.parse("mqtts://broker.home:8884", password: nil).get().port == 8884)
        for bad in ["http://broker", "mqtt://user:secret@broker", "mqtt://", "mqtt://b:0", "mqtt://b:99999", "broker"] {
            if case .success = MQTTSettings.parse(bad, password: nil) { Issue.record("\(bad) was taken") }
        }
    }
}

/// Debian's mosquitto on a free loopback port, anonymous, without persistence, for one test; its clients read it.
final class Mosquitto: Sendable {
    static let broker = "/usr/sbin/mosquitto"
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: broker) && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")
    }

    let port: Int
    private let process = Mutex<RunningProgram?>(nil)
    let folder: String

    init() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-mqtt-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        port = try FreePort.find()
        // Subscriptions are logged, so a test knows when a subscriber it started is listening (`user root`: run as
        // root, the broker would otherwise write as its own user, which cannot write here; as anyone else it is ignored).
        try """
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence false
            user root
            log_dest file \(folder)/mosquitto.log
            log_type error
            log_type warning
            log_type subscribe

            """.write(toFile: folder + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try await start()
    }

    private func start() async throws {
        process.withLock { $0 = RunningProgram(Self.broker, arguments: ["-c", folder + "/mosquitto.conf"]) }
        for _ in 0..<100 {
            if (try? await Program.run("/usr/bin/mosquitto_pub", arguments: ["-h", "127.0.0.1", "-p", "\(port)", "-t", "probe", "-n"]))?.status == 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw MQTTFailure("mosquitto did not start")
    }

    /// The broker stopped and started again on the same port, forgetting what it kept (no persistence): every client's
    /// connection is lost.
    func restart() async throws {
        let old = process.withLock { $0 }
        old?.end()
        _ = await old?.exited()
        try await start()
    }

    func stop() {
        process.withLock { $0 }?.end()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Publishes `payload` on `topic` as a client would: retained, at a QoS.
    func publish(_ topic: String, _ payload: String, retain: Bool = false, qos: Int = 0) async throws {
        _ = try await Program.run("/usr/bin/mosquitto_pub", arguments: ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-m", payload,
                                                                      "-q", "\(qos)"] + (retain ? ["-r"] : []))
    }

    /// The retained message on `topic`, waiting a little for it; nil when there is none (or it is empty: removed).
    func retained(_ topic: String) async throws -> String? {
        let read = try await Program.run("/usr/bin/mosquitto_sub", arguments: ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic,
                                                                                      "-C", "1", "-W", "2", "--retained-only"])
        let text = read.outputText.hasSuffix("\n") ? String(read.outputText.dropLast()) : read.outputText
        return read.status == 0 && !text.isEmpty ? text : nil
    }

    /// The retained JSON object on `topic`, waiting up to 10 s for it.
    func json(_ topic: String) async throws -> [String: Any] {
        var found: String?
        for _ in 0..<40 where found == nil {
            found = try await retained(topic)
            if found == nil { try await Task.sleep(for: .milliseconds(250)) }
        }
        let text = try #require(found, "nothing retained on \(topic)")
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Whether `topic` comes to hold `value` (nil: nothing) within 10 s.
    func waitFor(_ topic: String, _ value: String?) async throws -> Bool {
        for _ in 0..<40 {
            if try await retained(topic) == value { return true }
            try await Task.sleep(for: .milliseconds(250))
        }
        return false
    }

    /// The next message published on `topic` within 10 s.
    func next(on topic: String) async throws -> String {
        try await Program.run("/usr/bin/mosquitto_sub", arguments: ["-h", "127.0.0.1", "-p", "\(port)", "-t", topic, "-C", "1", "-W", "10"]).outputText
    }

    /// How many subscriptions to exactly `topic` the broker has logged.
    func subscriptions(to topic: String) -> Int {
        let log = (try? String(contentsOfFile: folder + "/mosquitto.log", encoding: .utf8)) ?? ""
        let pattern = " [012] " + NSRegularExpression.escapedPattern(for: topic) + #"(?=\n|$|\d+: )"#
        return (try? NSRegularExpression(pattern: pattern))?.numberOfMatches(in: log, range: NSRange(log.startIndex..., in: log)) ?? 0
    }

    /// Waits (10 s at most) for a subscription to `topic` beyond the `count` there were: a subscriber just started is
    /// then listening (a fixed pause was not always long enough on a busy machine).
    func waitForSubscriber(to topic: String, beyond count: Int) async throws {
        for _ in 0..<200 {
            if subscriptions(to: topic) > count { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw MQTTFailure("nothing subscribed to \(topic)")
    }

    /// Publishes `command` on tvguide's command topic (at `qos`) and returns its answer (within 40 s: beyond a
    /// recorder's 30).
    func answer(to command: String, qos: Int = 0) async throws -> [String: Any] {
        let before = subscriptions(to: "tvguide/command/result")
        async let answer = Program.run("/usr/bin/mosquitto_sub", arguments: ["-h", "127.0.0.1", "-p", "\(port)", "-t", "tvguide/command/result",
                                                                                    "-C", "1", "-W", "40"])
        try await waitForSubscriber(to: "tvguide/command/result", beyond: before)
        try await publish("tvguide/command", command, qos: qos)
        let text = try await answer.outputText
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }
}

/// A TCP port nothing listens on now, on loopback (the kernel's choice for a socket bound to port 0).
enum FreePort {
    static func find() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw MQTTFailure("no socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        guard bound == 0, named == 0 else { throw MQTTFailure("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
