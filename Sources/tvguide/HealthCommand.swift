import ArgumentParser
import Foundation
import GuideCore
import GuideStore

struct HealthCommand: AsyncParsableCommand {
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

    func run() async throws {
        let instant = try NowCommand.instant(at)
        try await store.withDatabase { database in
            let (sources, channels) = try await CLIFailure.translating { (try await database.sources(), try await database.channelHealth(at: instant)) }
            if json {
                try Output.json(HealthDocument(sources: sources, channels: channels))
                return
            }
            Output.line(sources.isEmpty ? "No configured sources (tvguide sources add)." : "Sources")
            for status in sources {
                Output.line("  \(status.definition.name): " + SourceStatus.lastRefresh(status))
            }
            let ending = channels.filter { ($0.listingsEnd ?? .distantPast) < instant.addingTimeInterval(24 * 3600) }
            let gapped = channels.filter { !$0.gaps.isEmpty }
            let warned = channels.filter { !$0.warnings.isEmpty }
            Output.line("Channels: \(channels.count) with listings; \(ending.count) end within 24 h; \(gapped.count) with gaps ahead; "
                        + "\(warned.count) with shifted-time warnings")
            for channel in channels where channel.needsAttention(at: instant) {
                var line = "  \(channel.name) (\(channel.channel)): " + channel.ending(from: instant)
                if !channel.gaps.isEmpty {
                    line += "; gaps " + channel.gaps.prefix(3).map { "\(Output.day($0.start)) \(Output.clock($0.start))-\(Output.clock($0.end))" }
                        .joined(separator: ", ") + (channel.gaps.count > 3 ? " and \(channel.gaps.count - 3) more" : "")
                }
                Output.line(line)
                for warning in channel.warnings { Output.line("    WARNING: \(warning)") }
            }
        }
    }
}

struct HealthDocument: Encodable {
    var sources: [SourceStatus]
    var channels: [ChannelHealth]
}
