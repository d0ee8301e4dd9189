import ArgumentParser
import Foundation
import GuideCore
import GuideStore

struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: Output.words("How the sources and the channels' listings are doing."),
        discussion: Output.words("Per source: its last refresh, success or error, bytes, programmes, repairs. Per channel: where its listings end, gaps of 30 minutes or more ahead, and sources whose times look shifted against another source for the same channel.")
    )

    @OptionGroup var store: StoreOptions

    @Option(help: .words("Judge as of this instant, ISO 8601 (default: now).", valueName: "instant"))
    var at: String?

    @Flag(help: .words("Print JSON: {sources, channels}."))
    var json = false

    func run() async throws {
        let instant = try NowCommand.instant(at)
        try await store.withDatabase { database in
            let (sources, channels) = try await CLIFailure.translating { (try await database.sources(), try await database.channelHealth(at: instant)) }
            if json {
                try Output.json(HealthDocument(sources: sources, channels: channels))
                return
            }
            let (words, clock) = (Output.words, Output.viewerClock())
            Output.line(sources.isEmpty ? words("No configured sources (tvguide sources add).") : words("Sources"))
            for status in sources {
                Output.line("  \(status.definition.name): " + status.refreshLine(words, clock))
            }
            Output.line(ChannelHealth.summary(channels, at: instant, words))
            for channel in channels where channel.needsAttention(at: instant) {
                let gaps = channel.gapsAhead(words, clock: clock).map { "; " + words("gaps {gaps}", ["gaps": $0]) } ?? ""
                Output.line("  \(channel.name) (\(channel.channel)): " + channel.ending(from: instant, words: words) + gaps)
                for warning in channel.warnings { Output.line("    " + words("WARNING: {warning}", ["warning": warning])) }
            }
        }
    }
}

struct HealthDocument: Encodable {
    var sources: [SourceStatus]
    var channels: [ChannelHealth]
}
