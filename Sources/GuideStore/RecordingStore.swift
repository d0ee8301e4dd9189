import Foundation
import GuideCore

/// The recorder an admin set up (one a guide), the channels mapped onto it, who may record, and what viewers asked it
/// to record: each request kept with the recorder's own id, state and words for it, so a recorder that is off loses
/// nothing (the request waits and is sent again) and the guide shows what is scheduled.
public protocol RecordingStore: Sendable {
    func recorder() async throws -> RecorderSettings?
    /// Sets the recorder (nil: none); its channel mapping is kept for a recorder of the same kind and address.
    func setRecorder(_ settings: RecorderSettings?, at instant: Date) async throws
    /// tvguide's channels mapped to the recorder's channel ids.
    func recorderChannels() async throws -> [ChannelID: String]
    /// Replaces the mapping.
    func setRecorderChannels(_ mapping: [ChannelID: String]) async throws
    /// Whether `profile` may ask the recorder to record (admins always may).
    func setCanRecord(_ profile: ProfileID, _ canRecord: Bool) async throws
    /// The requests, soonest first, at most `limit`.
    func recordings(limit: Int) async throws -> [RecordingEntry]
    /// The requests whose programme overlaps `window`.
    func recordings(in window: TimeWindow) async throws -> [RecordingEntry]
    func recording(_ id: Int64) async throws -> RecordingEntry?
    /// Adds a request; the one already there for the same channel, start and kind is returned instead.
    func addRecording(_ request: NewRecording, at instant: Date) async throws -> RecordingEntry
    func updateRecording(_ id: Int64, recorderID: String?, state: RecordingEntry.State, status: Sentence?, at instant: Date) async throws
    func removeRecording(_ id: Int64) async throws
}

/// A recorder's kind, address and credentials (the secret is a password, an API key or a PIN, as the kind takes).
public struct RecorderSettings: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case tvheadend, jellyfin, emby, nextpvr
    }

    public var kind: Kind
    public var address: String
    public var username: String?
    public var secret: String?
    /// The recording profile chosen (Tvheadend's DVR configuration); nil for the recorder's default.
    public var profile: String?

    public init(kind: Kind, address: String, username: String? = nil, secret: String? = nil, profile: String? = nil) {
        (self.kind, self.address, self.username, self.secret, self.profile) = (kind, address, username, secret, profile)
    }
}

/// What a viewer asks to record.
public struct NewRecording: Sendable, Equatable {
    public var profile: ProfileID
    public var series: Bool
    public var channel: ChannelID
    public var title: String
    public var subtitle: String?
    public var start: Date
    public var stop: Date

    public init(profile: ProfileID, series: Bool, channel: ChannelID, title: String, subtitle: String?, start: Date, stop: Date) {
        (self.profile, self.series, self.channel, self.title, self.subtitle, self.start, self.stop) = (profile, series, channel, title, subtitle, start, stop)
    }
}

/// A request to record, with what the recorder made of it.
public struct RecordingEntry: Sendable, Equatable, Identifiable {
    public enum State: String, Sendable, CaseIterable {
        /// Not sent yet: the recorder did not answer; it is sent again.
        case requested
        case scheduled, recording, completed, failed
        /// The recorder cannot record it (no tuner free), as it says.
        case conflict
        /// The recorder said no (its words in the status).
        case refused
    }

    public var id: Int64
    public var what: NewRecording
    /// The recorder's id for the recording (or, for a series, its rule).
    public var recorderID: String?
    public var state: State
    /// What the recorder or tvguide said of it, worded where it is shown (a recorder's own words as they came).
    public var status: Sentence?
    public var requested: Date
    public var updated: Date

    /// Whether the guide shows it as to be recorded (the red mark).
    public var isScheduled: Bool { [.requested, .scheduled, .recording].contains(state) }
}

/// The ``RecordingStore`` both stores implement, written once over ``SQLStatements``.
extension RecordingStore where Self: SQLBackend {
    public func recorder() async throws -> RecorderSettings? {
        try await reading { db in
            try await db.rows("SELECT kind, address, username, secret, profile FROM recorder WHERE id = 1").first.map { row in
                RecorderSettings(kind: RecorderSettings.Kind(rawValue: try row.value(0, as: String.self)) ?? .tvheadend,
                                 address: try row.value(1), username: try row.value(2), secret: try row.value(3), profile: try row.value(4))
            }
        }
    }

    public func setRecorder(_ settings: RecorderSettings?, at instant: Date) async throws {
        try await transaction { db in
            let old = try await db.rows("SELECT kind, address FROM recorder WHERE id = 1").first
            let same = try old.map { (try $0.value(0, as: String.self), try $0.value(1, as: String.self)) }
                .map { $0.0 == settings?.kind.rawValue && $0.1 == settings?.address } ?? false
            if !same { try await db.execute("DELETE FROM recorder_channel") }
            try await db.execute("DELETE FROM recorder WHERE id = 1")
            if let settings {
                try await db.execute("""
                    INSERT INTO recorder (id, kind, address, username, secret, profile, updated_at)
                    VALUES (1, \(settings.kind.rawValue), \(settings.address), \(settings.username), \(settings.secret), \(settings.profile), \(instant.unixSeconds))
                    """)
            }
        }
    }

    public func recorderChannels() async throws -> [ChannelID: String] {
        try await reading { db in
            var mapping: [ChannelID: String] = [:]
            for row in try await db.rows("SELECT channel_id, recorder_channel FROM recorder_channel") {
                mapping[ChannelID(try row.value(0, as: String.self))] = try row.value(1, as: String.self)
            }
            return mapping
        }
    }

    public func setRecorderChannels(_ mapping: [ChannelID: String]) async throws {
        try await transaction { db in
            try await db.execute("DELETE FROM recorder_channel")
            let rows = mapping.sorted { $0.key.rawValue < $1.key.rawValue }.map { [$0.key.rawValue.sqlValue, $0.value.sqlValue] }
            try await db.insert(rows) { chunk in "INSERT INTO recorder_channel (channel_id, recorder_channel) VALUES \(rows: chunk)" }
        }
    }

    public func setCanRecord(_ profile: ProfileID, _ canRecord: Bool) async throws {
        try await transaction { db in
            try await db.execute("UPDATE profile SET can_record = \(canRecord ? Int64(1) : Int64(0)) WHERE id = \(profile.rawValue)")
        }
    }

    public func recordings(limit: Int) async throws -> [RecordingEntry] {
        try await reading { db in
            try await db.rows("SELECT \(raw: Self.recordingColumns) FROM recording ORDER BY start, id LIMIT \(Int64(max(0, limit)))").map(Self.entry)
        }
    }

    public func recordings(in window: TimeWindow) async throws -> [RecordingEntry] {
        try await reading { db in
            try await db.rows("""
                SELECT \(raw: Self.recordingColumns) FROM recording
                WHERE stop > \(window.start.unixSeconds) AND start < \(window.end.unixSeconds) ORDER BY start, id
                """).map(Self.entry)
        }
    }

    public func recording(_ id: Int64) async throws -> RecordingEntry? {
        try await reading { db in try await db.rows("SELECT \(raw: Self.recordingColumns) FROM recording WHERE id = \(id)").first.map(Self.entry) }
    }

    public func addRecording(_ request: NewRecording, at instant: Date) async throws -> RecordingEntry {
        try await transaction { db in
            let series: Int64 = request.series ? 1 : 0
            try await db.execute("""
                INSERT INTO recording (profile_id, series, channel_id, title, subtitle, start, stop, state, requested_at, updated_at)
                VALUES (\(request.profile.rawValue), \(series), \(request.channel.rawValue), \(request.title), \(request.subtitle),
                        \(request.start.unixSeconds), \(request.stop.unixSeconds), \(RecordingEntry.State.requested.rawValue),
                        \(instant.unixSeconds), \(instant.unixSeconds))
                ON CONFLICT (channel_id, start, series) DO NOTHING
                """)
            guard let entry = try await db.rows("""
                SELECT \(raw: Self.recordingColumns) FROM recording
                WHERE channel_id = \(request.channel.rawValue) AND start = \(request.start.unixSeconds) AND series = \(series)
                """).first.map(Self.entry) else {
                throw StoreError(.failed, "the recording was not stored")
            }
            return entry
        }
    }

    public func updateRecording(_ id: Int64, recorderID: String?, state: RecordingEntry.State, status: Sentence?, at instant: Date) async throws {
        try await transaction { db in
            try await db.execute("""
                UPDATE recording SET recorder_id = \(recorderID), state = \(state.rawValue), status = \(status?.stored), updated_at = \(instant.unixSeconds)
                WHERE id = \(id)
                """)
        }
    }

    public func removeRecording(_ id: Int64) async throws {
        try await transaction { db in try await db.execute("DELETE FROM recording WHERE id = \(id)") }
    }

    private static var recordingColumns: StaticString {
        "id, profile_id, series, channel_id, title, subtitle, start, stop, recorder_id, state, status, requested_at, updated_at"
    }

    private static func entry(_ row: SQLRow) throws -> RecordingEntry {
        RecordingEntry(id: try row.value(0),
                       what: NewRecording(profile: ProfileID(rawValue: try row.value(1)), series: try row.value(2, as: Int64.self) != 0,
                                          channel: ChannelID(try row.value(3, as: String.self)), title: try row.value(4), subtitle: try row.value(5),
                                          start: Date(unixSeconds: try row.value(6)), stop: Date(unixSeconds: try row.value(7))),
                       recorderID: try row.value(8), state: RecordingEntry.State(rawValue: try row.value(9, as: String.self)) ?? .requested,
                       status: try row.value(10, as: String?.self).map(Sentence.init(stored:)), requested: Date(unixSeconds: try row.value(11)), updated: Date(unixSeconds: try row.value(12)))
    }
}
