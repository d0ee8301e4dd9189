import ArgumentParser
import Foundation
import GuideCore
import GuideStore

struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "How the sources and the channels' listings are doing.",
        discussion: "Per source: its last refresh, success or error, bytes, programmes, repairs. Per channel: where its listings end, gaps of 30 minutes or more ahead, and sources whose times look shifted against another source for the same channel."
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Judge as of this instant, ISO 8601 (default: now).", valueName: "instant"))
    var at: String?

    @Flag(help: "Print JSON: {sources, channels}.")
    var json = false

    func run() throws {
        let instant = try NowCommand.instant(at)
        let database = try store.open()
        let (sources, channels) = try CLIFailure.translating { (try database.sources(), try database.channelHealth(at: instant)) }
        if json {
            try Output.json(HealthDocument(sources: sources.map(SourceDocument.init), channels: channels))
            return
        }
        Output.line(sources.isEmpty ? "No configured sources (tvguide sources add)." : "Sources")
        for status in sources {
            Output.line("  \(status.definition.name): " + SourceDocument.lastRefresh(status))
        }
        let ending = channels.filter { ($0.listingsEnd ?? .distantPast) < instant.addingTimeInterval(24 * 3600) }
        let gapped = channels.filter { !$0.gaps.isEmpty }
        let warned = channels.filter { !$0.warnings.isEmpty }
        Output.line("Channels: \(channels.count) with listings; \(ending.count) end within 24 h; \(gapped.count) with gaps ahead; "
                    + "\(warned.count) with shifted-time warnings")
        for channel in channels where !channel.gaps.isEmpty || !channel.warnings.isEmpty
            || (channel.listingsEnd ?? .distantPast) < instant.addingTimeInterval(24 * 3600) {
            var line = "  \(channel.name) (\(channel.channel)): " + Self.ends(channel.listingsEnd, from: instant)
            if !channel.gaps.isEmpty {
                line += "; gaps " + channel.gaps.prefix(3).map { "\(Output.day($0.start)) \(Output.clock($0.start))-\(Output.clock($0.end))" }
                    .joined(separator: ", ") + (channel.gaps.count > 3 ? " and \(channel.gaps.count - 3) more" : "")
            }
            Output.line(line)
            for warning in channel.warnings { Output.line("    WARNING: \(warning)") }
        }
    }

    /// "ends in 14 h", "ends in 3 days", "ended 2 h ago".
    static func ends(_ end: Date?, from instant: Date) -> String {
        guard let end else { return "no listings" }
        let hours = Int((end.timeIntervalSince(instant) / 3600).rounded())
        if hours < 0 { return -hours < 48 ? "ended \(-hours) h ago" : "ended \(-hours / 24) days ago" }
        return hours < 48 ? "ends in \(hours) h" : "ends in \(hours / 24) days"
    }
}

struct HealthDocument: Encodable {
    var sources: [SourceDocument]
    var channels: [ChannelHealth]
}
