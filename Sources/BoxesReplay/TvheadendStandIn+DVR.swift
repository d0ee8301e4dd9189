import Foundation
import NIOConcurrencyHelpers
import TestReceivers

/// The stand-in's recorder: Tvheadend's JSON API for channels, DVR profiles, the EPG and recordings, answering the
/// paths, parameters (in the query or a form body, as Tvheadend takes either) and JSON shapes its documentation gives
/// (docs.tvheadend.org, JSON API: channel, dvr, epg, idnode). Its channels, profiles and EPG are SYNTHETIC, set by the
/// test; recordings and rules are made and removed as Tvheadend makes them: an automatic rule schedules the matching
/// EPG events at once, and removing it removes them. What Tvheadend refuses (an unknown channel or event) is a 400.
extension TvheadendStandIn {
    /// A channel: uuid, name, number.
    public struct StandInChannel: Sendable {
        public var uuid: String, name: String, number: Int
        public init(uuid: String, name: String, number: Int) { (self.uuid, self.name, self.number) = (uuid, name, number) }
    }

    /// An EPG event.
    public struct StandInEvent: Sendable {
        public var id: Int64, channel: String, title: String, start: Int64, stop: Int64, serieslink: String?
        public init(id: Int64, channel: String, title: String, start: Int64, stop: Int64, serieslink: String? = nil) {
            (self.id, self.channel, self.title, self.start, self.stop, self.serieslink) = (id, channel, title, start, stop, serieslink)
        }
    }

    struct Entry: Sendable {
        var uuid: String, channel: String, title: String, start: Int64, stop: Int64, broadcast: Int64?, rule: String, profile: String
        var json: [String: Any] {
            ["uuid": uuid, "channel": channel, "disp_title": title, "start": start, "stop": stop, "broadcast": broadcast ?? 0,
             "sched_status": "scheduled", "status": "Scheduled for recording", "autorec": rule, "errorcode": 0, "config_name": profile]
        }
    }

    struct Rule: Sendable {
        var uuid: String, title: String, name: String, channel: String, serieslink: String
        var json: [String: Any] {
            ["uuid": uuid, "title": title, "name": name, "channel": channel, "serieslink": serieslink, "enabled": true]
        }
    }

    struct DVRState: Sendable {
        var channels: [StandInChannel] = []
        var events: [StandInEvent] = []
        var profiles: [(uuid: String, name: String)] = [("SYNTHETICdefaultprofile0000000001", ""), ("SYNTHETICweekprofile000000000002", "Keep for a week")]
        var entries: [String: Entry] = [:]
        var rules: [String: Rule] = [:]
        var made = 0
    }

    /// The channels and EPG the recorder has.
    public func setGuide(channels: [StandInChannel], events: [StandInEvent]) {
        recorder.withLockedValue { $0.channels = channels; $0.events = events }
    }

    /// Recordings scheduled now (as `api/dvr/entry/grid_upcoming` lists them), and rules.
    public var recordingCount: Int { recorder.withLockedValue { $0.entries.count } }
    public var ruleCount: Int { recorder.withLockedValue { $0.rules.count } }

    func dvr(_ request: Receiver.Request) -> Receiver.Answer {
        let parameters = Self.parameters(request)
        return recorder.withLockedValue { state -> Receiver.Answer in
            switch request.path {
            case "/api/channel/grid":
                return Self.grid(state.channels.map { ["uuid": $0.uuid, "name": $0.name, "number": $0.number, "enabled": true] })
            case "/api/dvr/config/grid":
                return Self.grid(state.profiles.map { ["uuid": $0.uuid, "name": $0.name, "enabled": true] })
            case "/api/epg/events/grid":
                var events = state.events
                if let channel = parameters["channel"] { events = events.filter { $0.channel == channel } }
                for filter in Self.filters(parameters["filter"]) {
                    events = events.filter { event in
                        let value = filter.field == "start" ? event.start : event.stop
                        return filter.comparison == "gt" ? value > filter.value : filter.comparison == "lt" ? value < filter.value : value == filter.value
                    }
                }
                let entries = events.map { event -> [String: Any] in
                    var entry: [String: Any] = ["eventId": event.id, "channelUuid": event.channel, "title": event.title, "start": event.start,
                                                "stop": event.stop, "channelName": state.channels.first { $0.uuid == event.channel }?.name ?? ""]
                    if let link = event.serieslink { entry["serieslinkUri"] = link }
                    return entry
                }
                return Self.json(["totalCount": entries.count, "entries": entries])
            case "/api/dvr/entry/create_by_event":
                guard let id = parameters["event_id"].flatMap({ Int64($0) }), let event = state.events.first(where: { $0.id == id }) else {
                    return Receiver.Answer(status: 400, body: "Invalid event", contentType: "text/plain")
                }
                let uuid = Self.schedule(event, rule: nil, profile: parameters["config_uuid"] ?? "", in: &state)
                return Self.json(["uuid": [uuid]])
            case "/api/dvr/entry/create":
                guard let conf = parameters["conf"].flatMap(Self.object), let channel = conf["channel"] as? String,
                      state.channels.contains(where: { $0.uuid == channel }), let start = (conf["start"] as? NSNumber)?.int64Value,
                      let stop = (conf["stop"] as? NSNumber)?.int64Value, start < stop,
                      let title = (conf["title"] as? [String: String])?.values.first else {
                    return Receiver.Answer(status: 400, body: "Invalid configuration", contentType: "text/plain")
                }
                state.made += 1
                let uuid = String(format: "SYNTHETICentry%018d", state.made)
                state.entries[uuid] = Entry(uuid: uuid, channel: channel, title: title, start: start, stop: stop, broadcast: nil, rule: "",
                                            profile: conf["config_name"] as? String ?? "")
                return Self.json(["uuid": uuid])
            case "/api/dvr/autorec/create", "/api/dvr/autorec/create_by_series":
                var title: String, channel: String?, link: String?
                if request.path.hasSuffix("create_by_series") {
                    guard let id = parameters["event_id"].flatMap({ Int64($0) }), let event = state.events.first(where: { $0.id == id }),
                          let series = event.serieslink else {
                        return Receiver.Answer(status: 400, body: "Invalid event", contentType: "text/plain")
                    }
                    (title, channel, link) = (event.title, event.channel, series)
                } else {
                    guard let conf = parameters["conf"].flatMap(Self.object), let pattern = conf["title"] as? String, !pattern.isEmpty else {
                        return Receiver.Answer(status: 400, body: "Invalid configuration", contentType: "text/plain")
                    }
                    (title, channel, link) = (pattern, conf["channel"] as? String, nil)
                    if let channel, !state.channels.contains(where: { $0.uuid == channel }) {
                        return Receiver.Answer(status: 400, body: "Invalid channel", contentType: "text/plain")
                    }
                }
                state.made += 1
                let uuid = String(format: "SYNTHETICrule%019d", state.made)
                state.rules[uuid] = Rule(uuid: uuid, title: link == nil ? title : "", name: title, channel: channel ?? "", serieslink: link ?? "")
                let matcher = link == nil ? try? NSRegularExpression(pattern: title, options: [.caseInsensitive]) : nil
                for event in state.events where (channel == nil || event.channel == channel) {
                    let matches = link.map { event.serieslink == $0 }
                        ?? (matcher?.firstMatch(in: event.title, range: NSRange(event.title.startIndex..., in: event.title)) != nil)
                    if matches { _ = Self.schedule(event, rule: uuid, profile: parameters["config_uuid"] ?? "", in: &state) }
                }
                return Self.json(["uuid": request.path.hasSuffix("create_by_series") ? [uuid] as Any : uuid as Any])
            case "/api/dvr/entry/grid_upcoming":
                return Self.grid(state.entries.values.sorted { $0.start < $1.start }.map(\.json))
            case "/api/dvr/autorec/grid":
                return Self.grid(state.rules.values.map(\.json))
            case "/api/dvr/entry/cancel":
                guard let uuid = parameters["uuid"], state.entries.removeValue(forKey: uuid) != nil else {
                    return Receiver.Answer(status: 400, body: "Invalid uuid", contentType: "text/plain")
                }
                return Self.json([:])
            case "/api/idnode/delete":
                guard let uuid = parameters["uuid"], state.rules.removeValue(forKey: uuid) != nil || state.entries.removeValue(forKey: uuid) != nil else {
                    return Receiver.Answer(status: 400, body: "Invalid uuid", contentType: "text/plain")
                }
                state.entries = state.entries.filter { $0.value.rule != uuid }
                return Self.json([:])
            default:
                return Receiver.Answer(status: 404, body: "Not found", contentType: "text/plain")
            }
        }
    }

    private static func schedule(_ event: StandInEvent, rule: String?, profile: String, in state: inout DVRState) -> String {
        if let existing = state.entries.first(where: { $0.value.broadcast == event.id })?.key { return existing }
        state.made += 1
        let uuid = String(format: "SYNTHETICentry%018d", state.made)
        state.entries[uuid] = Entry(uuid: uuid, channel: event.channel, title: event.title, start: event.start, stop: event.stop,
                                    broadcast: event.id, rule: rule ?? "", profile: profile)
        return uuid
    }

    /// The request's parameters: the query's, then a form body's.
    static func parameters(_ request: Receiver.Request) -> [String: String] {
        var parameters: [String: String] = [:]
        let body = request.headers["content-type"]?.hasPrefix("application/x-www-form-urlencoded") == true ? String(decoding: request.body, as: UTF8.self) : ""
        for text in [request.query, body] where !text.isEmpty {
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
                if parts.count == 2 { parameters[parts[0]] = parts[1] }
            }
        }
        return parameters
    }

    static func filters(_ text: String?) -> [(field: String, value: Int64, comparison: String)] {
        guard let text, let list = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] else { return [] }
        return list.compactMap { item in
            guard let field = item["field"] as? String, let value = (item["value"] as? NSNumber)?.int64Value else { return nil }
            return (field, value, item["comparison"] as? String ?? "eq")
        }
    }

    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    static func grid(_ entries: [[String: Any]]) -> Receiver.Answer {
        json(["entries": entries, "total": entries.count])
    }

    static func json(_ object: [String: Any]) -> Receiver.Answer {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Receiver.Answer(json: String(decoding: data, as: UTF8.self))
    }
}
