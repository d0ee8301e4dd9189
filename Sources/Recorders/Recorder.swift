import Foundation
import GuideCore

/// A recorder on the viewer's network that tvguide asks to record: Tvheadend (``TvheadendRecorder``), and next
/// Jellyfin or Emby and NextPVR. Each speaks its own documented API; this is what tvguide needs of all of them.
public protocol Recorder: Sendable {
    /// Its channels, for the admin to map tvguide's channels onto.
    func channels() async throws -> [RecorderChannel]
    /// The recording profiles an admin may choose from (Tvheadend's DVR configurations); empty where there are none.
    func profiles() async throws -> [RecorderProfile]
    /// Records one programme: by the recorder's own guide entry for it when it has one, else by time on the channel.
    func record(_ request: RecordingRequest) async throws -> ScheduledRecording
    /// Records every airing of the programme's series (an automatic recording rule, a series timer).
    func recordSeries(_ request: RecordingRequest) async throws -> RecordingRule
    /// What it has scheduled or is recording now, with its own state.
    func scheduled() async throws -> [ScheduledRecording]
    /// Its series rules.
    func rules() async throws -> [RecordingRule]
    /// Cancels a scheduled recording (a running one stops).
    func cancel(recording id: String) async throws
    /// Removes a series rule, and the recordings it scheduled.
    func cancel(rule id: String) async throws
}

/// A channel as the recorder names it.
public struct RecorderChannel: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var number: String?

    public init(id: String, name: String, number: String?) {
        (self.id, self.name, self.number) = (id, name, number)
    }
}

/// A recording profile (where and how it records: padding, storage, retention).
public struct RecorderProfile: Sendable, Equatable, Codable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        (self.id, self.name) = (id, name)
    }
}

/// What to record: a programme of tvguide's, on the recorder's channel it is mapped to.
public struct RecordingRequest: Sendable, Equatable {
    public var channel: String
    public var title: String
    public var subtitle: String?
    public var start: Date
    public var stop: Date
    /// The profile an admin chose; nil for the recorder's default.
    public var profile: String?

    public init(channel: String, title: String, subtitle: String? = nil, start: Date, stop: Date, profile: String? = nil) {
        (self.channel, self.title, self.subtitle, self.start, self.stop, self.profile) = (channel, title, subtitle, start, stop, profile)
    }
}

/// A recording the recorder has: scheduled, under way, done or failed, as it says.
public struct ScheduledRecording: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable {
        case scheduled, recording, completed, failed
        /// It cannot record this (no tuner free at that time), as the recorder says.
        case conflict
    }

    public var id: String
    public var channel: String
    public var title: String
    public var start: Date
    public var stop: Date
    public var state: State
    /// The recorder's own words for it ("Scheduled for recording", "Time missed").
    public var status: String
    /// The rule that scheduled it, if any.
    public var rule: String?

    public init(id: String, channel: String, title: String, start: Date, stop: Date, state: State, status: String, rule: String?) {
        (self.id, self.channel, self.title, self.start, self.stop) = (id, channel, title, start, stop)
        (self.state, self.status, self.rule) = (state, status, rule)
    }
}

/// A series rule.
public struct RecordingRule: Sendable, Equatable, Codable {
    public var id: String
    public var title: String
    /// The channel it is limited to, or nil for any.
    public var channel: String?

    public init(id: String, title: String, channel: String?) {
        (self.id, self.title, self.channel) = (id, title, channel)
    }
}

/// Why a recorder did not do what was asked: unreachable (try again later; nothing is lost), or it refused (its words).
public struct RecorderError: WordedError, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No answer: the recorder is off or the network down. The request is kept and tried again.
        case unreachable
        /// It answered no: a refused login, a channel it does not have, a bad request.
        case refused
        /// It answered something its API does not.
        case unexpected
    }

    public var kind: Kind
    /// What happened, worded where it is shown; a recorder's own words in it as they came.
    public var sentence: Sentence

    public init(_ kind: Kind, _ sentence: Sentence) {
        (self.kind, self.sentence) = (kind, sentence)
    }

    public init(_ kind: Kind, saying text: String, _ values: [String: String] = [:]) {
        self.init(kind, Sentence(saying: text, values))
    }

    public var description: String { sentence.description }
}

/// Times and lengths a recorder writes, bounded before any sum or difference: Unix seconds from 1970 to 2100, lengths
/// up to a week. A broken or hostile answer (-1, 9223372036854775807) becomes an edge value, never an overflow.
enum RecorderTime {
    static let seconds: ClosedRange<Int64> = 0...4_102_444_800
    static let lengths: ClosedRange<Int64> = 0...7 * 86_400

    static func seconds(_ value: Int64?) -> Int64 { Bounded.clamped(value ?? 0, to: seconds) }
    static func length(_ value: Int64?) -> Int64 { Bounded.clamped(value ?? 0, to: lengths) }
}
