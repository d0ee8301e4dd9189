import ArgumentParser
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: Output.words("Import XMLTV or Radio Times listings from files or URLs (plain or gzip)."),
        discussion: Output.words("Each file or URL is one import: it replaces what the same source said before for the channels and times it covers. A file that cannot be read changes nothing.")
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: .words("Files or http(s) URLs to import.", valueName: "path-or-url"))
    var inputs: [String]

    @Flag(help: .words("Print one JSON object with the counts and the repairs."))
    var json = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError(Output.words("Name at least one file or URL to import.")) }
    }

    func run() async throws {
        try await store.withDatabase { database in try await withHTTPTransport { transport in
            let importer = ListingImporter(store: database)
            let clock = GuideClock.system()
            var summaries: [ImportSummary] = []
            for input in inputs {
                let meter = ProgressMeter(label: input, now: clock.now)
                let summary = try await CLIFailure.translating(context: Output.words("cannot import {file}", ["file": input])) {
                    try await importer.importLocation(input, transport: transport, clock: clock) { meter.update($0) }
                }
                meter.done()
                summaries.append(summary)
            }
            let totals = try await database.counts()
            if json {
                try Output.json(ImportReportDocument(summaries, totals: totals))
            } else {
                let words = Output.words
                for summary in summaries {
                    Output.line(words("{source}: {channels}, {programmes}", [
                        "source": summary.source.rawValue, "channels": words.plural("{count} channel", "{count} channels", count: summary.channels),
                        "programmes": words.plural("{count} programme", "{count} programmes", count: summary.programmes)])
                        + (summary.replaced > 0 ? ", " + words.plural("replacing {count}", "replacing {count}", count: summary.replaced) : ""))
                    // The kinds of repair are the names --json gives them; each repair's message is in the terminal's language.
                    for (kind, count) in summary.issues.counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                        Output.line("  \(words.number(count)) \(kind.rawValue)")
                    }
                    for issue in summary.issues.issues.prefix(10) {
                        let message = issue.message.worded(words)
                        Output.line("    " + (issue.line.map { words("line {line}: {message}", ["line": String($0), "message": message]) } ?? message))
                    }
                }
                Output.line(words("The guide now holds {channels} and {programmes}.", [
                    "channels": words.plural("{count} channel", "{count} channels", count: totals.channels),
                    "programmes": words.plural("{count} programme", "{count} programmes", count: totals.programmes)]))
            }
        } }
    }
}

/// `import --json`: one object for the whole run.
struct ImportReportDocument: Encodable {
    struct Source: Encodable {
        var source: String
        var channels: Int
        var programmes: Int
        var replaced: Int
        var repairs: [String: Int]
        var issues: [ListingIssue]
    }

    var channels: Int
    var programmes: Int
    var stored: Stored
    var repairs: [String: Int]
    var issues: [ListingIssue]
    var sources: [Source]

    struct Stored: Encodable {
        var channels: Int
        var programmes: Int
    }

    init(_ summaries: [ImportSummary], totals: (channels: Int, programmes: Int)) {
        channels = summaries.reduce(0) { $0 + $1.channels }
        programmes = summaries.reduce(0) { $0 + $1.programmes }
        stored = Stored(channels: totals.channels, programmes: totals.programmes)
        sources = summaries.map { summary in
            Source(source: summary.source.rawValue, channels: summary.channels, programmes: summary.programmes,
                   replaced: summary.replaced,
                   repairs: Dictionary(uniqueKeysWithValues: summary.issues.counts.map { ($0.key.rawValue, $0.value) }),
                   issues: summary.issues.issues)
        }
        repairs = sources.reduce(into: [:]) { result, source in
            for (kind, count) in source.repairs { result[kind, default: 0] += count }
        }
        issues = sources.flatMap(\.issues)
    }
}

/// A progress line on stderr, redrawn in place on a terminal and printed every few seconds otherwise.
final class ProgressMeter: @unchecked Sendable {
    private let label: String
    private let now: @Sendable () -> Date
    private let started: Date
    private var lastShown = Date.distantPast
    private var shownAny = false
    private let lock = NSLock()
    private let isTerminal = isatty(2) == 1

    init(label: String, now: @escaping @Sendable () -> Date) {
        self.label = label
        self.now = now
        started = now()
    }

    func update(_ progress: ImportProgress) {
        lock.lock()
        defer { lock.unlock() }
        let instant = now()
        guard instant.timeIntervalSince(started) > 0.5, instant.timeIntervalSince(lastShown) > (isTerminal ? 0.2 : 5) else { return }
        lastShown = instant
        shownAny = true
        let words = Output.words
        let programmes = words.plural("{count} programme", "{count} programmes", count: progress.programmes)
        let text = if let total = progress.totalBytes, let fraction = progress.fraction {
            words("{source}: {size} of {total} ({percent}), {programmes}", ["source": label, "size": words.megabytes(progress.bytesRead),
                                                                            "total": words.megabytes(total), "percent": words.percent(fraction),
                                                                            "programmes": programmes])
        } else {
            words("{source}: {size}, {programmes}", ["source": label, "size": words.megabytes(progress.bytesRead), "programmes": programmes])
        }
        FileHandle.standardError.write(Data(((isTerminal ? "\r\u{1B}[K" : "") + text + (isTerminal ? "" : "\n")).utf8))
    }

    func done() {
        lock.lock()
        defer { lock.unlock() }
        if shownAny && isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
