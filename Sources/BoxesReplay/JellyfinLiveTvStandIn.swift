import Foundation
import NIOConcurrencyHelpers
import TestReceivers

/// A stand-in for Jellyfin's (and Emby's) Live TV API on loopback, answering the paths, methods, authentication and
/// JSON (PascalCase) its API documents (Jellyfin.Api LiveTvController; the Emby developer documentation's Live TV
/// reference): `GET /LiveTv/Channels`, `GET /LiveTv/Programs`, `GET /LiveTv/Timers/Defaults`, `GET`/`POST` `/LiveTv/Timers`
/// and `/LiveTv/SeriesTimers`, `DELETE /LiveTv/Timers/ID` and `/LiveTv/SeriesTimers/ID`; 401 without the API key
/// (`Authorization: MediaBrowser ... Token="KEY"` or `X-Emby-Token`). Its channels and guide are SYNTHETIC, set by the
/// test. With one tuner (``tuners``), a timer overlapping another is `ConflictedNotOk`, as Jellyfin marks it.
public final class JellyfinLiveTvStandIn: Sendable {
    public struct StandInChannel: Sendable {
        public var id: String, name: String, number: String
        public init(id: String, name: String, number: String) { (self.id, self.name, self.number) = (id, name, number) }
    }

    public struct StandInProgram: Sendable {
        public var id: String, channel: String, name: String, start: Date, end: Date
        public init(id: String, channel: String, name: String, start: Date, end: Date) {
            (self.id, self.channel, self.name, self.start, self.end) = (id, channel, name, start, end)
        }
    }

    struct Timer: Sendable { var id: String, program: StandInProgram, series: String?, status: String }
    struct Series: Sendable { var id: String, name: String, channel: String, program: String }

    struct State: Sendable {
        var channels: [StandInChannel] = []
        var programs: [StandInProgram] = []
        var timers: [Timer] = []
        var series: [Series] = []
        var made = 0
    }

    let receiver: Receiver
    let key: String
    let tuners: Int
    private let state = NIOLockedValueBox(State())

    public init(key: String = "SYNTHETICjellyfinapikey0000000001", tuners: Int = 1) async throws {
        receiver = try await Receiver()
        (self.key, self.tuners) = (key, tuners)
        receiver.respond("/LiveTv/") { [unowned self] request in answer(request) }
    }

    public func stop() async throws { try await receiver.stop() }
    public var port: Int { receiver.port }
    public var requests: [Receiver.Request] { receiver.requests }

    public func setGuide(channels: [StandInChannel], programs: [StandInProgram]) {
        state.withLockedValue { $0.channels = channels; $0.programs = programs }
    }

    private func answer(_ request: Receiver.Request) -> Receiver.Answer {
        let authorization = request.headers["authorization"] ?? ""
        guard authorization.contains("Token=\"\(key)\"") || request.headers["x-emby-token"] == key else {
            return Receiver.Answer(status: 401, body: "", contentType: "text/plain")
        }
        let query = Self.query(request.query)
        return state.withLockedValue { state -> Receiver.Answer in
            switch (request.method, request.path) {
            case ("GET", "/LiveTv/Channels"):
                return Self.items(state.channels.map { ["Id": $0.id, "Name": $0.name, "ChannelNumber": $0.number, "Number": $0.number, "Type": "TvChannel"] })
            case ("GET", "/LiveTv/Programs"):
                let ids = Set((query["channelIds"] ?? "").split(separator: ",").map(String.init))
                let from = query["minStartDate"].flatMap(Self.date) ?? .distantPast, to = query["maxStartDate"].flatMap(Self.date) ?? .distantFuture
                let programs = state.programs.filter { (ids.isEmpty || ids.contains($0.channel)) && $0.start >= from && $0.start <= to }
                return Self.items(programs.map { program in
                    var item: [String: Any] = ["Id": program.id, "ChannelId": program.channel, "Name": program.name, "Type": "Program",
                                               "StartDate": Self.stamp(program.start), "EndDate": Self.stamp(program.end)]
                    if let timer = state.timers.first(where: { $0.program.id == program.id }) { item["TimerId"] = timer.id }
                    return item
                })
            case ("GET", "/LiveTv/Timers/Defaults"):
                guard let program = state.programs.first(where: { $0.id == query["programId"] }) else {
                    return Receiver.Answer(status: 404, body: "", contentType: "text/plain")
                }
                return Self.json(["ProgramId": program.id, "ChannelId": program.channel, "Name": program.name, "StartDate": Self.stamp(program.start),
                                  "EndDate": Self.stamp(program.end), "PrePaddingSeconds": 0, "PostPaddingSeconds": 0, "IsPrePaddingRequired": false,
                                  "IsPostPaddingRequired": false, "RecordAnyTime": false, "RecordAnyChannel": false, "RecordNewOnly": false,
                                  "SkipEpisodesInLibrary": false, "KeepUpTo": 0, "KeepUntil": "UntilDeleted", "Priority": 0, "Days": [] as [String],
                                  "ServiceName": "Emby"])
            case ("POST", "/LiveTv/Timers"):
                guard let body = request.json as [String: Any]?, let id = body["ProgramId"] as? String,
                      let program = state.programs.first(where: { $0.id == id }) else {
                    return Receiver.Answer(status: 400, body: "", contentType: "text/plain")
                }
                Self.schedule(program, series: nil, tuners: tuners, in: &state)
                return Receiver.Answer(status: 204, body: "", contentType: "text/plain")
            case ("POST", "/LiveTv/SeriesTimers"):
                guard let body = request.json as [String: Any]?, let id = body["ProgramId"] as? String,
                      let program = state.programs.first(where: { $0.id == id }) else {
                    return Receiver.Answer(status: 400, body: "", contentType: "text/plain")
                }
                state.made += 1
                let series = String(format: "SYNTHETICseries%017d", state.made)
                state.series.append(Series(id: series, name: program.name, channel: program.channel, program: program.id))
                for airing in state.programs where airing.name == program.name && airing.channel == program.channel {
                    Self.schedule(airing, series: series, tuners: tuners, in: &state)
                }
                return Receiver.Answer(status: 204, body: "", contentType: "text/plain")
            case ("GET", "/LiveTv/Timers"):
                return Self.items(state.timers.sorted { $0.program.start < $1.program.start }.map { timer in
                    ["Id": timer.id, "Type": "Timer", "ChannelId": timer.program.channel, "ProgramId": timer.program.id, "Name": timer.program.name,
                     "StartDate": Self.stamp(timer.program.start), "EndDate": Self.stamp(timer.program.end), "Status": timer.status,
                     "SeriesTimerId": timer.series ?? "", "PrePaddingSeconds": 0, "PostPaddingSeconds": 0]
                })
            case ("GET", "/LiveTv/SeriesTimers"):
                return Self.items(state.series.map { ["Id": $0.id, "Type": "SeriesTimer", "Name": $0.name, "ChannelId": $0.channel, "ProgramId": $0.program,
                                                      "RecordAnyChannel": false, "RecordAnyTime": false] })
            case ("DELETE", let path) where path.hasPrefix("/LiveTv/Timers/"):
                let id = String(path.dropFirst("/LiveTv/Timers/".count))
                guard state.timers.contains(where: { $0.id == id }) else { return Receiver.Answer(status: 404, body: "", contentType: "text/plain") }
                state.timers.removeAll { $0.id == id }
                return Receiver.Answer(status: 204, body: "", contentType: "text/plain")
            case ("DELETE", let path) where path.hasPrefix("/LiveTv/SeriesTimers/"):
                let id = String(path.dropFirst("/LiveTv/SeriesTimers/".count))
                guard state.series.contains(where: { $0.id == id }) else { return Receiver.Answer(status: 404, body: "", contentType: "text/plain") }
                state.series.removeAll { $0.id == id }
                state.timers.removeAll { $0.series == id }
                return Receiver.Answer(status: 204, body: "", contentType: "text/plain")
            default:
                return Receiver.Answer(status: 404, body: "", contentType: "text/plain")
            }
        }
    }

    private static func schedule(_ program: StandInProgram, series: String?, tuners: Int, in state: inout State) {
        guard !state.timers.contains(where: { $0.program.id == program.id }) else { return }
        state.made += 1
        let overlapping = state.timers.filter { $0.program.start < program.end && program.start < $0.program.end }.count
        state.timers.append(Timer(id: String(format: "SYNTHETICtimer%018d", state.made), program: program, series: series,
                                  status: overlapping >= tuners ? "ConflictedNotOk" : "New"))
    }

    static func query(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text.split(separator: ".").first.map { String($0) + (text.hasSuffix("Z") && !$0.hasSuffix("Z") ? "Z" : "") } ?? text)
    }

    static func stamp(_ date: Date) -> String {
        // As Jellyfin writes dates: seven decimals, UTC.
        let formatter = ISO8601DateFormatter()
        return String(formatter.string(from: date).dropLast()) + ".0000000Z"
    }

    static func items(_ items: [[String: Any]]) -> Receiver.Answer {
        json(["Items": items, "TotalRecordCount": items.count, "StartIndex": 0])
    }

    static func json(_ object: [String: Any]) -> Receiver.Answer {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Receiver.Answer(json: String(decoding: data, as: UTF8.self))
    }
}
