// The benchmark driver behind scripts/bench: times parsing, importing and the guide's queries on real files.
// Run it in a release build; it prints one tab-separated row per file for the script to tabulate.
import CoreMetrics
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideReminders
import GuideStore
import GuideStoreBackends
import Prometheus
import Synchronization
import TestReceivers
import TrackerExports
import TVMaze
import XMLTV

/// Median of `runs` timings of `body`, in milliseconds.
func medianMilliseconds(runs: Int, _ body: @Sendable () async throws -> Void) async rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return times.sorted()[times.count / 2]
}

/// The best of three readings of `bytes` in 1 MB chunks, each item handed to `take` (made anew each round by `round`,
/// with the contents it remembers for the reader to ask), and the programmes read.
func parseSeconds(_ bytes: [UInt8], round: () -> (contents: (any ProgrammeContents)?, take: (XMLTVItem) throws -> Void)
                    = { (nil, { _ in }) }) throws -> (seconds: Double, programmes: Int) {
    var best = Double.infinity
    var count = 0
    for _ in 0..<3 {
        var reader = XMLTVReader()
        count = 0
        let (contents, take) = round()
        reader.contents = contents
        let item: (XMLTVItem) throws -> Void = { item in
            switch item {
            case .programme, .remembered, .repeated: count += 1
            case .channel: break
            }
            try take(item)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let end = min(raw.count, offset + (1 << 20))
                try reader.feed(UnsafeRawBufferPointer(rebasing: raw[offset..<end]), item)
                offset = end
            }
            try reader.finish(item)
        }
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return (best, count)
}

/// What an import's reading thread makes of each item (``ImportBatching``: each programme prepared, its texts folded,
/// its details and body made, a repeat's taken from the first), in batches of the import's size let go as the writer
/// lets go of them: a round's item handler for ``parseSeconds(_:round:)``.
func preparing() -> (contents: (any ProgrammeContents)?, take: (XMLTVItem) throws -> Void) {
    var batching = ImportBatching()
    return (batching.contents, { item in
        if try batching.add(item) { _ = batching.take() }
    })
}

let arguments = CommandLine.arguments.dropFirst()
guard let mode = arguments.first else {
    FileHandle.standardError.write(Data(("usage: GuideBench parse FILE... | prepare FILE... | postings FILE... "
        + "| layout FILE... | channelmap FOLDER [ENTRIES CHANNELS THRESHOLD] | import FILE SCRATCH-FOLDER | queries DATABASE | "
        + "search DATABASE | scan | window DATABASE | "
        + "reminders DATABASE | pool DATABASE | m3u FILE ENTRIES | playlist FILE ENTRIES GUIDE SCRATCH-FOLDER | "
        + "sd STATIONS DAYS SCRATCH-FOLDER [SD-BASE] | upnext DATABASE\n").utf8))
    exit(2)
}
switch mode {
case "channelmap":
    // The channel matcher's accuracy on the development set, and its time at scale.
    guard let folder = arguments.dropFirst().first else { exit(2) }
    try channelMapBench(folder: folder, entries: Int(arguments.dropFirst(2).first ?? "") ?? 10_000,
                        channels: Int(arguments.dropFirst(3).first ?? "") ?? 30_000, appliedAt: Double(arguments.dropFirst(4).first ?? "") ?? 0.9)
case "parse":
    // Parse speed on plain XML held in memory: the reader alone, no disk, no store.
    for path in arguments.dropFirst() {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let (seconds, programmes) = try parseSeconds(bytes)
        print("parse\t\(path)\t\(bytes.count)\t\(programmes)\t\(String(format: "%.1f", Double(bytes.count) / seconds / 1e6))")
    }
case "prepare":
    // The reading thread of an import alone: the parse, and each programme prepared for the store, no store.
    for path in arguments.dropFirst() {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let (seconds, programmes) = try parseSeconds(bytes, round: preparing)
        let rate = String(format: "%.1f", Double(bytes.count) / seconds / 1e6)
        print("prepare\t\(path)\t\(bytes.count)\t\(programmes)\t\(rate)")
    }
case "postings":
    // The trigram postings of a guide's distinct titles and bodies, as an import's writer gathers them (no store).
    for path in arguments.dropFirst() {
        for (label, texts, bytes, runs, seconds) in try postingsBench(path: path) {
            let rate = String(format: "%.1f", Double(bytes) / seconds / 1e6)
            print("postings\t\(path)\t\(label)\t\(texts)\t\(bytes)\t\(runs)\t\(rate)")
        }
    }
case "layout":
    // The layout scan a refresh runs over a download (ListingLayoutScanner) on plain XMLTV held in memory, fed in
    // 64 KB chunks as a download arrives: best of three, MB/s.
    for path in arguments.dropFirst() {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var best = Double.infinity, programmes = 0
        for _ in 0..<3 {
            var scanner = ListingLayoutScanner(localZone: nil)
            let start = DispatchTime.now().uptimeNanoseconds
            bytes.withUnsafeBytes { raw in
                for offset in stride(from: 0, to: raw.count, by: 1 << 16) {
                    scanner.feed(UnsafeRawBufferPointer(rebasing: raw[offset..<min(raw.count, offset + (1 << 16))]))
                }
            }
            programmes = scanner.finish()?.programmes ?? -1
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let rate = String(format: "%.1f", Double(bytes.count) / best / 1e6)
        print("layout\t\(path)\t\(bytes.count)\t\(programmes)\t\(rate)")
    }
case "m3u":
    // A playlist of ENTRIES entries made from a real one (its entries again and again, after one header), read in
    // 64 KB chunks as a download arrives, each entry's name made a match key; time, and peak RSS (flat: the reader
    // keeps one line and one entry).
    guard let path = arguments.dropFirst().first, let wanted = arguments.dropFirst(2).first.flatMap({ Int($0) }) else { exit(2) }
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let body = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1).last.map(Array.init) ?? []
    let perCopy = try M3UReader.read(bytes).entries.count
    var reader = M3UReader()
    var entries = 0, keys = Set<String>()
    let start = DispatchTime.now().uptimeNanoseconds
    let count = { (entry: PlaylistEntry) in
        entries += 1
        keys.insert(PlaylistEntry.matchKey(entry.guideName ?? entry.name))
    }
    reader.read(bytes.prefix(while: { $0 != UInt8(ascii: "\n") }) + [UInt8(ascii: "\n")], entry: count)
    for _ in 0..<max(1, (wanted + perCopy - 1) / max(1, perCopy)) {
        var offset = 0
        while offset < body.count {
            reader.read(body[offset..<min(body.count, offset + 65_536)], entry: count)
            offset += 65_536
        }
        reader.read([UInt8(ascii: "\n")], entry: count)
    }
    try reader.finish(entry: count)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) } ?? "?"
    print("m3u\t\(path)\t\(entries)\t\(keys.count)\t\(String(format: "%.3f", seconds))\t\(String(format: "%.0f", Double(entries) / seconds))\t\(peak)")
case "playlist":
    // A playlist of ENTRIES entries made from a real one, written to disk, stored as an M3U source's entries in a fresh
    // SQLite database holding the real guide GUIDE (as a refresh stores it: read 1 MB at a time, 1,000 entries a
    // batch, one transaction), then matched to the guide's channels as the pages do (PlaylistMatch.read).
    guard let path = arguments.dropFirst().first, let wanted = arguments.dropFirst(2).first.flatMap({ Int($0) }),
          let guide = arguments.dropFirst(3).first, let scratch = arguments.dropFirst(4).first else { exit(2) }
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let header = Array(bytes.prefix(while: { $0 != UInt8(ascii: "\n") })) + [UInt8(ascii: "\n")]
    let body = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1).last.map(Array.init) ?? []
    let perCopy = try M3UReader.read(bytes).entries.count
    let playlist = "\(scratch)/playlist.m3u", database = "\(scratch)/playlist.sqlite"
    var text = header
    for _ in 0..<max(1, (wanted + perCopy - 1) / max(1, perCopy)) { text += body + [UInt8(ascii: "\n")] }
    try Data(text).write(to: URL(fileURLWithPath: playlist))
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
    let store = try await openGuideDatabase(database, now: benchClock.now)
    try await ListingImporter(store: store).importFile(at: guide)
    try await store.addSource(SourceDefinition(name: SourceName("iptv"), format: .m3u, location: playlist))
    var start = DispatchTime.now().uptimeNanoseconds
    let stored = try await PlaylistFile.store(playlist, as: SourceName("iptv"), in: store).entries
    let storeSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    start = DispatchTime.now().uptimeNanoseconds
    let channels = try await store.channels()
    let matched = try await PlaylistMatch.read(store, for: channels).entries.count
    let matchSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) } ?? "?"
    print("playlist\t\(stored)\t\(channels.count)\t\(matched)\t\(String(format: "%.3f", storeSeconds))\t\(String(format: "%.3f", matchSeconds))\t\(peak)")
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
    try? FileManager.default.removeItem(atPath: playlist)  // The bench's own scratch files.
case "sd":
    // A Schedules Direct refresh from the stand-in: the first, then one with nothing changed.
    guard let stations = arguments.dropFirst().first.flatMap({ Int($0) }), let days = arguments.dropFirst(2).first.flatMap({ Int($0) }),
          let scratch = arguments.dropFirst(3).first else { exit(2) }
    let base = arguments.dropFirst(4).first
    for (label, requests, bytes, seconds, programmes) in try await schedulesDirectBench(stations: stations, days: days, scratch: scratch, base: base) {
        print("sd\t\(label)\t\(requests)\t\(bytes)\t\(String(format: "%.2f", seconds))\t\(programmes)\t\(peakRSSMegabytes())")
    }
case "import":
    // Import throughput inside one process (no process start): a fresh database per run, best of 3.
    guard let path = arguments.dropFirst().first, let scratch = arguments.dropFirst(2).first else { exit(2) }
    var best = Double.infinity
    var programmes = 0
    for run in 0..<3 {
        let database = "\(scratch)/import-\(run).sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        let store = try await openGuideDatabase(database, now: benchClock.now)
        let start = DispatchTime.now().uptimeNanoseconds
        programmes = try await ListingImporter(store: store).importFile(at: path).programmes
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
    }
    print("import\t\(path)\t\(programmes)\t\(String(format: "%.3f", best))\t\(String(format: "%.0f", Double(programmes) / best))")
case "history":
    // A tracker's history read, matched on the TVmaze stand-in (another process) and kept, as `tvguide history
    // import` does, into a fresh database with one profile: seconds of each step, and peak RSS of this process.
    guard let file = arguments.dropFirst().first, let path = arguments.dropFirst(2).first, let base = arguments.dropFirst(3).first else { exit(2) }
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let store = try await openGuideDatabase(path, now: benchClock.now)
    let profile = try await store.createProfile(name: "Sam", role: .admin, secretKind: .pin, secretHash: "bench").id
    let clock = ContinuousClock()
    let started = clock.now
    let tracked = try TrackerFiles.read([(URL(fileURLWithPath: file).lastPathComponent, [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))])
    let read = clock.now
    // tvguide's own cost: the stand-in is not held to TVmaze's 20 requests in 10 s, which tvguide keeps with TVmaze; the
    // requests counted say how long that limit alone makes it there.
    let (plan, report, requests) = try await withHTTPTransport { plain in
        let transport = CountingTransport(plain)
        let client = TVMazeClient(base: base, transport: transport, limiter: RateLimiter(limit: 1_000_000, per: .seconds(1), clock: benchClock.waits), cache: store,
                                  now: benchClock.now, clock: benchClock.waits)
        let importer = HistoryImport(client: client, history: WatchHistory(store: store, tracker: SeriesTracker(client: client, store: store, now: benchClock.now), now: benchClock.now))
        let plan = try await importer.plan(tracked)
        return (plan, try await importer.apply(plan, to: profile, follow: true), transport.counts.withLock { $0.requests })
    }
    let done = clock.now
    let seconds = { (span: Duration) in String(format: "%.2f", Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18) }
    print("history\t\(tracked.episodeCount)\t\(plan.matched.count)\t\(report.marked)\t\(report.followed)\t\(seconds(read - started))"
          + "\t\(seconds(done - read))\t\(requests)\t\(requests / 2)\t\(peakRSSMegabytes())")
case "upnext":
    // Up next as /up-next reads it: every followed show's progress for the database's first profile, median of 21.
    guard let path = arguments.dropFirst().first else { exit(2) }
    let store = try await openGuideDatabase(path, now: benchClock.now)
    guard let profile = try await store.profiles().first?.id else { exit(1) }
    let shows = try await withHTTPTransport { transport in
        let client = TVMazeClient(transport: transport, limiter: RateLimiter(clock: benchClock.waits), cache: store, now: benchClock.now, clock: benchClock.waits)
        let history = WatchHistory(store: store, tracker: SeriesTracker(client: client, store: store, now: benchClock.now), now: benchClock.now)
        let first = try await medianMilliseconds(runs: 1) { _ = try await history.progress(of: profile) }
        let median = try await medianMilliseconds(runs: 21) { _ = try await history.progress(of: profile) }
        let progress = try await history.progress(of: profile)
        return (progress.count, progress.reduce(0) { $0 + $1.watched }, first, median)
    }
    print("upnext\t\(shows.0)\t\(shows.1)\t\(String(format: "%.1f", shows.2))\t\(String(format: "%.1f", shows.3))")
case "queries":
    // Query latency on an imported database (a file or a postgres:// address): now/next for every channel, one
    // channel's day, a two-term search.
    guard let path = arguments.dropFirst().first else { exit(2) }
    let store = try await openGuideDatabase(path, now: benchClock.now)
    do {
        let channels = try await store.channels()
        guard let coverage = try await store.coverage() else { exit(1) }
        let instant = coverage.start.addingTimeInterval(coverage.duration / 2)
        // The first now/next after an import also loads the in-memory schedule; the median is every one after it.
        let first = try await medianMilliseconds(runs: 1) { _ = try await store.nowNext(at: instant, channels: nil) }
        let nowNext = try await medianMilliseconds(runs: 21) { _ = try await store.nowNext(at: instant, channels: nil) }
        let sample = try await store.nowNext(at: instant, channels: nil).compactMap(\.now).max { $0.programme.title.count < $1.programme.title.count }
        let day = TimeWindow(start: instant.addingTimeInterval(-12 * 3600), end: instant.addingTimeInterval(12 * 3600))
        let channel = sample?.programme.channel ?? channels[0].id
        let channelDay = try await medianMilliseconds(runs: 21) { _ = try await store.programmes(on: channel, in: day) }
        let words = (sample?.programme.title ?? "the news").split(separator: " ").map(String.init).filter { $0.count >= 3 }.prefix(2)
        let query = SearchQuery(Array(words), limit: 100)
        let search = try await medianMilliseconds(runs: 21) { _ = try await store.search(query) }
        let found = try await store.search(query).count
        print("queries\t\(channels.count)\t\(String(format: "%.2f", nowNext))\t\(String(format: "%.2f", channelDay))\t\(String(format: "%.2f", search))\t\(words.joined(separator: " "))\t\(found)\t\(String(format: "%.1f", first))")
    }
case "search":
    // A fixed set of searches on an imported database (a file or a postgres:// address), p50 and p95: SearchBench.
    guard let path = arguments.dropFirst().first else { exit(2) }
    let store = try await openGuideDatabase(path, now: benchClock.now)
    try await SearchBench.run(store, now: benchClock.now())
case "scan":
    try await SearchBench.scan()
case "window":
    // The store's side of a guide window: 1,000 channels x 6 hours from the middle of the listings, p50 and p99.
    guard let path = arguments.dropFirst().first else { exit(2) }
    let store = try await openGuideDatabase(path, now: benchClock.now)
    do {
        let channels = Array(try await store.channels().prefix(1000).map(\.id))
        guard let coverage = try await store.coverage() else { exit(1) }
        let start = coverage.start.addingTimeInterval(coverage.duration / 2)
        let window = TimeWindow(start: start, end: start.addingTimeInterval(6 * 3600))
        var times: [Double] = []
        var programmes = 0
        for run in 0..<110 {
            let began = DispatchTime.now().uptimeNanoseconds
            programmes = try await store.guide(in: window, channels: channels, detail: .summary).reduce(0) { $0 + $1.programmes.count }
            if run >= 10 { times.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6) }
        }
        times.sort()
        print("window\t\(channels.count)\t\(programmes)\t\(String(format: "%.1f", times[times.count / 2]))\t\(String(format: "%.1f", times[times.count * 99 / 100]))")
    }
case "reminders":
    // Reminders into a fresh database (a new file, or a postgres:// address with a schema of its own): 10,000
    // waiting for 100 profiles, each with one webhook to a loopback receiver; then a round that finds nothing due
    // (what the dispatcher asks every 10 s), median of 21; then all of them due and sent, rounds back to back.
    guard let path = arguments.dropFirst().first else { exit(2) }
    let store = try await openGuideDatabase(path, now: benchClock.now)
    let receiver = try await Receiver()
    let t0 = Date(timeIntervalSince1970: 1_900_000_000)
    let clock = Mutex(t0)
    var profiles: [Profile] = []
    for index in 0..<100 {
        let profile = try await store.createProfile(name: "p\(index)", role: .viewer, secretKind: .pin, secretHash: "x", onlyIfFirst: false)
        _ = try await store.addDeliveryChannel(NewDeliveryChannel(profile: profile.id, kind: .webhook, name: "hook", target: receiver.url("/hook"),
                                                                  secret: "k"), at: t0)
        profiles.append(profile)
    }
    let adding = DispatchTime.now().uptimeNanoseconds
    for index in 0..<10_000 {
        // Starts spread over 50 minutes, each lasting an hour: at t0 + 1:50 every one is due and none has ended.
        let start = t0.addingTimeInterval(3600 + TimeInterval(index * 3 / 10))
        _ = try await store.addReminder(NewReminder(profile: profiles[index % 100].id, kind: .programme, channel: ChannelID("c\(index % 50)"),
                                                    channelName: "Channel", title: "Programme \(index)", start: start,
                                                    stop: start.addingTimeInterval(3600), leadMinutes: 15), at: t0)
    }
    let addSeconds = Double(DispatchTime.now().uptimeNanoseconds - adding) / 1e9
    let dispatcher = ReminderDispatcher(store: store, senders: ReminderSenders(transport: PolicedTransport(policy: OutboundPolicy(allowances: [.loopback]))), clock: ContinuousClock(),
                                        now: { clock.withLock { $0 } })
    let idle = try await medianMilliseconds(runs: 21) { _ = try await dispatcher.sendDue() }
    clock.withLock { $0 = t0.addingTimeInterval(3600 + 3000) }
    let sending = DispatchTime.now().uptimeNanoseconds
    var sent = 0
    while true {
        let round = try await dispatcher.sendDue()
        sent += round.sent
        if round.claimed == 0 { break }
    }
    let sendSeconds = Double(DispatchTime.now().uptimeNanoseconds - sending) / 1e9
    try await receiver.stop()
    print("reminders\t\(String(format: "%.0f", 10_000 / addSeconds))\t\(String(format: "%.2f", idle))\t\(sent)\t\(String(format: "%.1f", sendSeconds))\t\(String(format: "%.0f", Double(sent) / sendSeconds))\t\(receiver.requests.count)")
case "pool":
    // What /metrics's pool figures add to each read (StorePoolUse, around every connection a store lends): a borrow and
    // return timed 1,000,000 times with no metrics system and with Prometheus's, in ns, beside one channel's 24 h
    // (median of 201, in µs), the cheapest read a page makes.
    guard let path = arguments.dropFirst().first else { exit(2) }
    let store = try await openGuideDatabase(path, now: benchClock.now)
    func nanosecondsPerUse(_ use: StorePoolUse) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<1_000_000 { use.lent(askedAt: .now) {} }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    }
    let without = nanosecondsPerUse(StorePoolUse(store: "bench", limit: 8, metrics: NOOPMetricsHandler.instance))
    let with = nanosecondsPerUse(StorePoolUse(store: "bench", limit: 8, metrics: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry())))
    guard let coverage = try await store.coverage(), let channel = try await store.channels().first?.id else { exit(1) }
    let day = TimeWindow(start: coverage.start, end: coverage.start.addingTimeInterval(86_400))
    let read = try await medianMilliseconds(runs: 201) { _ = try await store.programmes(on: channel, in: day) } * 1000
    print("pool\t\(String(format: "%.0f", without))\t\(String(format: "%.0f", with))\t\(String(format: "%.0f", read))")
default:
    FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
    exit(2)
}
