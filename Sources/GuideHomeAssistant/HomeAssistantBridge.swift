import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideReminders
import GuideStore
import Logging
import Synchronization

/// Home Assistant over MQTT discovery (`serve --home-assistant mqtt://USER@BROKER`): for each channel someone has among
/// their favourites, a sensor whose state is what is on now (start, stop, episode and what is next as attributes),
/// published again the moment a programme ends or starts, not on a poll; reminders as events of an event entity; and
/// "remind me", "record" and "record the series" as commands. Everything retained, so Home Assistant has the states after its own restart; a last will
/// marks the entities unavailable when tvguide goes away. The broker is reached through the outbound policy like
/// every address tvguide connects to. Topics and payloads: docs/home-assistant.md.
///
/// Anyone who may publish on the broker may send a command, so commands act only for the one profile the admin chose
/// for Home Assistant (`home-assistant-profile`), and only as that profile may (recording only if an admin let it);
/// events carry only that profile's reminders. A command the broker kept (published with the retain flag) is never
/// carried out, and is cleared. Each connection is a session of its own: one lost is followed by another, sooner again
/// after one that lasted (``healthySession``); the client id is random, so nobody takes tvguide's session by guessing it.
public final class HomeAssistantBridge: Sendable {
    let broker: MQTTSettings
    let store: any GuideDatabase
    let directory: ChannelDirectory
    let outbound: PolicedTransport
    let reminders: ReminderActions
    let recordings: RecordingDesk
    let dispatcher: ReminderDispatcher
    let now: @Sendable () -> Date
    let clock: any Clock<Duration>
    /// A programme's page, for its state's `url`; nil without the guide's public address.
    let programmePage: (@Sendable (ProgrammeID) -> String)?
    let logger: Logger
    /// Topic prefixes: tvguide's own, and Home Assistant's discovery prefix (its default).
    let base: String
    let discovery: String
    /// The name of the profile commands and events are for; nil: no commands, no reminder events.
    let profileName: String?
    /// tvguide's client id on the broker: random for each run, never guessable from the address.
    let clientID: String
    /// The session connected now, for the reminders' events (one reader of the dispatcher's stream for the whole run).
    private let current = Mutex<MQTTSession?>(nil)
    /// A session that lasted this long was healthy: the next wait after it is the shortest again.
    static let healthySession: Duration = .seconds(60)

    /// Waits between connection attempts: 5 s, doubling to 5 minutes.
    static let retryDelays: [Duration] = [.seconds(5), .seconds(10), .seconds(20), .seconds(40), .seconds(80), .seconds(160), .seconds(300)]
    /// Channels with a sensor, at most (Home Assistant's own limits are far above; a guide's favourites are far below).
    static let mostChannels = 500
    /// States are read at least this often, so a listings import that changes what is on shows within a minute.
    static let longestWait: Duration = .seconds(60)

    public init(broker: MQTTSettings, guide: GuideServices, clock: any Clock<Duration>, site: String?, profile: String?, base: String = "tvguide",
                discovery: String = "homeassistant", logger: Logger = Logger(label: "tvguide.home-assistant")) {
        (self.broker, self.store, self.directory, self.outbound, self.dispatcher) = (broker, guide.store, guide.directory, guide.outbound, guide.reminders)
        profileName = profile
        clientID = "tvguide-" + (0..<3).map { _ in String(UInt32.random(in: .min ... .max), radix: 16) }.joined()
        (self.reminders, self.recordings) = (guide.reminderActions, guide.recordings)
        (self.now, self.clock, self.base, self.discovery, self.logger) = (guide.settings.now, clock, base, discovery, logger)
        let links: WebLinks = guide.links
        if let site {
            programmePage = { id in site + links.programme(id) }
        } else {
            programmePage = nil
        }
    }

    /// Publishes until cancelled, connecting again after each lost connection.
    public func run() async {
        // Home Assistant's event is the chosen profile's delivery: its reminders go out with no channel of their own.
        dispatcher.announce(remindersOf: profileName)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.announceReminders() }
            group.addTask { await self.connectAgainAndAgain() }
            await group.next()
            group.cancelAll()
        }
    }

    private func connectAgainAndAgain() async {
        var failures = 0
        while !Task.isCancelled {
            let lasted = Stopwatch(on: clock)
            do {
                let address = try await outbound.checkedAddress(host: broker.host, port: broker.port)
                try await MQTTSession.session(to: address, broker, clientID: clientID, will: (topic: availabilityTopic, payload: "offline")) { session in
                    try await self.serve(session)
                }
            } catch is CancellationError {
                return
            } catch {
                logger.error("Home Assistant: \(error)")
            }
            failures = lasted.elapsed() >= Self.healthySession ? 1 : failures + 1
            let wait = Self.retryDelays[min(failures - 1, Self.retryDelays.count - 1)]
            try? await clock.sleep(for: wait)
        }
    }

    /// Each reminder sent to the chosen profile, as an event on the session connected then (none between sessions).
    private func announceReminders() async {
        for await reminder in dispatcher.sent {
            guard let session = current.withLock({ $0 }), let profile = try? await chosenProfile(), reminder.what.profile == profile.id else { continue }
            try? await session.publish("\(base)/event/reminder", HomeAssistantPayloads.reminder(reminder, profile: profile.name), retain: false)
        }
    }

    /// The profile the admin chose for Home Assistant, as it is now.
    private func chosenProfile() async throws -> Profile? {
        guard let profileName else { return nil }
        return try await store.profiles().first { $0.name == profileName }
    }

    var availabilityTopic: String { "\(base)/status" }
    var commandTopic: String { "\(base)/command" }

    /// One connection: the entities announced, then states kept current and commands answered until it is lost or
    /// the task cancelled.
    func serve(_ session: MQTTSession) async throws {
        current.withLock { $0 = session }
        defer { current.withLock { $0 = nil } }
        try await session.publish(availabilityTopic, "online", retain: true)
        try await session.publish("\(discovery)/event/\(base)/reminder/config", HomeAssistantPayloads.reminderEvent(base: base), retain: true)
        try await session.subscribe(commandTopic)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.keepStatesCurrent(session) }
            group.addTask {
                for await message in session.messages where message.topic == self.commandTopic {
                    // Kept by the broker: sent again to every new subscriber, at every start. Never carried out; cleared.
                    guard !message.retained else {
                        if !message.payload.isEmpty {
                            self.logger.warning("Home Assistant: a command kept by the broker (published with the retain flag) was not carried out, and is cleared")
                            try await session.publish(self.commandTopic, "", retain: true)
                        }
                        continue
                    }
                    let answer = await self.command(message.payload)
                    try await session.publish(self.commandTopic + "/result", answer, retain: false)
                }
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// Publishes each favourite channel's entity and state, again whenever it changes, until cancelled.
    func keepStatesCurrent(_ session: MQTTSession) async throws {
        var announced: [String: ChannelID] = [:]
        var published: [String: String] = [:]
        while true {
            let snapshot = try await directory.snapshot()
            var wanted = Set<ChannelID>()
            for profile in try await store.profiles() { wanted.formUnion(try await store.favourites(of: profile.id)) }
            let channels = Array(snapshot.channels.filter { wanted.contains($0.id) }.prefix(Self.mostChannels))
            let objects = Dictionary(channels.map { (HomeAssistantPayloads.objectID($0.id), $0) }, uniquingKeysWith: { first, _ in first })
            // Entities no longer wanted are removed (an empty retained configuration), new ones announced.
            for (object, _) in announced where objects[object] == nil {
                try await session.publish(configTopic(object), "", retain: true)
                announced[object] = nil
                published[object] = nil
            }
            for (object, channel) in objects where announced[object] == nil {
                try await session.publish(configTopic(object), HomeAssistantPayloads.sensor(channel, object: object, base: base), retain: true)
                announced[object] = channel.id
            }
            let instant = now()
            var nextChange = instant.addingTimeInterval(Double(Self.longestWait.components.seconds))
            for entry in try await store.nowNext(at: instant, channels: channels.map(\.id), detail: .summary) {
                let object = HomeAssistantPayloads.objectID(entry.channel)
                guard let channel = objects[object] else { continue }
                let state = HomeAssistantPayloads.state(entry, channel: channel, page: programmePage)
                if published[object] != state.state + "\u{0}" + state.attributes {
                    try await session.publish("\(base)/channel/\(object)/attributes", state.attributes, retain: true)
                    try await session.publish("\(base)/channel/\(object)/state", state.state, retain: true)
                    published[object] = state.state + "\u{0}" + state.attributes
                }
                for change in [entry.now?.end, entry.next?.programme.start].compactMap({ $0 }) where change > instant && change < nextChange {
                    nextChange = change
                }
            }
            // Until the first programme on any of them ends or starts (a second after, so it has).
            let seconds = max(1, min(nextChange.timeIntervalSince(instant) + 1, Double(Self.longestWait.components.seconds)))
            try await clock.sleep(for: .milliseconds(Int64(seconds * 1000)))
        }
    }

    func configTopic(_ object: String) -> String { "\(discovery)/sensor/\(base)/\(object)/config" }

    /// A command's answer: `{"action": "remind", "programme": ID, "profile": "NAME", "lead": MINUTES}` sets a reminder.
    func command(_ payload: [UInt8]) async -> String {
        guard payload.count <= 4096, let command = try? JSONDecoder().decode(HomeAssistantCommand.self, from: Data(payload)) else {
            return HomeAssistantPayloads.answer(error: "a command is JSON: {\"action\": \"remind\", \"programme\": ID}")
        }
        // Only for the chosen profile: a command naming another is refused alike whether that profile exists or not.
        guard let profile = try? await chosenProfile(), command.profile.map({ $0 == profile.name }) ?? true else {
            logger.warning("Home Assistant: a command for \(command.profile.map { "\"\($0.prefix(64))\"" } ?? "no profile") was refused: commands act for the profile chosen with home-assistant-profile\(profileName == nil ? " (none is chosen)" : "")")
            return HomeAssistantPayloads.answer(error: "commands act only for the profile an admin chose for Home Assistant")
        }
        switch command.action {
        case "remind":
            let lead = command.lead.flatMap { Bounded.integer(String($0), in: 0...1440) }.map { Int($0) }
            do {
                let reminder = try await reminders.remind(profile, programme: command.programme.map(String.init) ?? "", lead: lead)
                return HomeAssistantPayloads.answer(reminder: reminder)
            } catch {
                return HomeAssistantPayloads.answer(error: "\(error)")
            }
        case "record", "record-series":
            // Only a profile an admin let record, whoever it is: Home Assistant is not the admin at the page.
            guard profile.canRecord else { return HomeAssistantPayloads.answer(error: "an admin has not let \(profile.name) record") }
            guard let id = command.programme, id > 0, let stored = try? await store.programme(ProgrammeID(rawValue: id)) else {
                return HomeAssistantPayloads.answer(error: "that programme is not in the guide")
            }
            do {
                let entry = try await recordings.request(stored, series: command.action == "record-series", by: profile.id)
                return HomeAssistantPayloads.answer(recording: entry)
            } catch {
                return HomeAssistantPayloads.answer(error: "\(error)")
            }
        default:
            return HomeAssistantPayloads.answer(error: "the actions are: remind, record, record-series")
        }
    }
}

struct HomeAssistantCommand: Decodable {
    var action: String
    var programme: Int64?
    var profile: String?
    var lead: Int64?
}
