import Crypto
import Foundation
import GuideCore
import GuideHTTP

/// NextPVR (version 5 or later) as a recorder, through its `/service` API in JSON with the PIN set in its settings: a
/// session (`session.initiate`, then `session.login` with md5(":" + md5(PIN) + ":" + salt), never the PIN itself);
/// channels from `channel.list`; a programme found in its guide (`channel.listings` on the mapped channel near the
/// start) recorded by its event (`recording.save&event_id=`), a series as "all episodes" on the channel
/// (`recording.recurring.save&recurring_type=2`); state from `recording.list` (pending and conflict, with NextPVR's own
/// status) and `recording.recurring.list`; cancelled with `recording.delete` and `recording.recurring.delete`. NextPVR
/// answers a refusal with `"stat": "fail"` in a 200; that is read as the refusal it is.
public struct NextPVRRecorder: Recorder {
    let call: RecorderCall
    let pin: String
    static let slack: TimeInterval = 10 * 60

    public init(address: String, pin: String, transport: any HTTPTransport) {
        call = RecorderCall(transport: transport, base: address.hasSuffix("/") ? String(address.dropLast()) : address,
                            credentials: nil, kind: "NextPVR")
        self.pin = pin
    }

    public func channels() async throws -> [RecorderChannel] {
        let sid = try await session()
        return try await method(ChannelRoot.self, "channel.list", sid: sid).channels.map { channel in
            let number = channel.channelNumberFormated.flatMap { $0.isEmpty ? nil : $0 }
                ?? channel.channelNumber.map { $0 > 0 ? String($0) + ((channel.channelMinor ?? 0) > 0 ? ".\(channel.channelMinor ?? 0)" : "") : "" }
            return RecorderChannel(id: String(channel.channelId), name: channel.channelName ?? String(channel.channelId),
                                   number: number.flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    public func profiles() async throws -> [RecorderProfile] { [] }

    public func record(_ request: RecordingRequest) async throws -> ScheduledRecording {
        let sid = try await session()
        let listing = try await listing(for: request, sid: sid)
        if let existing = try await scheduled(sid: sid).first(where: { $0.id == String(listing.recordingId ?? 0) || $0.event == listing.id }) {
            return existing.recording
        }
        _ = try await method(Stat.self, "recording.save", sid: sid, [("event_id", String(listing.id))])
        guard let made = try await scheduled(sid: sid).first(where: { $0.event == listing.id }) else {
            throw RecorderError(.refused, saying: "NextPVR did not keep the recording")
        }
        return made.recording
    }

    public func recordSeries(_ request: RecordingRequest) async throws -> RecordingRule {
        let sid = try await session()
        let listing = try await listing(for: request, sid: sid)
        // Type 2: every episode of the programme on this channel, at any time.
        _ = try await method(Stat.self, "recording.recurring.save", sid: sid,
                             [("recurring_type", "2"), ("channel_id", request.channel), ("event_id", String(listing.id))])
        guard let rule = try await recurrings(sid: sid).first(where: { $0.name == listing.name || $0.epgTitle == listing.name }) else {
            throw RecorderError(.refused, saying: "NextPVR did not keep the series rule")
        }
        return RecordingRule(id: String(rule.id), title: rule.name ?? listing.name ?? "", channel: rule.channelId.map(String.init))
    }

    public func scheduled() async throws -> [ScheduledRecording] {
        try await scheduled(sid: try await session()).map(\.recording)
    }

    public func rules() async throws -> [RecordingRule] {
        try await recurrings(sid: try await session()).map { rule in
            RecordingRule(id: String(rule.id), title: rule.name ?? rule.epgTitle ?? "", channel: rule.channelId.flatMap { $0 == 0 ? nil : String($0) })
        }
    }

    public func cancel(recording id: String) async throws {
        _ = try await method(Stat.self, "recording.delete", sid: try await session(), [("recording_id", id)])
    }

    public func cancel(rule id: String) async throws {
        _ = try await method(Stat.self, "recording.recurring.delete", sid: try await session(), [("recurring_id", id)])
    }

    /// A session signed in with the PIN: its id.
    func session() async throws -> String {
        let keys = try await call.decode(Keys.self, "GET", "/service?method=session.initiate&ver=1.0&device=tvguide&format=json")
        guard let sid = keys.sid, let salt = keys.salt else { throw RecorderError(.unexpected, saying: "NextPVR started no session") }
        let answer = try await call.decode(Stat.self, "GET", "/service?method=session.login&format=json&sid=" + JSONCall.encoded([("", sid)]).dropFirst()
                                            + "&md5=" + Self.md5(":" + Self.md5(pin) + ":" + salt))
        guard answer.stat == "ok" else { throw RecorderError(.refused, saying: "NextPVR refused the PIN") }
        return sid
    }

    /// `name` with the session and `parameters`, in JSON; a `"stat": "fail"` answer is a refusal.
    func method<T: Decodable>(_ type: T.Type, _ name: String, sid: String, _ parameters: [(String, String)] = []) async throws -> T {
        let query = JSONCall.encoded([("method", name), ("format", "json"), ("sid", sid)] + parameters)
        let data = try await call.send("GET", "/service?" + query)
        if let stat = try? JSONDecoder().decode(Stat.self, from: data), stat.stat == "fail" {
            throw stat.msg.map { RecorderError(.refused, saying: "NextPVR refused {method}: {answer}", ["method": name, "answer": $0]) }
                ?? RecorderError(.refused, saying: "NextPVR refused {method}", ["method": name])
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw RecorderError(.unexpected, saying: "NextPVR did not answer {method} as its API does: {error}", ["method": name, "error": "\(error)"])
        }
    }

    func listing(for request: RecordingRequest, sid: String) async throws -> Listing {
        let start = Int64(request.start.timeIntervalSince1970), slack = Int64(Self.slack)
        let listings = try await method(ListingRoot.self, "channel.listings", sid: sid,
                                        [("channel_id", request.channel), ("start", String(start - slack)), ("end", String(start + slack + 1))]).listings
        let title = request.title.lowercased()
        let near = listings.filter { abs(Self.seconds($0.start) - start) <= slack }
        guard let best = near.min(by: { a, b in
            let (aTitle, bTitle) = ((a.name ?? "").lowercased() == title, (b.name ?? "").lowercased() == title)
            if aTitle != bTitle { return aTitle }
            return abs(Self.seconds(a.start) - start) < abs(Self.seconds(b.start) - start)
        }) else {
            throw RecorderError(.refused, saying: "NextPVR's guide has nothing on that channel at that time")
        }
        return best
    }

    struct Pending {
        var recording: ScheduledRecording
        var event: Int64?
        var id: String { recording.id }
    }

    func scheduled(sid: String) async throws -> [Pending] {
        var found: [Pending] = []
        for filter in ["pending", "conflict"] {
            for item in try await method(RecordingRoot.self, "recording.list", sid: sid, [("filter", filter)]).recordings
            where !found.contains(where: { $0.id == String(item.id) }) {
                let start = Self.seconds(item.startTime)
                let state: ScheduledRecording.State = switch (item.status ?? "").lowercased() {
                case "recording": .recording
                case "conflict": .conflict
                case "ready": .completed
                case "failed": .failed
                default: filter == "conflict" ? .conflict : .scheduled
                }
                let rule = (item.recurringParent ?? 0) > 0 ? item.recurringParent.map(String.init) : nil
                found.append(Pending(recording: ScheduledRecording(
                    id: String(item.id), channel: item.channelId.map(String.init) ?? "", title: item.name ?? "",
                    start: Date(timeIntervalSince1970: TimeInterval(start)),
                    stop: Date(timeIntervalSince1970: TimeInterval(start + RecorderTime.length(item.duration))), state: state,
                    status: item.status ?? "", rule: rule), event: item.epgEventId))
            }
        }
        return found
    }

    func recurrings(sid: String) async throws -> [Recurring] {
        try await method(RecurringRoot.self, "recording.recurring.list", sid: sid).recurrings
    }

    /// NextPVR's times are seconds; some versions write milliseconds (13 digits): those are cut to seconds. Bounded
    /// (``RecorderTime``).
    static func seconds(_ value: Int64?) -> Int64 {
        guard let value else { return 0 }
        return RecorderTime.seconds(value > 99_999_999_999 ? value / 1000 : value)
    }

    static func md5(_ text: String) -> String {
        Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: NextPVR's answers (JSON, camelCase)

    struct Keys: Decodable { var sid: String?; var salt: String? }
    struct Stat: Decodable { var stat: String?; var msg: String? }

    struct ChannelRoot: Decodable { var channels: [Channel] }
    struct Channel: Decodable {
        var channelId: Int64
        var channelNumber: Int64?
        var channelMinor: Int64?
        var channelNumberFormated: String?
        var channelName: String?
    }

    struct ListingRoot: Decodable { var listings: [Listing] }
    struct Listing: Decodable {
        var id: Int64
        var name: String?
        var start: Int64?
        var end: Int64?
        var recordingId: Int64?
    }

    struct RecordingRoot: Decodable { var recordings: [Item] }
    struct Item: Decodable {
        var id: Int64
        var name: String?
        var startTime: Int64?
        var duration: Int64?
        var epgEventId: Int64?
        var status: String?
        var channelId: Int64?
        var recurringParent: Int64?
    }

    struct RecurringRoot: Decodable { var recurrings: [Recurring] }
    struct Recurring: Decodable {
        var id: Int64
        var type: Int64?
        var name: String?
        var channelId: Int64?
        var epgTitle: String?
    }
}
