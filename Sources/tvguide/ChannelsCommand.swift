import ArgumentParser
import GuideCore
import GuideIngest
import GuideStore

struct ChannelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channels", abstract: Output.words("List the guide's channels; match a source's channels to them."),
        subcommands: [List.self, Match.self], defaultSubcommand: List.self)
}

extension ChannelsCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("List the guide's channels."))

        @OptionGroup var store: StoreOptions

        @Flag(help: .words("Print JSON."))
        var json = false

        struct Document: Encodable {
            var id: String
            var name: String
            var names: [LocalizedText]
            var number: String?
            var icon: String?
            /// From the playlist describing it (an M3U source): its groups and its stream's address.
            var groups: [String]
            var stream: String?
        }

        func run() async throws {
            let (stored, playlist) = try await store.withDatabase { database in
                let channels = try await database.channels()
                return (channels, try await PlaylistMatch.read(database, for: channels).entries)
            }
            let channels = stored.map { $0.described(by: playlist[$0.id]) }
            if json {
                try Output.json(channels.map {
                    Document(id: $0.id.rawValue, name: $0.name, names: $0.displayNames, number: $0.number, icon: $0.icons.first?.src,
                             groups: playlist[$0.id]?.groups ?? [], stream: playlist[$0.id]?.stream)
                })
                return
            }
            guard !channels.isEmpty else {
                Output.error(Output.words("The guide has no channels yet. Import listings first: tvguide import FILE-OR-URL"))
                return
            }
            let width = min(40, channels.map(\.id.rawValue.count).max() ?? 0)
            for channel in channels {
                let id = channel.id.rawValue.padding(toLength: max(width, channel.id.rawValue.count), withPad: " ", startingAt: 0)
                Output.line("\(id)  \(channel.number.map { "\($0)  " } ?? "")\(channel.name)")
            }
        }
    }
}

extension ChannelsCommand {
    /// `tvguide channels match SOURCE`: what the channel matcher finds for each of a source's channels, and with
    /// `--apply` keeps it (what it is sure of mapped, a person's choice never replaced).
    struct Match: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: Output.words("Match a source's channels to the guide's: each with its confidence and why."),
            discussion: Output.words("A match at least 97.1% sure is applied without asking (what is applied so is right 99 times in 100 on real channel names); the rest wait on the source's page for a person. A channel mapped by a person is never changed. Without --apply nothing is kept."))

        @OptionGroup var store: StoreOptions

        @Argument(help: .words("The source's name."))
        var source: String

        @Flag(help: .words("Keep the suggestions and apply what the matcher is sure of."))
        var apply = false

        @Flag(help: .words("Print JSON: {\"entries\": [...]}, one object per channel of the source."))
        var json = false

        struct Document: Encodable {
            var entries: [SourceMatching.Entry]
        }

        func run() async throws {
            let entries = try await store.withDatabase { database in
                try await CLIFailure.translating { try await SourceMatching(store: database).match(SourceName(source), apply: apply) }
            }
            if json {
                try Output.json(Document(entries: entries))
                return
            }
            let words = Output.words
            for entry in entries {
                let target = entry.channel ?? "-"
                let how = entry.chosenBy == MappingChooser.person.rawValue ? words("chosen by a person")
                    : entry.applied ? words("{percent}% sure, applied", ["percent": Self.percent(entry.confidence)])
                    : entry.candidates.isEmpty ? words("no candidate") : words("{percent}% sure, waits for a person", ["percent": Self.percent(entry.confidence)])
                Output.line("\(entry.id)  \(entry.name)  -> \(target)  (\(how))")
                guard entry.chosenBy != MappingChooser.person.rawValue, !entry.applied else { continue }
                for candidate in entry.candidates.prefix(3) {
                    Output.line("    \(candidate.channel)  \(Self.percent(candidate.confidence))%  \(candidate.why)")
                }
            }
            let applied = entries.filter(\.applied).count, waiting = entries.filter(\.waitsForPerson).count
            Output.line(words("{count} channels: {applied} applied, {waiting} wait for a person.",
                              ["count": "\(entries.count)", "applied": "\(applied)", "waiting": "\(waiting)"]) + (apply ? "" : " " + words("(Nothing kept: --apply keeps it.)")))
        }

        static func percent(_ confidence: Double) -> String {
            String(format: "%.1f", confidence * 100)
        }
    }
}
