import Foundation
import GuideCore

/// What a refresh of one source did: what `tvguide refresh --json` prints, one object per source.
public struct SourceReport: Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        case imported, unchanged, failed
        /// Another refresh of the same source was running; this one did nothing.
        case alreadyRunning = "already-running"
    }

    public var source: String
    public var outcome: Outcome
    /// Why it failed, worded where it is shown.
    public var failure: Sentence?
    /// Downloads (or files) read, and downloads the server said had not changed.
    public var downloads = 0
    public var notModified = 0
    public var bytes: Int64 = 0
    public var channels = 0
    public var programmes = 0
    /// Programmes of the source's previous refresh that this one replaced.
    public var replaced = 0
    /// Programmes of the feed on days it had not changed since the last import: their stored rows stay, not read
    /// again (``RefreshPlan``).
    public var unchanged = 0
    /// Programmes on its channels the guide does not show because a higher-priority source covers their time.
    public var hidden = 0
    /// Repairs and other issues the readers and the import reported.
    public var repairs = 0
    /// Channels whose ids the provider changed while their names stayed: old id to new id.
    public var renamedChannels: [String: String] = [:]
    public var seconds: Double = 0

    public init(source: String, outcome: Outcome) {
        self.source = source
        self.outcome = outcome
    }

    /// Why it failed, in English (`--json`, the JSON API, logs).
    public var error: String? { failure?.description }
}

/// As `refresh --json` and the JSON API write it: the failure in English, under `error`.
extension SourceReport: Encodable {
    private enum CodingKeys: String, CodingKey {
        case source, outcome, failure = "error", downloads, notModified, bytes, channels, programmes, replaced, unchanged, hidden, repairs,
             renamedChannels,
             seconds
    }
}
