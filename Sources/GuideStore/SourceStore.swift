import Foundation
import GuideCore

/// Where configured sources, their channels, fetch validators and refresh outcomes live.
extension SourceStore {
    /// Every configured source, counted (``sources(counting:)``).
    public func sources() async throws -> [SourceStatus] {
        try await sources(counting: true)
    }
}

public protocol SourceStore: Sendable {
    /// Every configured source with its last refresh, by priority (highest first), then name; with how many
    /// programmes each holds (`programmes`, `hidden`) only when `counting` (a count reads every programme: half a
    /// second at 1.75 M, so a refresh or its schedule, which need none, asks without).
    func sources(counting: Bool) async throws -> [SourceStatus]
    /// Adds a source; `.conflict` when the name is taken by a configured source. Its channel list (Radio Times
    /// numbers, a filter) is stored as channels chosen to keep.
    func addSource(_ definition: SourceDefinition) async throws
    /// Replaces a source's definition; `.notFound` when there is none. A new priority re-merges the guide.
    func updateSource(_ definition: SourceDefinition) async throws
    /// Removes a source and its listings (what other sources hid behind them shows again); the number of
    /// programmes removed. `.notFound` when there is none.
    @discardableResult
    func removeSource(_ name: SourceName) async throws -> Int

    /// The channels a source offered on its last refreshes and those an admin named, by name.
    func sourceChannels(of name: SourceName) async throws -> [SourceChannel]
    /// Saves an admin's choices (keep, mapped to) for the channels given; other channels keep theirs.
    func chooseSourceChannels(_ channels: [SourceChannel], of name: SourceName) async throws
    /// Keeps what the matcher found for a source's channels: each one's suggestions, and the mapping it applied where
    /// it was sure (never over a person's choice).
    func recordMatches(_ matches: [ChannelMatchRecord], of name: SourceName) async throws
    /// Records what a refresh found offered and returns the plan for its import: new channels are kept as the
    /// source's definition says, and, when the offer is `complete` (every feed of the source read), a channel whose
    /// id changed but whose name did not keeps its choices and keeps feeding the same guide channel.
    func recordOffer(_ offered: [OfferedChannel], of name: SourceName, at instant: Date, complete: Bool) async throws -> ChannelPlan

    /// The validators saved with each URL's last successful download.
    func validators(of name: SourceName) async throws -> [String: HTTPValidators]
    /// Marks a refresh of `name` as started at `instant`, before anything is fetched. A start still marked from
    /// before (the process stopped during that refresh) is first recorded as a failure, so a feed that stops the
    /// process is backed off like any other failure instead of being fetched again at every start.
    func recordRefreshStart(of name: SourceName, at instant: Date) async throws
    /// Records a refresh's outcome, and on success the validators to send next time; ends the mark of its start
    /// and counts failures in a row (a success resets them).
    func recordRefresh(_ record: RefreshRecord, of name: SourceName) async throws

    /// Runs `body` holding the right to refresh `name` among every tvguide process using this store, and returns what
    /// it returned; nil, without running it, while another process holds that right. The right ends with `body`, or
    /// with its process, however that ends.
    func withRefreshClaim<T: Sendable>(of name: SourceName, _ body: @Sendable () async throws -> T) async throws -> T?

    /// For each channel with listings, as of `instant`: where its listings end, the gaps ahead, and a warning when
    /// one source's times look shifted against another's for it.
    func channelHealth(at instant: Date) async throws -> [ChannelHealth]
}

/// How one channel's listings look.
public struct ChannelHealth: Sendable, Codable, Equatable {
    public var channel: ChannelID
    public var name: String
    /// The sources that list it, by name.
    public var sources: [String]
    /// Where its shown listings end; nil when they ended before the instant asked about.
    public var listingsEnd: Date?
    /// Holes of 30 minutes or more between the instant asked about and `listingsEnd`.
    public var gaps: [TimeWindow]
    /// Sources whose times look shifted against a higher one's, e.g. "xmltv-b looks 60 min later than xmltv-a".
    public var warnings: [String]

    public init(channel: ChannelID, name: String, sources: [String], listingsEnd: Date?, gaps: [TimeWindow], warnings: [String]) {
        self.channel = channel
        self.name = name
        self.sources = sources
        self.listingsEnd = listingsEnd
        self.gaps = gaps
        self.warnings = warnings
    }

    /// Whether an admin should look at it: listings ending within a day, gaps, or shifted times.
    public func needsAttention(at instant: Date) -> Bool {
        !gaps.isEmpty || !warnings.isEmpty || (listingsEnd ?? .distantPast) < instant.addingTimeInterval(24 * 3600)
    }

    /// "ends in 14 h", "ends in 3 days", "ended 2 h ago", "no listings ahead".
    public func ending(from instant: Date, words: Localizer = .english) -> String {
        guard let listingsEnd else { return words("no listings ahead") }
        // Whole hours, rounded, within what an Int holds whatever the dates.
        let hours = Int(max(-1e9, min(1e9, (listingsEnd.timeIntervalSince(instant) / 3600).rounded())))
        if hours < 0 {
            return -hours < 48 ? words.plural("ended {count} h ago", "ended {count} h ago", count: -hours)
                : words.plural("ended {count} day ago", "ended {count} days ago", count: -hours / 24)
        }
        return hours < 48 ? words.plural("ends in {count} h", "ends in {count} h", count: hours)
            : words.plural("ends in {count} day", "ends in {count} days", count: hours / 24)
    }
}

/// A channel as a refresh found it offered.
public struct OfferedChannel: Hashable, Sendable {
    public var id: ChannelID
    public var name: String

    public init(id: ChannelID, name: String) {
        self.id = id
        self.name = name
    }
}

/// Which of a source's channels go into the guide, and as which guide channel.
public struct ChannelPlan: Sendable, Equatable {
    /// Source channel id to guide channel id, for the channels kept.
    public var kept: [ChannelID: ChannelID]
    /// Whether channels missing from `kept` are kept as themselves (a plan for input nobody surveyed).
    public var keepsUnlisted: Bool
    /// Channels whose ids changed while their names did not: old id to new id. Their choices moved with them.
    public var renamed: [ChannelID: ChannelID]
    /// Guide channels that exist already: a mapped channel's own definition is not overwritten by the source's.
    public var existing: Set<ChannelID>

    public init(kept: [ChannelID: ChannelID], keepsUnlisted: Bool = false, renamed: [ChannelID: ChannelID] = [:],
                existing: Set<ChannelID> = []) {
        self.kept = kept
        self.keepsUnlisted = keepsUnlisted
        self.renamed = renamed
        self.existing = existing
    }

    /// Keeps every channel as itself.
    public static let everything = ChannelPlan(kept: [:], keepsUnlisted: true)

    /// The guide channel for a source channel, or nil when it is dropped.
    public func guideChannel(for id: ChannelID) -> ChannelID? {
        kept[id] ?? (keepsUnlisted ? id : nil)
    }
}

/// HTTP validators for a conditional request.
public struct HTTPValidators: Hashable, Sendable, Codable {
    public var etag: String?
    public var lastModified: String?
    /// What the feed's bytes were when they were last imported (``ContentDigests``), for servers that send neither.
    public var content: String?

    public init(etag: String?, lastModified: String?, content: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.content = content
    }

    /// Whether there is nothing to ask the server with (the content digests are ours, not the server's).
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}

extension SourceStatus {
    /// The error recorded for a refresh that started and never recorded an outcome.
    public static let unfinishedRefresh = "the refresh never finished: tvguide stopped during it"
}

/// How a refresh of one source ended.
public enum RefreshOutcome: String, Codable, Sendable {
    /// New listings were imported.
    case imported
    /// Every download answered "not modified": nothing to do.
    case unchanged
    /// It failed; the guide kept what it had.
    case failed
}

/// What a refresh of one source did, as stored for health.
public struct RefreshRecord: Sendable {
    public var outcome: RefreshOutcome
    public var at: Date
    public var duration: TimeInterval
    public var bytes: Int64
    public var programmes: Int
    public var repairs: Int
    /// Why it failed, worded where it is shown.
    public var failure: Sentence?
    /// For each URL downloaded in full, the validators to send next time.
    public var validators: [String: HTTPValidators]

    public init(outcome: RefreshOutcome, at: Date, duration: TimeInterval, bytes: Int64 = 0, programmes: Int = 0,
                repairs: Int = 0, failure: Sentence? = nil, validators: [String: HTTPValidators] = [:]) {
        self.outcome = outcome
        self.at = at
        self.duration = duration
        self.bytes = bytes
        self.programmes = programmes
        self.repairs = repairs
        self.failure = failure
        self.validators = validators
    }
}

/// A configured source and how its refreshes went.
public struct SourceStatus: Sendable {
    public var definition: SourceDefinition
    public var lastAttempt: Date?
    public var lastSuccess: Date?
    public var lastOutcome: RefreshOutcome?
    /// Why the last refresh failed, worded where it is shown (the health page in the admin's language).
    public var lastFailure: Sentence?
    public var lastBytes: Int64
    public var lastProgrammes: Int
    public var lastRepairs: Int
    public var lastDuration: TimeInterval
    /// Programmes the guide holds from it now, shown or hidden behind a higher-priority source.
    public var programmes: Int
    public var hidden: Int
    /// Failed refreshes since the last success (a refresh the process stopped during counts as one).
    public var failuresInRow: Int
    /// When a refresh started that has recorded no outcome yet: running now, or the process stopped during it.
    public var unfinishedSince: Date?
    /// When the listings it holds now were imported (an import's start).
    public var importedAt: Date?

    public init(definition: SourceDefinition, lastAttempt: Date? = nil, lastSuccess: Date? = nil,
                lastOutcome: RefreshOutcome? = nil, lastFailure: Sentence? = nil, lastBytes: Int64 = 0, lastProgrammes: Int = 0,
                lastRepairs: Int = 0, lastDuration: TimeInterval = 0, programmes: Int = 0, hidden: Int = 0,
                failuresInRow: Int = 0, unfinishedSince: Date? = nil, importedAt: Date? = nil) {
        self.importedAt = importedAt
        self.definition = definition
        self.lastAttempt = lastAttempt
        self.lastSuccess = lastSuccess
        self.lastOutcome = lastOutcome
        self.lastFailure = lastFailure
        self.lastBytes = lastBytes
        self.lastProgrammes = lastProgrammes
        self.lastRepairs = lastRepairs
        self.lastDuration = lastDuration
        self.programmes = programmes
        self.hidden = hidden
        self.failuresInRow = failuresInRow
        self.unfinishedSince = unfinishedSince
    }

    /// Why the last refresh failed, in English (the JSON API, `--json`, logs).
    public var lastError: String? { lastFailure?.description }

    /// The first retry of a failed source comes after this at most, whatever its interval.
    public static let firstRetry: TimeInterval = 30 * 60
    /// Retries of a source that keeps failing double up to this.
    public static let longestRetry: TimeInterval = 24 * 3600

    /// When the next scheduled refresh is due: its interval after the last try; after failures in a row, 30 minutes
    /// (or the interval, when shorter) doubling with each further failure up to a day; after a refresh that never
    /// finished (the process stopped during it), the same, counting that refresh as a failure. Never "at once".
    public var nextDue: Date {
        if let unfinishedSince { return unfinishedSince.addingTimeInterval(retryWait(afterFailures: failuresInRow + 1)) }
        guard let lastAttempt else { return .distantPast }
        if lastOutcome == .failed { return lastAttempt.addingTimeInterval(retryWait(afterFailures: max(1, failuresInRow))) }
        return lastAttempt.addingTimeInterval(TimeInterval(definition.refreshInterval))
    }

    /// The wait before retrying after `failures` failures in a row.
    public func retryWait(afterFailures failures: Int) -> TimeInterval {
        let first = min(TimeInterval(definition.refreshInterval), Self.firstRetry)
        return min(Self.longestRetry, first * Double(1 << Bounded.clamped(failures - 1, to: 0...20)))
    }
}

/// As the JSON API and `health --json` write it: the failure in English, under `lastError`.
extension SourceStatus: Encodable {
    private enum CodingKeys: String, CodingKey {
        case definition, lastAttempt, lastSuccess, lastOutcome, lastFailure = "lastError", lastBytes, lastProgrammes, lastRepairs, lastDuration,
             programmes, hidden, failuresInRow, unfinishedSince
    }
}

/// What the matcher found for one of a source's channels: its suggestions, and the guide channel it applies (nil when
/// it was not sure enough: the channel waits for a person).
public struct ChannelMatchRecord: Sendable, Equatable {
    public var channel: ChannelID
    public var candidates: [ChannelCandidate]
    public var applied: ChannelID?

    public init(channel: ChannelID, candidates: [ChannelCandidate], applied: ChannelID?) {
        (self.channel, self.candidates, self.applied) = (channel, candidates, applied)
    }
}
