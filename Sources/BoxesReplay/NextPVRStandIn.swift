import Crypto
import Foundation
import NIOConcurrencyHelpers
import TestReceivers

/// A stand-in for NextPVR's `/service` API (version 5 and later, JSON) on loopback, answering its methods as NextPVR's
/// clients read them (Jellyfin's NextPVR plugin and Kodi's pvr.nextpvr): `session.initiate` (a sid and a salt) and
/// `session.login` (md5(":" + md5(PIN) + ":" + salt)), then, with a signed-in sid, `channel.list`, `channel.listings`,
/// `recording.save`, `recording.list` (`filter=pending` or `conflict`), `recording.delete`, `recording.recurring.save`
/// (type 2: all episodes on the channel), `recording.recurring.list` and `recording.recurring.delete`; a refusal is
/// `{"stat": "fail"}` in a 200, as NextPVR answers. Its channels and guide are SYNTHETIC, set by the test; with one tuner
/// a recording that overlaps another is a conflict.
public final class NextPVRStandIn: Sendable {
    public struct StandInChannel: Sendable {
        public var id: Int64, name: String, number: Int64
        public init(id: Int64, name: String, number: Int64) { (self.id, self.name, self.number) = (id, name, number) }
    }

    public struct StandInListing: Sendable {
        public var id: Int64, channel: Int64, name: String, start: Int64, end: Int64
        public init(id: Int64, channel: Int64, name: String, start: Int64, end: Int64) {
            (self.id, self.channel, self.name, self.start, self.end) = (id, channel, name, start, end)
        }
    }

    struct Recording: Sendable { var id: Int64, listing: StandInListing, parent: Int64, status: String }
    struct Recurring: Sendable { var id: Int64, name: String, channel: Int64 }

    struct State: Sendable {
        var channels: [StandInChannel] = []
        var listings: [StandInListing] = []
        var recordings: [Recording] = []
        var recurrings: [Recurring] = []
        var salts: [String: String] = [:]
        var signedIn: Set<String> = []
        var made: Int64 = 0
    }

    let receiver: Receiver
    let pin: String
    private let state = NIOLockedValueBox(State())

    public init(pin: String = "4321") async throws {
        receiver = try await Receiver()
        self.pin = pin
        receiver.respond("/service") { [unowned self] request in answer(request) }
    }

    public func stop() async throws { try await receiver.stop() }
    public var port: Int { receiver.port }
    public var requests: [Receiver.Request] { receiver.requests }

    public func setGuide(channels: [StandInChannel], listings: [StandInListing]) {
        state.withLockedValue { $0.channels = channels; $0.listings = listings }
    }

    private func answer(_ request: Receiver.Request) -> Receiver.Answer {
        let query = JellyfinLiveTvStandIn.query(request.query)
        let fail = Self.json(["stat": "fail", "code": 8, "msg": "Invalid Session"])
        return state.withLockedValue { state -> Receiver.Answer in
            switch query["method"] ?? "" {
            case "session.initiate":
                state.made += 1
                let sid = String(format: "SYNTHETICsid%08d", state.made), salt = String(format: "SYNTHETICsalt%08d", state.made)
                state.salts[sid] = salt
                return Self.json(["sid": sid, "salt": salt])
            case "session.login":
                guard let sid = query["sid"], let salt = state.salts[sid],
                      query["md5"] == Self.md5(":" + Self.md5(pin) + ":" + salt) else {
                    return Self.json(["stat": "fail", "code": 4, "msg": "Login Failed"])
                }
                state.signedIn.insert(sid)
                return Self.json(["stat": "ok", "sid": sid])
            case let method where !state.signedIn.contains(query["sid"] ?? ""):
                _ = method
                return fail
            case "channel.list":
                return Self.json(["channels": state.channels.map { ["channelId": $0.id, "channelNumber": $0.number, "channelMinor": 0,
                                                                     "channelNumberFormated": String($0.number), "channelName": $0.name,
                                                                     "channelType": 1, "channelIcon": false] }])
            case "channel.listings":
                let channel = query["channel_id"].flatMap { Int64($0) }
                let from = query["start"].flatMap { Int64($0) } ?? 0, to = query["end"].flatMap { Int64($0) } ?? Int64.max
                let listings = state.listings.filter { $0.channel == channel && $0.end > from && $0.start < to }
                return Self.json(["listings": listings.map { listing -> [String: Any] in
                    var item: [String: Any] = ["id": listing.id, "name": listing.name, "start": listing.start, "end": listing.end, "description": ""]
                    if let recording = state.recordings.first(where: { $0.listing.id == listing.id }) {
                        item["recordingId"] = recording.id
                        item["recordingStatus"] = recording.status
                    }
                    return item
                }])
            case "recording.save":
                guard let id = query["event_id"].flatMap({ Int64($0) }), let listing = state.listings.first(where: { $0.id == id }) else {
                    return Self.json(["stat": "fail", "code": 1, "msg": "Invalid event"])
                }
                Self.schedule(listing, parent: 0, in: &state)
                return Self.json(["stat": "ok"])
            case "recording.recurring.save":
                guard query["recurring_type"] == "2", let id = query["event_id"].flatMap({ Int64($0) }),
                      let listing = state.listings.first(where: { $0.id == id }) else {
                    return Self.json(["stat": "fail", "code": 1, "msg": "Invalid recurring recording"])
                }
                state.made += 1
                let rule = Recurring(id: state.made, name: listing.name, channel: listing.channel)
                state.recurrings.append(rule)
                for airing in state.listings where airing.name == listing.name && airing.channel == listing.channel {
                    Self.schedule(airing, parent: rule.id, in: &state)
                }
                return Self.json(["stat": "ok"])
            case "recording.list":
                let wanted = query["filter"] == "conflict" ? "Conflict" : "Pending"
                return Self.json(["recordings": state.recordings.filter { $0.status == wanted }.map { recording -> [String: Any] in
                    ["id": recording.id, "name": recording.listing.name, "startTime": recording.listing.start,
                     "duration": recording.listing.end - recording.listing.start, "epgEventId": recording.listing.id,
                     "status": recording.status, "channelId": recording.listing.channel, "recurring": recording.parent > 0,
                     "recurringParent": recording.parent, "prePadding": 0, "postPadding": 0]
                }])
            case "recording.delete":
                guard let id = query["recording_id"].flatMap({ Int64($0) }), state.recordings.contains(where: { $0.id == id }) else {
                    return Self.json(["stat": "fail", "code": 1, "msg": "Invalid recording"])
                }
                state.recordings.removeAll { $0.id == id }
                return Self.json(["stat": "ok"])
            case "recording.recurring.list":
                return Self.json(["recurrings": state.recurrings.map { ["id": $0.id, "type": 2, "name": $0.name, "channelId": $0.channel,
                                                                         "epgTitle": $0.name, "enabled": true, "keep": 0] }])
            case "recording.recurring.delete":
                guard let id = query["recurring_id"].flatMap({ Int64($0) }), state.recurrings.contains(where: { $0.id == id }) else {
                    return Self.json(["stat": "fail", "code": 1, "msg": "Invalid recurring recording"])
                }
                state.recurrings.removeAll { $0.id == id }
                state.recordings.removeAll { $0.parent == id }
                return Self.json(["stat": "ok"])
            default:
                return Self.json(["stat": "fail", "code": 2, "msg": "Unknown method"])
            }
        }
    }

    private static func schedule(_ listing: StandInListing, parent: Int64, in state: inout State) {
        guard !state.recordings.contains(where: { $0.listing.id == listing.id }) else { return }
        state.made += 1
        let busy = state.recordings.contains { $0.listing.start < listing.end && listing.start < $0.listing.end }
        state.recordings.append(Recording(id: state.made, listing: listing, parent: parent, status: busy ? "Conflict" : "Pending"))
    }

    static func md5(_ text: String) -> String {
        Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func json(_ object: [String: Any]) -> Receiver.Answer {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Receiver.Answer(json: String(decoding: data, as: UTF8.self))
    }
}
