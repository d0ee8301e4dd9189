import Foundation
import GuideCore
import GuideThreads

/// Where listings live. SQLite is the embedded default; every implementation passes the same contract tests.
public protocol ListingStore: Sendable {
    /// Runs one import as one transaction: `feed` brings what the source says now, batch by batch, which replaces
    /// what the same source said before for the channels and time range it covers. A `.failed` batch, or a store
    /// failure, changes nothing; on a store failure the feed is cancelled, which stops its producer.
    func importListings(from source: SourceName, reading feed: ImportFeed) async throws -> ImportSummary

    /// Every channel, in the order they were first imported.
    func channels() async throws -> [Channel]
    /// The channels that have at least one programme, in guide order: what a guide shows until a viewer chooses.
    func listedChannels() async throws -> [ChannelID]
    /// Those of `channels` with a programme overlapping `window`, in the order given: from the schedule alone, no
    /// programme read. What a feed for some days lists (the XMLTV validator counts a channel with none an error).
    func listedChannels(_ channels: [ChannelID], in window: TimeWindow) async throws -> [ChannelID]
    /// A channel's programmes that overlap `window`, by start.
    func programmes(on channel: ChannelID, in window: TimeWindow) async throws -> [StoredProgramme]
    /// For each channel (all in guide order, or those given, in that order): its programmes that overlap `window`,
    /// by start, as ``programmes(on:in:)`` gives them, with `detail`'s fields. What the guide grid shows.
    func guide(in window: TimeWindow, channels: [ChannelID]?, detail: ProgrammeDetail) async throws -> [ChannelListings]
    /// For each channel (all, or those given, in that order): what is on at `instant` and what follows. Programmes
    /// `omitting` names are left out, their ids given (``NowNext/nowID``): a caller that keeps what it made of them
    /// (`/api/now`'s summaries) spares the store reading, and copying, 20,000 programmes at 10,000 channels.
    func nowNext(at instant: Date, channels: [ChannelID]?, detail: ProgrammeDetail,
                 omitting: (@Sendable (ProgrammeID) -> Bool)?) async throws -> [NowNext]
    /// The first and last instant with listings; nil when the store is empty.
    func coverage() async throws -> TimeWindow?
    /// Programmes matching every term of `query`, by start.
    func search(_ query: SearchQuery) async throws -> [StoredProgramme]
    /// One programme by id.
    func programme(_ id: ProgrammeID) async throws -> StoredProgramme?
    /// Every programme the guide shows, by channel and start, handed over one at a time so an export needs no memory
    /// for them.
    /// `body` runs on the store's own thread for SQLite, between fetches for PostgreSQL: it must be quick.
    func forEachProgramme(_ body: @escaping @Sendable (StoredProgramme) throws -> Void) async throws
    /// How many channels are stored and how many programmes the guide shows (not those a higher-priority source hides).
    func counts() async throws -> (channels: Int, programmes: Int)
    /// Which listings the store holds: changes with every import, so caches and feeds know when to refresh.
    func version() async throws -> GuideVersion
}

extension ListingStore {
    /// ``guide(in:channels:detail:)`` with every field.
    public func guide(in window: TimeWindow, channels: [ChannelID]?) async throws -> [ChannelListings] {
        try await guide(in: window, channels: channels, detail: .full)
    }

    /// ``nowNext(at:channels:detail:omitting:)`` omitting none.
    public func nowNext(at instant: Date, channels: [ChannelID]?, detail: ProgrammeDetail) async throws -> [NowNext] {
        try await nowNext(at: instant, channels: channels, detail: detail, omitting: nil)
    }

    /// ``nowNext(at:channels:detail:omitting:)`` with every field.
    public func nowNext(at instant: Date, channels: [ChannelID]?) async throws -> [NowNext] {
        try await nowNext(at: instant, channels: channels, detail: .full, omitting: nil)
    }
}

/// How much of each programme a query reads.
public enum ProgrammeDetail: Sendable {
    /// Everything the listings said.
    case full
    /// What a grid cell or a now/next line shows: times, titles, sub-titles, categories, episode numbers and the
    /// new/premiere/repeat/last-chance flags. Descriptions, credits and the rest stay empty; reading them was two
    /// thirds of a 1,000-channel guide window's time.
    case summary
}

extension Programme {
    /// What ``ProgrammeDetail/summary`` keeps of this programme.
    public var summary: Programme {
        var summary = Programme(channel: channel, start: start, stop: stop, titles: titles)
        summary.subTitles = subTitles
        summary.categories = categories
        summary.episodeNumbers = episodeNumbers
        summary.previouslyShown = previouslyShown
        summary.premiere = premiere
        summary.lastChance = lastChance
        summary.isNew = isNew
        return summary
    }
}

/// A stamp for the listings as a whole.
public struct GuideVersion: Hashable, Sendable {
    /// Increases with every import.
    public var generation: Int64
    /// When the last import finished; nil before the first.
    public var updated: Date?

    public init(generation: Int64, updated: Date?) {
        self.generation = generation
        self.updated = updated
    }
}

/// What an import reads, in the order it read it.
public enum ImportItem: Sendable {
    case channel(Channel)
    case programme(PreparedProgramme)
    /// Drop the source's earlier listings on every channel but these: a configured source's channels an admin
    /// dropped or mapped elsewhere.
    case retire(allBut: Set<ChannelID>)
    /// This import reads only part of the channel's listings (a refresh skipping the days its feed did not change):
    /// what it replaces is what the whole feed would, less the stored rows of the days it did not read.
    case part(ListingPart)
    /// The channel's programmes read so far end here; the next one, not read (its row is stored already), starts at
    /// `nextStart` (nil: none), and cuts what is still running then unless it is zero-length (`cuts` false).
    case runEnds(ChannelID, nextStart: Int64?, cuts: Bool)
}

/// What a refresh that reads only part of a channel's listings replaces of them (``ImportItem/part(_:)``).
public struct ListingPart: Sendable, Equatable {
    public var channel: ChannelID
    /// The span the whole feed covers on the channel, as a full import would replace it.
    public var first: Int64
    public var end: Int64
    /// Spans of start times (seconds since 1970) whose stored rows stay: the days the feed did not change.
    public var kept: [Range<Int64>]

    public init(channel: ChannelID, first: Int64, end: Int64, kept: [Range<Int64>]) {
        (self.channel, self.first, self.end, self.kept) = (channel, first, end, kept)
    }

    /// The spans of start times whose stored rows go: `first..<end` without the kept ones (rows starting before
    /// `first` and running past it go too, as in a full import).
    package func replaced(through end: Int64) -> [Range<Int64>] {
        var spans: [Range<Int64>] = []
        var from = first
        for kept in kept.sorted(by: { $0.lowerBound < $1.lowerBound }) where kept.upperBound > from {
            if kept.lowerBound > from { spans.append(from..<min(kept.lowerBound, end)) }
            from = max(from, kept.upperBound)
            if from >= end { break }
        }
        if from < end { spans.append(from..<end) }
        return spans.filter { !$0.isEmpty }
    }
}

/// One hand-over from an import's reader to the store.
public enum ImportBatch: Sendable {
    case items([ImportItem])
    /// The input was read to its end; the reader's issues go into the report.
    case finished(IssueLog)
    /// The reading failed: the import changes nothing.
    case failed(any Error)
}

/// Batches from an import's reading thread to the store, bounded so memory stays flat whatever the guide's size.
public typealias ImportFeed = BlockingChannel<ImportBatch>

extension ListingStore {
    /// Imports what `body` adds, as one import: for listings built in memory (samples, tests).
    public func importListings(from source: SourceName, _ body: (ListingSink) throws -> Void) async throws -> ImportSummary {
        let sink = ListingSink()
        try body(sink)
        let feed = ImportFeed(capacity: 2)
        _ = feed.put(.items(sink.items))
        _ = feed.put(.finished(sink.issues))
        feed.close()
        return try await importListings(from: source, reading: feed)
    }
}

/// Collects listings built in memory for ``ListingStore/importListings(from:_:)``.
public final class ListingSink {
    fileprivate var items: [ImportItem] = []
    fileprivate var issues = IssueLog()

    public func add(_ channel: Channel) {
        items.append(.channel(channel))
    }

    public func add(_ programme: PreparedProgramme) {
        items.append(.programme(programme))
    }

    public func add(_ programme: Programme, line: Int?) {
        add(PreparedProgramme(programme, line: line))
    }

    /// Issues found while reading, to go into the import's report.
    public func record(_ issues: IssueLog) {
        self.issues.merge(issues)
    }

    public func retire(allBut kept: Set<ChannelID>) {
        items.append(.retire(allBut: kept))
    }
}

/// What an import stored and what it had to repair.
public struct ImportSummary: Sendable {
    public var source: SourceName
    /// Channels the import stored: those it described and those its programmes name.
    public var channels: Int
    /// Programmes stored after repairs.
    public var programmes: Int
    /// Programmes of the same source that the import replaced.
    public var replaced: Int
    /// Programmes of this source the guide does not show because a higher-priority source lists the same time.
    public var hidden: Int
    public var issues: IssueLog
    /// When the import started: the source's `imported_at` from then on.
    public var importedAt: Date?

    public init(source: SourceName, channels: Int, programmes: Int, replaced: Int, hidden: Int = 0, issues: IssueLog,
                importedAt: Date? = nil) {
        self.importedAt = importedAt
        self.source = source
        self.channels = channels
        self.programmes = programmes
        self.replaced = replaced
        self.hidden = hidden
        self.issues = issues
    }
}

/// Why the store could not do what was asked.
public struct StoreError: WordedError, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case cannotOpen
        case corrupt
        case failed
        /// What was to be created exists already (a profile name).
        case conflict
        /// What was to be changed does not exist.
        case notFound
        /// What was given cannot work (a source definition with a bad zone).
        case invalid
    }

    public var code: Code
    public var sentence: Sentence

    /// A message that is not translated (a database's own words).
    public init(_ code: Code, _ message: String) {
        (self.code, sentence) = (code, .verbatim(message))
    }

    /// What a type says is wrong (a definition's problem), worded when shown.
    public init(_ code: Code, _ sentence: Sentence) {
        (self.code, self.sentence) = (code, sentence)
    }

    /// A message for whoever asked, in English with `{placeholders}`, worded in their language when shown.
    public init(_ code: Code, saying: String, _ values: [String: String] = [:]) {
        (self.code, sentence) = (code, Sentence(saying: saying, values))
    }

    /// In English: logs, the JSON API.
    public var message: String { sentence.description }

    /// In `words`' language.
    public func message(_ words: Localizer) -> String {
        sentence.worded(words)
    }

    public var description: String { message }
}
