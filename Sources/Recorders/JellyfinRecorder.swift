import Foundation
import GuideCore
import GuideHTTP

/// Jellyfin (or Emby) as a recorder, through its Live TV API with an API key (Dashboard > API Keys) as the web client
/// records: channels from `GET /LiveTv/Channels`; a programme found in its own guide (`GET /LiveTv/Programs` on the
/// mapped channel near the start), its timer defaults (`GET /LiveTv/Timers/Defaults?programId=`) sent back as a timer
/// (`POST /LiveTv/Timers`) or a series timer (`POST /LiveTv/SeriesTimers`); state from `GET /LiveTv/Timers` (its
/// `Status`: conflicts included) and `GET /LiveTv/SeriesTimers`; cancelled with `DELETE /LiveTv/Timers/ID` and
/// `DELETE /LiveTv/SeriesTimers/ID`. Jellyfin records only what its guide has: a programme it does not list is refused
/// with that said. Calls go through the one client of the server (``JellyfinServer``).
public struct JellyfinRecorder: Recorder {
    let call: RecorderCall
    static let slack: TimeInterval = 10 * 60

    public init(_ server: JellyfinServer) {
        call = server.call
    }

    public func channels() async throws -> [RecorderChannel] {
        try await call.decode(Items<Channel>.self, "GET", "/LiveTv/Channels?addCurrentProgram=false").items
            .map { RecorderChannel(id: $0.id, name: $0.name ?? $0.id, number: $0.channelNumber ?? $0.number) }
    }

    public func profiles() async throws -> [RecorderProfile] { [] }

    public func record(_ request: RecordingRequest) async throws -> ScheduledRecording {
        let program = try await program(for: request)
        if let existing = try await scheduled().first(where: { $0.channel == request.channel && $0.id == program.timerId }) { return existing }
        let defaults = try await call.send("GET", "/LiveTv/Timers/Defaults?programId=" + Self.query(program.id))
        _ = try await call.send("POST", "/LiveTv/Timers", json: defaults)
        guard let timer = try await timers().first(where: { $0.programId == program.id }) else {
            throw RecorderError(.refused, saying: "{recorder} did not keep the timer", ["recorder": "\(call.kind)"])
        }
        return Self.recording(timer)
    }

    public func recordSeries(_ request: RecordingRequest) async throws -> RecordingRule {
        let program = try await program(for: request)
        let defaults = try await call.send("GET", "/LiveTv/Timers/Defaults?programId=" + Self.query(program.id))
        _ = try await call.send("POST", "/LiveTv/SeriesTimers", json: defaults)
        guard let rule = try await call.decode(Items<SeriesTimer>.self, "GET", "/LiveTv/SeriesTimers").items
            .first(where: { $0.programId == program.id || ($0.name == program.name && $0.channelId == request.channel) }) else {
            throw RecorderError(.refused, saying: "{recorder} did not keep the series timer", ["recorder": "\(call.kind)"])
        }
        return RecordingRule(id: rule.id, title: rule.name ?? "", channel: rule.channelId)
    }

    public func scheduled() async throws -> [ScheduledRecording] {
        try await timers().filter { $0.status != "Cancelled" }.map(Self.recording)
    }

    public func rules() async throws -> [RecordingRule] {
        try await call.decode(Items<SeriesTimer>.self, "GET", "/LiveTv/SeriesTimers").items
            .map { RecordingRule(id: $0.id, title: $0.name ?? "", channel: $0.recordAnyChannel == true ? nil : $0.channelId) }
    }

    public func cancel(recording id: String) async throws {
        _ = try await call.send("DELETE", "/LiveTv/Timers/" + Self.path(id))
    }

    public func cancel(rule id: String) async throws {
        _ = try await call.send("DELETE", "/LiveTv/SeriesTimers/" + Self.path(id))
    }

    func timers() async throws -> [Timer] {
        try await call.decode(Items<Timer>.self, "GET", "/LiveTv/Timers").items
    }

    /// The programme in Jellyfin's guide on the request's channel that starts nearest its start, the same title first.
    func program(for request: RecordingRequest) async throws -> Program {
        let from = Self.stamp(request.start.addingTimeInterval(-Self.slack)), to = Self.stamp(request.start.addingTimeInterval(Self.slack))
        let programs = try await call.decode(Items<Program>.self, "GET", "/LiveTv/Programs?channelIds=" + Self.query(request.channel)
                                              + "&minStartDate=" + Self.query(from) + "&maxStartDate=" + Self.query(to)).items
        let title = request.title.lowercased()
        let near = programs.filter { program in
            (program.channelId == nil || program.channelId == request.channel)
                && program.startDate.flatMap(Self.date).map { abs($0.timeIntervalSince(request.start)) <= Self.slack } == true
        }
        guard let best = near.min(by: { a, b in
            let (aTitle, bTitle) = ((a.name ?? "").lowercased() == title, (b.name ?? "").lowercased() == title)
            if aTitle != bTitle { return aTitle }
            return abs((a.startDate.flatMap(Self.date) ?? .distantPast).timeIntervalSince(request.start))
                < abs((b.startDate.flatMap(Self.date) ?? .distantPast).timeIntervalSince(request.start))
        }) else {
            throw RecorderError(.refused, saying: "{recorder}'s guide has nothing on that channel at that time, and it records only what its guide lists", ["recorder": "\(call.kind)"])
        }
        return best
    }

    static func recording(_ timer: Timer) -> ScheduledRecording {
        let state: ScheduledRecording.State = switch timer.status ?? "" {
        case "InProgress": .recording
        case "Completed": .completed
        case "Error": .failed
        case "ConflictedNotOk": .conflict
        default: .scheduled
        }
        return ScheduledRecording(id: timer.id, channel: timer.channelId ?? "", title: timer.name ?? "",
                                  start: timer.startDate.flatMap(date) ?? .distantPast, stop: timer.endDate.flatMap(date) ?? .distantPast,
                                  state: state, status: Self.words(timer.status), rule: (timer.seriesTimerId ?? "").isEmpty ? nil : timer.seriesTimerId)
    }

    /// A timer's status in words.
    static func words(_ status: String?) -> String {
        switch status ?? "" {
        case "New": "Scheduled"
        case "InProgress": "Recording"
        case "Completed": "Recorded"
        case "ConflictedOk": "Scheduled (another recording overlaps, a tuner is free)"
        case "ConflictedNotOk": "Conflict: no tuner is free at that time"
        case "Error": "Failed"
        default: status ?? ""
        }
    }

    static func date(_ text: String) -> Date? {
        // Jellyfin writes seven decimals ("2026-02-15T20:00:00.0000000Z"); the seconds are what count.
        let whole = text.split(separator: ".").first.map(String.init) ?? text
        return CivilTime.parseISO8601(whole.hasSuffix("Z") ? whole : whole + "Z")
    }

    static func stamp(_ date: Date) -> String { date.formatted(.iso8601) }

    static func query(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    static func path(_ text: String) -> String { query(text) }

    // MARK: Jellyfin's answers, as its API documents them (PascalCase)

    struct Items<T: Decodable>: Decodable {
        var items: [T]
        enum CodingKeys: String, CodingKey { case items = "Items" }
    }

    struct Channel: Decodable {
        var id: String
        var name: String?
        var number: String?
        var channelNumber: String?
        enum CodingKeys: String, CodingKey { case id = "Id", name = "Name", number = "Number", channelNumber = "ChannelNumber" }
    }

    struct Program: Decodable {
        var id: String
        var channelId: String?
        var name: String?
        var startDate: String?
        var timerId: String?
        enum CodingKeys: String, CodingKey { case id = "Id", channelId = "ChannelId", name = "Name", startDate = "StartDate", timerId = "TimerId" }
    }

    struct Timer: Decodable {
        var id: String
        var channelId: String?
        var programId: String?
        var name: String?
        var startDate: String?
        var endDate: String?
        var status: String?
        var seriesTimerId: String?
        enum CodingKeys: String, CodingKey {
            case id = "Id", channelId = "ChannelId", programId = "ProgramId", name = "Name", startDate = "StartDate", endDate = "EndDate"
            case status = "Status", seriesTimerId = "SeriesTimerId"
        }
    }

    struct SeriesTimer: Decodable {
        var id: String
        var name: String?
        var channelId: String?
        var programId: String?
        var recordAnyChannel: Bool?
        enum CodingKeys: String, CodingKey {
            case id = "Id", name = "Name", channelId = "ChannelId", programId = "ProgramId", recordAnyChannel = "RecordAnyChannel"
        }
    }
}
