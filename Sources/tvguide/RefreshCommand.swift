import ArgumentParser
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import SchedulesDirect
import Synchronization

struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: Output.words("Fetch the configured sources now (all, or those named)."),
        discussion: Output.words("A source's listings are replaced only when all of its downloads arrived whole and parsed; a failed source keeps what it had. Feeds that have not changed since the last refresh are not downloaded again. Exits with 1 when a source failed.")
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: .words("Sources to refresh (default: all).", valueName: "name"))
    var names: [String] = []

    @Flag(help: .words("Print one JSON object per source with its outcome and counts."))
    var json = false

    func run() async throws {
        try await store.withDatabase { database in try await withHTTPTransport { transport in
            let layers = try await store.settings(flags: [:])
            let clock = GuideClock.system()
            let refresher = SourceRefresher(store: database, transport: transport, tvmazeBase: try TVMazeOptions.base(layers),
                                            schedulesDirect: SDConnection(base: try layers.address(.schedulesDirectURL,
                                                                                                   else: SchedulesDirectClient.defaultBase),
                                                                          transport: transport),
                                            grabbers: try GrabberSettings(layers).grabbers(localFiles: StoreLocation(layers).localFiles),
                                            hdhomerunGuide: try layers.address(.hdhomerunGuideURL, else: HDHomeRunGuide.defaultBase),
                                            now: clock.now, clock: clock.waits)
            let bar = RefreshBar()
            let reports = try await CLIFailure.translating {
                try await refresher.refresh(names.isEmpty ? nil : names.map { SourceName($0) }) { bar.show($0) }
            }
            bar.done()
            if json {
                try Output.json(reports)
            } else if reports.isEmpty {
                Output.line(Output.words("No sources to refresh. Add one: tvguide sources add NAME URL-OR-PATH"))
            } else {
                for report in reports { Output.line(Self.line(report)) }
            }
            if reports.contains(where: { $0.outcome == .failed }) { throw ExitCode(1) }
        } }
    }

    static func line(_ report: SourceReport) -> String {
        let words = Output.words
        let source = report.source
        switch report.outcome {
        case .imported:
            let fetched = report.downloads - report.notModified
            var text = words("{source}: {programmes} on {channels} from {downloads} ({size}, {seconds} s)", [
                "source": source, "programmes": words.plural("{count} programme", "{count} programmes", count: report.programmes),
                "channels": words.plural("{count} channel", "{count} channels", count: report.channels),
                "downloads": words.plural("{count} download", "{count} downloads", count: fetched),
                "size": words.megabytes(report.bytes), "seconds": words.decimal(report.seconds, digits: 1...1)])
            if report.notModified > 0 { text += ", " + words.plural("{count} unchanged", "{count} unchanged", count: report.notModified) }
            if report.replaced > 0 { text += ", " + words.plural("replacing {count}", "replacing {count}", count: report.replaced) }
            if report.repairs > 0 { text += ", " + words.plural("{count} repair", "{count} repairs", count: report.repairs) }
            if report.hidden > 0 {
                text += ", " + words.plural("{count} behind higher-priority sources", "{count} behind higher-priority sources", count: report.hidden)
            }
            for (old, new) in report.renamedChannels.sorted(by: { $0.key < $1.key }) {
                text += "\n  " + words("channel {old} is now {new}; its choices and mapping moved with it", ["old": old, "new": new])
            }
            return text
        case .unchanged:
            return words.plural("{source}: unchanged since the last refresh ({count} not modified)", "{source}: unchanged since the last refresh ({count} not modified)",
                                count: report.notModified, ["source": source])
        case .failed:
            return words("{source}: FAILED, the guide keeps what it had: {error}", ["source": source, "error": report.failure?.worded(words) ?? words("unknown error")])
        case .alreadyRunning:
            return words("{source}: already being refreshed; skipped", ["source": source])
        }
    }
}

/// The refresh's progress on stderr: one line redrawn on a terminal, a line every few seconds otherwise.
final class RefreshBar: Sendable {
    /// Starts as if just shown: a refresh that ends within the first interval prints no progress at all.
    private let state = Mutex<(last: ContinuousClock.Instant?, shown: Bool)>((ContinuousClock.now, false))
    private let isTerminal = isatty(2) == 1

    func show(_ progress: RefreshProgress) {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            if let last = state.last, now - last < (isTerminal ? .milliseconds(200) : .seconds(5)) { return false }
            state = (now, true)
            return true
        }
        guard due else { return }
        let words = Output.words
        let done = progress.downloadsDone, total = max(progress.downloadsTotal, 1)
        let width = 20
        let filled = min(width, width * done / total)
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + words.plural("{done}/{count} download", "{done}/{count} downloads", count: progress.downloadsTotal, ["done": words.number(done)])
        // The download moving now: bytes and a percentage when its size is known, else programmes parsed so far.
        if let source = progress.sources.first(where: { $0.phase == .downloading || $0.phase == .importing }) {
            if source.phase == .importing {
                text += "  " + words("{source}: importing", ["source": source.name])
            } else if let feed = source.feeds.last(where: { $0.bytes > 0 }) {
                let sofar = if let fraction = feed.fraction, let total = feed.totalBytes {
                    words("{source}: {size} of {total} ({percent})", ["source": source.name, "size": words.megabytes(feed.bytes),
                                                                      "total": words.megabytes(total), "percent": words.percent(fraction)])
                } else {
                    words("{source}: {size}, {programmes}", ["source": source.name, "size": words.megabytes(feed.bytes),
                                                             "programmes": words.plural("{count} programme", "{count} programmes", count: feed.programmes)])
                }
                text += "  " + sofar
                if feed.attempt > 1 { text += " " + words("(try {count})", ["count": words.number(feed.attempt)]) }
            }
        }
        FileHandle.standardError.write(Data(((isTerminal ? "\r\u{1B}[K" : "") + text + (isTerminal ? "" : "\n")).utf8))
    }

    func done() {
        if isTerminal, state.withLock({ $0.shown }) { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
