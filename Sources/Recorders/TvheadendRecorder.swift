import Foundation
import GuideCore
import GuideHTTP

/// Tvheadend as a recorder, through its HTTP JSON API (docs.tvheadend.org, "JSON API"; the account needs the
/// recorder privilege): channels from `api/channel/grid`, profiles from `api/dvr/config/grid`; a programme recorded by
/// its EPG event (`api/epg/events/grid` on the mapped channel near its start, then `api/dvr/entry/create_by_event`),
/// else as a timed recording on the channel (`api/dvr/entry/create`); a series as an automatic recording rule (by the
/// event's series link, `api/dvr/autorec/create_by_series`, else by its exact title on that channel,
/// `api/dvr/autorec/create`); state from `api/dvr/entry/grid_upcoming`; cancelled with `api/dvr/entry/cancel` and, for a
/// rule, `api/idnode/delete`. The user name and password are answered to Tvheadend's challenge (Digest, or Basic).
public struct TvheadendRecorder: Recorder {
    let call: RecorderCall
    /// How far from the programme's start an EPG event may begin and still be taken for it.
    static let slack: TimeInterval = 10 * 60
    /// The language key of the titles tvguide writes into a timed recording.
    static let language = "eng"

    public init(address: String, credentials: HTTPCredentials?, transport: any HTTPTransport) {
        call = RecorderCall(transport: transport, base: address.hasSuffix("/") ? String(address.dropLast()) : address,
                            credentials: credentials, kind: "Tvheadend")
    }

    public func channels() async throws -> [RecorderChannel] {
        try await call.decode(Grid<Channel>.self, "GET", "/api/channel/grid?limit=10000").entries
            .filter { $0.enabled ?? true }
            .map { RecorderChannel(id: $0.uuid, name: $0.name ?? $0.uuid, number: $0.number.flatMap { $0 > 0 ? String($0) : nil }) }
    }

    public func profiles() async throws -> [RecorderProfile] {
        try await call.decode(Grid<Profile>.self, "GET", "/api/dvr/config/grid?limit=1000").entries
            .filter { $0.enabled ?? true }
            .map { RecorderProfile(id: $0.uuid, name: ($0.name ?? "").isEmpty ? "(default profile)" : $0.name ?? "") }
    }

    public func record(_ request: RecordingRequest) async throws -> ScheduledRecording {
        // Already scheduled (by an earlier press, or by a rule): that recording.
        let title = request.title.lowercased()
        if let existing = try await scheduled().first(where: {
            $0.channel == request.channel && abs($0.start.timeIntervalSince(request.start)) <= Self.slack && $0.title.lowercased() == title
        }) {
            return existing
        }
        let created: Created
        if let event = try await event(for: request) {
            created = try await call.decode(Created.self, "POST", "/api/dvr/entry/create_by_event",
                                            form: [("event_id", String(event.eventId)), ("config_uuid", request.profile ?? "")])
        } else {
            var conf: [String: Any] = ["start": Int64(request.start.timeIntervalSince1970), "stop": Int64(request.stop.timeIntervalSince1970),
                                       "channel": request.channel, "title": [Self.language: request.title], "comment": "Recorded from tvguide"]
            if let subtitle = request.subtitle { conf["subtitle"] = [Self.language: subtitle] }
            if let profile = request.profile { conf["config_name"] = profile }
            created = try await call.decode(Created.self, "POST", "/api/dvr/entry/create", form: [("conf", Self.json(conf))])
        }
        guard let id = created.uuids.first else { throw RecorderError(.unexpected, saying: "Tvheadend made no recording") }
        guard let entry = try await scheduled().first(where: { $0.id == id }) else {
            throw RecorderError(.refused, saying: "Tvheadend did not keep the recording (the channel or the time may be wrong)")
        }
        return entry
    }

    public func recordSeries(_ request: RecordingRequest) async throws -> RecordingRule {
        let created: Created
        if let event = try await event(for: request), event.serieslinkUri?.isEmpty == false {
            created = try await call.decode(Created.self, "POST", "/api/dvr/autorec/create_by_series",
                                            form: [("event_id", String(event.eventId)), ("config_uuid", request.profile ?? "")])
        } else {
            var conf: [String: Any] = ["title": "^" + Self.escapedPattern(request.title) + "$", "fulltext": false, "channel": request.channel,
                                       "enabled": true, "comment": "Recorded from tvguide"]
            if let profile = request.profile { conf["config_name"] = profile }
            created = try await call.decode(Created.self, "POST", "/api/dvr/autorec/create",
                                            form: [("conf", Self.json(conf)), ("config_uuid", request.profile ?? "")])
        }
        guard let id = created.uuids.first, let rule = try await rules().first(where: { $0.id == id }) else {
            throw RecorderError(.unexpected, saying: "Tvheadend made no series rule")
        }
        return rule
    }

    public func scheduled() async throws -> [ScheduledRecording] {
        try await call.decode(Grid<Entry>.self, "GET", "/api/dvr/entry/grid_upcoming?limit=5000").entries.map { entry in
            ScheduledRecording(id: entry.uuid, channel: entry.channel ?? "", title: entry.disp_title ?? "",
                               start: Date(timeIntervalSince1970: TimeInterval(RecorderTime.seconds(entry.start))),
                               stop: Date(timeIntervalSince1970: TimeInterval(RecorderTime.seconds(entry.stop))),
                               state: Self.state(entry.sched_status, errors: entry.errorcode ?? 0), status: entry.status ?? "",
                               rule: (entry.autorec ?? "").isEmpty ? nil : entry.autorec)
        }
    }

    public func rules() async throws -> [RecordingRule] {
        try await call.decode(Grid<Autorec>.self, "GET", "/api/dvr/autorec/grid?limit=5000").entries.map { rule in
            // A rule by series link has no title expression, only its name.
            let title = rule.title.flatMap { $0.isEmpty ? nil : Self.plainTitle($0) } ?? rule.name ?? ""
            return RecordingRule(id: rule.uuid, title: title, channel: (rule.channel ?? "").isEmpty ? nil : rule.channel)
        }
    }

    public func cancel(recording id: String) async throws {
        _ = try await call.send("POST", "/api/dvr/entry/cancel", form: [("uuid", id)])
    }

    public func cancel(rule id: String) async throws {
        _ = try await call.send("POST", "/api/idnode/delete", form: [("uuid", id)])
    }

    /// The EPG event on the request's channel that starts nearest its start (within ``slack``), the same title first.
    func event(for request: RecordingRequest) async throws -> Event? {
        let start = Int64(request.start.timeIntervalSince1970), slack = Int64(Self.slack)
        let filter = Self.json([["field": "start", "type": "numeric", "value": start - slack, "comparison": "gt"],
                                ["field": "start", "type": "numeric", "value": start + slack, "comparison": "lt"]])
        let path = "/api/epg/events/grid?limit=200&channel=" + JSONCall.encoded([("", request.channel)]).dropFirst()
            + "&filter=" + JSONCall.encoded([("", filter)]).dropFirst()
        let events = try await call.decode(EventGrid.self, "GET", path).entries.filter { $0.channelUuid == nil || $0.channelUuid == request.channel }
        let title = request.title.lowercased()
        return events.min { a, b in
            let (aTitle, bTitle) = ((a.title ?? "").lowercased() == title, (b.title ?? "").lowercased() == title)
            if aTitle != bTitle { return aTitle }
            return abs(RecorderTime.seconds(a.start) - start) < abs(RecorderTime.seconds(b.start) - start)
        }
    }

    /// What Tvheadend's `sched_status` means here.
    static func state(_ status: String?, errors: Int) -> ScheduledRecording.State {
        switch status ?? "" {
        case "recording": .recording
        case "completed": errors == 0 ? .completed : .failed
        case "completedError", "completedWarning", "completedRerecord", "missed": .failed
        default: .scheduled
        }
    }

    /// `text` as a POSIX regular expression matching itself (Tvheadend's rule titles are expressions).
    static func escapedPattern(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// A rule's title as written, its `^...$` and escapes taken off.
    static func plainTitle(_ pattern: String) -> String {
        var text = Substring(pattern)
        if text.hasPrefix("^") { text = text.dropFirst() }
        if text.hasSuffix("$") && !text.hasSuffix("\\$") { text = text.dropLast() }
        var plain = "", escaping = false
        for character in text {
            if character == "\\" && !escaping { escaping = true; continue }
            escaping = false
            plain.append(character)
        }
        return plain
    }

    static func json(_ object: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    // MARK: Tvheadend's answers, as its API documents them

    struct Grid<T: Decodable>: Decodable {
        var entries: [T]
    }

    struct Channel: Decodable {
        var uuid: String
        var name: String?
        var number: Int64?
        var enabled: Bool?
    }

    struct Profile: Decodable {
        var uuid: String
        var name: String?
        var enabled: Bool?
    }

    struct Event: Decodable {
        var eventId: Int64
        var channelUuid: String?
        var title: String?
        var start: Int64?
        var stop: Int64?
        var serieslinkUri: String?
    }

    struct EventGrid: Decodable {
        var entries: [Event]
    }

    struct Entry: Decodable {
        var uuid: String
        var channel: String?
        var disp_title: String?
        var start: Int64?
        var stop: Int64?
        var sched_status: String?
        var status: String?
        var autorec: String?
        var errorcode: Int?
    }

    struct Autorec: Decodable {
        var uuid: String
        var title: String?
        var name: String?
        var channel: String?
    }

    /// `{"uuid": "..."}` or, where one call may make several, `{"uuid": ["..."]}`.
    struct Created: Decodable {
        var uuids: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            if let one = try? container.decode(String.self, forKey: .uuid) {
                uuids = [one]
            } else {
                uuids = try container.decodeIfPresent([String].self, forKey: .uuid) ?? []
            }
        }

        enum Key: String, CodingKey { case uuid }
    }
}
