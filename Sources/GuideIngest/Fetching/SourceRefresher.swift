import Foundation
import Metrics
import GuideCore
import XMLTV
import GuideHTTP
import GuideStore
import SchedulesDirect
import Synchronization

/// Refreshes configured sources: downloads their feeds (concurrently, at most `concurrency` at a time), checks them
/// as they arrive, and imports each source's feeds as one import, only when every one of them arrived whole. A
/// failure leaves that source's listings as they were and is recorded for health. Two refreshes of one source never
/// overlap: the second reports ``SourceReport/Outcome/alreadyRunning``.
public final class SourceRefresher: Sendable {
    public typealias Store = ImportStore & SourceStore & SDDocumentStore & ResponseCache

    let store: any Store
    let fetcher: FeedFetcher
    let slots: Slots
    /// Where a TVmaze source given as a country code fetches from.
    let tvmazeBase: String
    /// How Schedules Direct sources reach SD; nil where none can be refreshed (their refresh fails saying so).
    let schedulesDirect: SDConnection?
    /// The XMLTV grabbers grabber sources run; nil where none may be (their refresh fails saying so).
    let grabbers: Grabbers?
    /// Where HDHomeRun sources' guides come from (`hdhomerun-guide-url`).
    let hdhomerunGuide: String
    /// Wall time, for when a refresh started.
    let now: @Sendable () -> Date
    /// How long a refresh and its retries take; tests use one that jumps instead of sleeping.
    let clock: any Clock<Duration>
    /// Whether a feed that changed is read only where it changed (``RefreshPlan``); tests compare with reading it all.
    let readsChangesOnly: Bool
    private let running = Mutex<Set<SourceName>>([])

    public init(store: any Store, transport: any HTTPTransport, policy: FetchPolicy = FetchPolicy(), concurrency: Int = 4,
                tvmazeBase: String = "https://api.tvmaze.com", schedulesDirect: SDConnection? = nil, grabbers: Grabbers? = nil,
                hdhomerunGuide: String = HDHomeRunGuide.defaultBase, readsChangesOnly: Bool = true,
                now: @escaping @Sendable () -> Date, clock: any Clock<Duration>) {
        self.store = store
        self.readsChangesOnly = readsChangesOnly
        self.clock = clock
        fetcher = FeedFetcher(transport: transport, policy: policy, clock: clock, now: now)
        slots = Slots(concurrency)
        self.tvmazeBase = tvmazeBase
        self.schedulesDirect = schedulesDirect
        self.grabbers = grabbers
        self.hdhomerunGuide = hdhomerunGuide
        self.now = now
    }

    /// Whether a refresh of `name` is running now.
    public func isRefreshing(_ name: SourceName) -> Bool {
        running.withLock { $0.contains(name) }
    }

    /// Refreshes the named sources (all when nil), together; one report per source, in the order asked.
    public func refresh(_ names: [SourceName]? = nil,
                        progress: @escaping @Sendable (RefreshProgress) -> Void = { _ in }) async throws -> [SourceReport] {
        // As things stood when the refresh was asked for: another instance may refresh a source meanwhile.
        let all = try await store.sources(counting: false)
        let chosen: [SourceStatus]
        if let names {
            chosen = try names.map { name in
                guard let definition = all.first(where: { $0.definition.name == name }) else {
                    throw StoreError(.notFound, saying: "there is no source called {name}; `tvguide sources list` shows them", ["name": "\(name)"])
                }
                return definition
            }
        } else {
            chosen = all
        }
        let tracker = ProgressTracker(chosen.map(\.definition.name.rawValue), report: progress)
        return await withTaskGroup(of: (Int, SourceReport).self) { group in
            for (index, status) in chosen.enumerated() {
                group.addTask { (index, await self.refresh(status, tracker: tracker)) }
            }
            var reports = [SourceReport?](repeating: nil, count: chosen.count)
            for await (index, report) in group { reports[index] = report }
            return reports.compactMap { $0 }
        }
    }

    /// The locations a source's refresh reads, as of `date`.
    public func locations(of definition: SourceDefinition, on date: Date) -> [String] {
        switch definition.format {
        case .xmltv, .m3u, .schedulesdirect, .grabber, .hdhomerun, .openwebif:
            return [definition.location]
        case .radiotimes:
            guard definition.location.contains("{channel}") else { return [definition.location] }
            return definition.channels.map { definition.location.replacingOccurrences(of: "{channel}", with: $0) }
        case .tvmaze:
            let base = definition.location.contains("://") ? definition.location
                : "\(tvmazeBase)/schedule?country=\(definition.location.uppercased())"
            let separator = base.contains("?") ? "&" : "?"
            let today = Int(date.unixSeconds) / 86_400
            return (0..<definition.days).map { day in
                let (year, month, dayOfMonth) = CivilTime.date(days: today + day)
                return base + separator + "date=" + String(format: "%04d-%02d-%02d", year, month, dayOfMonth)
            }
        }
    }

    private func refresh(_ status: SourceStatus, tracker: ProgressTracker) async -> SourceReport {
        let definition = status.definition
        let name = definition.name
        guard running.withLock({ $0.insert(name).inserted }) else {
            tracker.update(name.rawValue) { $0.phase = .failed; $0.error = Sentence(saying: "already being refreshed") }
            return SourceReport(source: name.rawValue, outcome: .alreadyRunning)
        }
        defer { running.withLock { _ = $0.remove(name) } }
        // Instances sharing a database refresh each source one at a time, and not again right after another did.
        let outcome: Result<SourceReport, Skipped>
        do {
            outcome = try await store.withRefreshClaim(of: name) { () -> Result<SourceReport, Skipped> in
                let now = try await store.sources(counting: false).first { $0.definition.name == name }
                if let attempt = now?.lastAttempt, attempt != status.lastAttempt {
                    return .failure(Skipped(outcome: .alreadyRunning, sentence: Sentence(saying: "refreshed by another tvguide instance at {time}",
                                                                                          ["time": CivilTime.iso8601(attempt)])))
                }
                return .success(await refreshClaimed(definition, importedAt: now?.importedAt, tracker: tracker))
            } ?? .failure(Skipped(outcome: .alreadyRunning, sentence: Sentence(saying: "being refreshed by another tvguide instance")))
        } catch {
            outcome = .failure(Skipped(outcome: .failed, sentence: Sentence(error)))
        }
        switch outcome {
        case .success(let report):
            return report
        case .failure(let skipped):
            tracker.update(name.rawValue) { $0.phase = .failed; $0.error = skipped.sentence }
            var report = SourceReport(source: name.rawValue, outcome: skipped.outcome)
            report.failure = skipped.sentence
            return report
        }
    }

    /// Refreshes a source this instance holds the claim on.
    private func refreshClaimed(_ definition: SourceDefinition, importedAt: Date?, tracker: ProgressTracker) async -> SourceReport {
        let name = definition.name
        let stopwatch = Stopwatch(on: clock)
        let startedAt = now()
        var report = SourceReport(source: name.rawValue, outcome: .failed)
        var validators: [String: HTTPValidators] = [:]
        do {
            try await store.recordRefreshStart(of: name, at: startedAt)
            (report, validators) = try await run(definition, startedAt: startedAt, importedAt: importedAt, tracker: tracker)
        } catch where definition.format == .m3u && Self.isUnreadable(error) {
            // The survey read it as what it looked like (a web page reads as bad XMLTV); say what it was meant to be.
            let failure = Sentence(error)
            report.failure = failure.description.contains("not an M3U playlist") ? failure
                : Sentence(saying: "this is not an M3U playlist ({error})", sentences: ["error": failure])
        } catch {
            report.failure = Sentence(error)
        }
        report.seconds = stopwatch.elapsed() / .seconds(1)
        let record = RefreshRecord(outcome: RefreshOutcome(rawValue: report.outcome.rawValue) ?? .failed, at: startedAt,
                                   duration: report.seconds, bytes: report.bytes, programmes: report.programmes,
                                   repairs: report.repairs, failure: report.failure, validators: validators)
        try? await store.recordRefresh(record, of: name)
        // For /metrics (swift-metrics: nothing is kept unless the process bootstrapped a backend).
        let dimensions = [("source", name.rawValue), ("outcome", report.outcome.rawValue)]
        Counter(label: "tvguide_refreshes_total", dimensions: dimensions).increment()
        Timer(label: "tvguide_refresh_duration_seconds", dimensions: dimensions).recordSeconds(report.seconds)
        let error = report.failure
        tracker.update(name.rawValue) { source in
            source.phase = report.outcome == .imported ? .imported : report.outcome == .unchanged ? .unchanged : .failed
            source.error = error
        }
        return report
    }

    /// Whether `error` says what was fetched is not in the format read (rather than that fetching it failed).
    static func isUnreadable(_ error: any Error) -> Bool {
        error is XMLTVError || (error as? IngestError)?.code == .unknownFormat
    }

    private struct Skipped: Error {
        var outcome: SourceReport.Outcome
        var sentence: Sentence
    }


    /// The refresh itself: its report, and the validators of the feeds it downloaded whole.
    private func run(_ definition: SourceDefinition, startedAt: Date, importedAt: Date?,
                     tracker: ProgressTracker) async throws -> (SourceReport, [String: HTTPValidators]) {
        switch definition.format {
        case .schedulesdirect:
            return try await refreshSchedulesDirect(definition, startedAt: startedAt, tracker: tracker)
        case .grabber:
            return try await importMade(definition, startedAt: startedAt, tracker: tracker) { file in
                guard let grabbers else { throw IngestError(.download, saying: "this tvguide runs no XMLTV grabbers") }
                guard let text = try await store.grabberConfiguration(of: definition.name) else {
                    throw IngestError(.download, saying: "{grabber} is not configured yet: an admin configures it on the source's page",
                                      ["grabber": definition.location])
                }
                try await grabbers.grab(grabber: definition.location, for: definition.name, configuration: GrabberConfiguration(text),
                                        days: definition.days, into: file.path)
                return true
            }
        case .hdhomerun:
            // The tuner's key is asked for at every refresh: it rotates.
            return try await importMade(definition, startedAt: startedAt, tracker: tracker) { file in
                try await HDHomeRunGuide(transport: fetcher.transport, base: hdhomerunGuide, now: now)
                    .refresh(device: definition.location, days: definition.days, into: file)
                return true
            }
        case .openwebif:
            let credentials = try await credentials(of: definition.name)
            return try await importMade(definition, startedAt: startedAt, tracker: tracker) { file in
                try await OpenWebifGuide(transport: fetcher.transport, credentials: credentials).refresh(location: definition.location, into: file)
                return true
            }
        case .xmltv, .radiotimes, .tvmaze, .m3u:
            return try await importFeeds(definition, locations: locations(of: definition, on: startedAt), startedAt: startedAt,
                                         importedAt: importedAt, tracker: tracker)
        }
    }

    /// The user name and password the source's server asks for, if an admin gave them.
    private func credentials(of name: SourceName) async throws -> HTTPCredentials? {
        try await store.sourceCredentials(of: name).flatMap { try? JSONDecoder().decode(HTTPCredentials.self, from: Data($0.utf8)) }
    }

    /// SD's refresh keeps its own contract (only what changed is asked) and writes the guide as XMLTV, imported unless
    /// it is the guide last imported (its fingerprint kept as the source's validator).
    private func refreshSchedulesDirect(_ definition: SourceDefinition, startedAt: Date,
                                        tracker: ProgressTracker) async throws -> (SourceReport, [String: HTTPValidators]) {
        guard let connection = schedulesDirect, let client = try await connection.client(store: store, now: now) else {
            throw IngestError(.download, saying: "Schedules Direct is not signed in: an admin signs in on the source's page")
        }
        let imported = try await store.validators(of: definition.name)[definition.location]?.etag
        let artwork = try await SDConnection.isArtworkChosen(in: store)
        var fingerprint = ""
        let (report, _) = try await importMade(definition, startedAt: startedAt, tracker: tracker) { file in
            let counts = try await SDGuide(client: client, store: store, now: now)
                .refresh(lineups: SourceDefinition.lineups(in: definition.location), days: definition.days, artwork: artwork,
                         into: file, unchanged: imported)
            fingerprint = counts.fingerprint
            return counts.isWritten
        }
        return (report, [definition.location: HTTPValidators(etag: fingerprint, lastModified: nil)])
    }

    /// Imports an XMLTV file `make` writes (Schedules Direct's refresh, a grabber's run) like any file, unless `make`
    /// says it wrote none because nothing changed; the file goes afterwards, whatever happened.
    private func importMade(_ definition: SourceDefinition, startedAt: Date, tracker: ProgressTracker,
                            make: (URL) async throws -> Bool) async throws -> (SourceReport, [String: HTTPValidators]) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-\(definition.format.rawValue)-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: file) }
        tracker.update(definition.name.rawValue) { $0.phase = .downloading; $0.downloadsTotal = 1 }
        guard try await make(file) else {
            tracker.update(definition.name.rawValue) { $0.downloadsDone = 1 }
            var report = SourceReport(source: definition.name.rawValue, outcome: .unchanged)
            (report.downloads, report.notModified) = (1, 1)
            return (report, [:])
        }
        // No validators: the file is this refresh's own, never asked for again (a row kept for each would pile up).
        let (report, _) = try await importFeeds(definition, locations: [file.path], startedAt: startedAt, tracker: tracker)
        return (report, [:])
    }

    /// Fetches `locations` (each a download, or a file) and imports them as the source's one import.
    private func importFeeds(_ definition: SourceDefinition, locations: [String], startedAt: Date, importedAt: Date? = nil,
                             tracker: ProgressTracker) async throws -> (SourceReport, [String: HTTPValidators]) {
        let name = definition.name
        let validators = try await store.validators(of: name)
        let credentials = try await credentials(of: name)
        let zone = definition.localZone.flatMap(TimeZone.init(identifier:))
        let stored = storedGroups(validators, importedAt: importedAt, timeShift: definition.timeShift, localZone: zone)
        // One XMLTV feed whose last import's days are known is written only where a refresh reads it.
        let writesInPart = locations.count == 1 && definition.format == .xmltv
        tracker.update(name.rawValue) { $0.phase = .downloading; $0.downloadsTotal = locations.count }
        // Every feed, concurrently within the download bound; the first failure cancels the rest.
        let results = try await withThrowingTaskGroup(of: (Int, String, FetchResult).self) { group in
            for (index, location) in locations.enumerated() {
                group.addTask {
                    try await self.slots.run {
                        let partial = writesInPart ? Self.partialBase(stored[location]) : nil
                        let result = try await self.fetcher.fetch(location, validators: validators[location], localZone: zone,
                                                                  credentials: credentials, partial: partial) { feed in
                            tracker.feed(name.rawValue, feed)
                        }
                        tracker.update(name.rawValue) { $0.downloadsDone += 1 }
                        return (index, location, result)
                    }
                }
            }
            var collected: [(Int, String, FetchResult)] = []
            do {
                for try await result in group { collected.append(result) }
            } catch {
                // What arrived before the failure is of no use: the source is imported whole or not at all.
                for case (_, _, .fetched(let feed)) in collected { feed.discard() }
                throw error
            }
            return collected.sorted { $0.0 < $1.0 }.map { ($0.1, $0.2) }
        }
        var feeds = results.compactMap { location, result -> FetchedFeed? in
            if case .fetched(let feed) = result { return feed }
            return nil
        }
        defer { for feed in feeds { feed.discard() } }
        var report = SourceReport(source: name.rawValue, outcome: .unchanged)
        report.downloads = results.count
        report.notModified = results.count - feeds.count
        report.bytes = feeds.reduce(0) { $0 + $1.bytes }
        guard !feeds.isEmpty else { return (report, [:]) }

        var offered: [OfferedChannel] = []
        var seen: Set<ChannelID> = []
        for channel in feeds.flatMap(\.channels) where seen.insert(channel.id).inserted { offered.append(channel) }
        // Renames are judged only on a complete offer: a feed that did not change says nothing about its channels.
        var plan = try await store.recordOffer(offered, of: name, at: startedAt, complete: report.notModified == 0)
        tracker.update(name.rawValue) { $0.phase = .importing }
        if definition.format == .m3u {
            // A playlist's entries replace the ones it had; it has no programmes to import.
            (report.channels, report.repairs) = try await PlaylistFile.store(feeds[0].path, as: name, in: store)
            // Entries the guide does not know by id go where the matcher is sure; the rest wait for a person.
            _ = try await SourceMatching(store: store).match(name, apply: true, onlyNew: true)
            // Its tvg-shift entries make timeshift channels, and ones it no longer has go.
            try await TimeshiftChannels(store: store).rebuild()
            report.outcome = .imported
            return (report, Dictionary(feeds.map { ($0.location, $0.validators) }, uniquingKeysWith: { $1 }))
        }
        // Channels of a second source the matcher is sure of feed their guide channel from this import on.
        for entry in try await SourceMatching(store: store).match(name, apply: true, onlyNew: true) where entry.applied && entry.chosenBy != MappingChooser.person.rawValue {
            if plan.kept[ChannelID(entry.id)] != nil, let channel = entry.channel { plan.kept[ChannelID(entry.id)] = ChannelID(channel) }
        }
        let transform = ListingTransform(plan: plan, timeShift: definition.timeShift, localZone: zone)
        let importer = ListingImporter(store: store)
        var kept = Dictionary(feeds.map { ($0.location, $0.validators) }, uniquingKeysWith: { $1 })
        let summary: ImportSummary
        var reading = refreshPlan(feeds, stored: stored, transform: transform)
        if let written = feeds.first?.written, reading.map({ !$0.isCovered(by: written) }) ?? true {
            // Written in part, and read beyond it (a channel gone to another guide channel, a file no longer plain).
            guard let whole = try await downloadWhole(feeds[0], validators: validators, localZone: zone,
                                                      credentials: credentials, report: &report, tracker: tracker)
            else { return (report, [:]) }
            feeds = [whole]
            reading = refreshPlan(feeds, stored: stored, transform: transform)
        }
        if feeds.count == 1, let layout = feeds[0].layout {
            // A plain XMLTV feed: only the days that changed since the last import are read, when that is known.
            let feed = feeds[0]
            if let reading {
                var read = try await importer.importFile(at: feed.path, planned: reading, as: name,
                                                         transform: transform, removingOnceRead: feed.isTemporary)
                // The channels it holds are the feed's, read or not.
                read.channels = max(read.channels, Set(feed.channels.compactMap { transform.plan.guideChannel(for: $0.id) }).count)
                summary = read
                report.unchanged = reading.unchanged
            } else {
                summary = try await importer.importFiles([(feed.path, feed.location)], as: name, transform: transform,
                                                         removingOnceRead: FetchedFeed.temporaryPaths([feed]))
            }
            if let at = summary.importedAt {
                kept[feed.location]?.content = feed.validators.content.map { $0 + "\n" + layout.text(context: RefreshPlan.context(importedAt: at, transform: transform)) {
                    transform.plan.guideChannel(for: ChannelID($0))?.rawValue
                } }
            }
        } else {
            let files = feeds.map { (path: $0.path, name: $0.location) }
            summary = try await importer.importFiles(files, as: name, transform: transform,
                                                     removingOnceRead: FetchedFeed.temporaryPaths(feeds))
        }
        report.outcome = .imported
        report.channels = summary.channels
        report.programmes = summary.programmes
        report.replaced = summary.replaced
        report.hidden = summary.hidden
        report.repairs = summary.issues.total
        report.renamedChannels = Dictionary(uniqueKeysWithValues: plan.renamed.map { ($0.key.rawValue, $0.value.rawValue) })
        return (report, kept)
    }
}
