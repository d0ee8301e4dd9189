import Foundation

/// Something an import found wrong with its input, and what it did about it.
///
/// Nothing is dropped silently: every skipped or repaired programme leaves one of these in the import report.
public struct ListingIssue: Hashable, Encodable, Sendable {
    public enum Kind: String, Hashable, Codable, Sendable, CaseIterable {
        /// No stop time: the next programme's start on the same channel was used.
        case stopFromNextStart = "stop-from-next-start"
        /// No stop time and nothing after it on the channel: kept open-ended, shown for its `length` or an hour.
        case stopUnknown = "stop-unknown"
        /// Stop before start: the stop was dropped and derived as for a missing stop.
        case stopBeforeStart = "stop-before-start"
        /// Start equals stop: kept, but it is never "on now".
        case zeroLength = "zero-length"
        /// The same channel, start and title again: the later copy was skipped.
        case duplicate
        /// Started before the previous programme on the channel ended: the previous one was cut short.
        case overlap
        /// A programme without a usable channel or start time: skipped.
        case skipped
        /// A value that could not be read (a bad timestamp, length or number): ignored.
        case invalidValue = "invalid-value"
        /// A programme without a title: kept with an empty title.
        case missingTitle = "missing-title"
        /// An entity XML does not predefine (`&nbsp;`): kept as written, never expanded.
        case unknownEntity = "unknown-entity"
        /// Bytes that are not valid in the declared encoding: replaced with U+FFFD.
        case invalidEncoding = "invalid-encoding"
        /// A DOCTYPE that declares entities or points outside the file: ignored, never expanded or fetched.
        case doctypeIgnored = "doctype-ignored"
    }

    public var kind: Kind
    /// The line in the input, when the problem is tied to one.
    public var line: Int?
    public var channel: ChannelID?
    public var start: Date?
    public var title: String?
    /// What was wrong and what was done about it, worded in the reader's language (`tvguide import`); in English in
    /// `--json`.
    public var message: Sentence

    public init(kind: Kind, line: Int? = nil, channel: ChannelID? = nil, start: Date? = nil, title: String? = nil, message: Sentence) {
        self.kind = kind
        self.line = line
        self.channel = channel
        self.start = start
        self.title = title
        self.message = message
    }
}

/// Collects issues, keeping every count but only the first few of each kind in detail, so a file with a million
/// bad rows still has a bounded report.
public struct IssueLog: Sendable {
    public private(set) var issues: [ListingIssue] = []
    public private(set) var counts: [ListingIssue.Kind: Int] = [:]
    public let detailLimitPerKind: Int

    public init(detailLimitPerKind: Int = 50) {
        self.detailLimitPerKind = detailLimitPerKind
    }

    public mutating func record(_ issue: ListingIssue) {
        let count = counts[issue.kind, default: 0] + 1
        counts[issue.kind] = count
        if count <= detailLimitPerKind { issues.append(issue) }
    }

    /// Records an issue, building its details only while they are still kept: a file with a million bad rows
    /// must not spend its time writing a million messages.
    public mutating func record(_ kind: ListingIssue.Kind, _ details: () -> ListingIssue) {
        let count = counts[kind, default: 0] + 1
        counts[kind] = count
        if count <= detailLimitPerKind { issues.append(details()) }
    }

    public mutating func record(_ kind: ListingIssue.Kind, count: Int) {
        guard count > 0 else { return }
        counts[kind, default: 0] += count
    }

    public mutating func merge(_ other: IssueLog) {
        var kept = counts
        for issue in other.issues where kept[issue.kind, default: 0] < detailLimitPerKind {
            issues.append(issue)
            kept[issue.kind, default: 0] += 1
        }
        for (kind, count) in other.counts { counts[kind, default: 0] += count }
    }

    public var total: Int { counts.values.reduce(0, +) }
}
