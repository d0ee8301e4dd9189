import ArgumentParser
import Foundation
import GuideCore
import GuideIngest
import GuideStore

/// `tvguide grabbers`: the XMLTV grabbers installed on the machine, and a grabber source's configuration file and
/// channels. A source of format `grabber` names the grabber (`tvguide sources add France tv_grab_fr --format grabber`).
struct GrabbersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grabbers",
        abstract: Output.words("The XMLTV grabbers installed here, and a grabber source's configuration and channels."),
        discussion: Output.words("Grabbers are found in grabber-path (the folders of PATH by default); xmltv-util has the XMLTV project's. A grabber source runs its grabber with the configuration kept for it: `tvguide grabbers configure SOURCE FILE` keeps a file made with the grabber's own --configure, or the admin pages ask its questions (docs/sources.md)."),
        subcommands: [List.self, Configure.self, Channels.self],
        defaultSubcommand: List.self
    )

    /// The guide's database and where grabbers are found and run (`grabber-path`, `grabber-minutes`).
    struct Setup: ParsableArguments {
        @OptionGroup var store: StoreOptions

        func withGrabbers<T>(_ body: (Grabbers, any GuideDatabase) async throws -> T) async throws -> T {
            let layers = try await store.settings()
            let grabbers = try GrabberSettings(layers).grabbers(localFiles: StoreLocation(layers).localFiles)
            return try await store.withDatabase { database in try await body(grabbers, database) }
        }

        /// The grabber source called `name`.
        static func source(_ name: String, in database: any GuideDatabase) async throws -> SourceDefinition {
            guard let definition = try await database.sources().map(\.definition).first(where: { $0.name.rawValue == name }) else {
                throw CLIFailure(Output.words("there is no source called {name}; `tvguide sources list` shows them", ["name": name]))
            }
            guard definition.format == .grabber else {
                throw CLIFailure(Output.words("{name} is not a grabber source (its format is {format})", ["name": name, "format": definition.format.rawValue]))
            }
            return definition
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("The grabbers installed: what each says it is and can do."))

        @OptionGroup var setup: Setup

        @Flag(help: .words("Print JSON instead of lines."))
        var json = false

        func run() async throws {
            try await setup.withGrabbers { grabbers, _ in
                let installed = await grabbers.installed()
                if json { return try Output.json(installed) }
                if installed.isEmpty {
                    Output.line(Output.words("No grabbers in {folders} (xmltv-util has the XMLTV project's).", ["folders": grabbers.directories.joined(separator: ", ")]))
                }
                let words = Output.words
                for grabber in installed {
                    let line = "\(grabber.name)\t\(grabber.description)\t\(grabber.capabilities.joined(separator: ","))"
                    // Columns split by tabs; the last, when there is one, a sentence of its own.
                    Output.line(line + (grabber.problem.map { "\t" + words("cannot be used: {problem}", ["problem": $0.worded(words)]) } ?? ""))
                }
            }
        }
    }

    struct Configure: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: Output.words("Keep a configuration file for a grabber source (made with the grabber's --configure; - reads standard input), or print the one kept."))

        @OptionGroup var setup: Setup

        @Argument(help: .words("The grabber source."))
        var source: String

        @Argument(help: .words("The configuration file to keep; without it, the one kept is printed."))
        var file: String?

        func run() async throws {
            try await setup.withGrabbers { _, database in
                let definition = try await Setup.source(source, in: database)
                guard let file else {
                    guard let text = try await database.grabberConfiguration(of: definition.name) else {
                        throw CLIFailure(Output.words("{source} has no configuration yet", ["source": source]))
                    }
                    return Output.line(text.hasSuffix("\n") ? String(text.dropLast()) : text)
                }
                let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
                guard let text = String(data: data, encoding: .utf8) else { throw CLIFailure(Output.words("{file} is not UTF-8 text", ["file": file])) }
                let configuration = GrabberConfiguration(text)
                if let problem = configuration.problem { throw CLIFailure(problem.worded(Output.words)) }
                try await database.setGrabberConfiguration(configuration.text, of: definition.name)
                Output.line(Output.words.plural("Kept {source}'s configuration ({count} channel chosen).", "Kept {source}'s configuration ({count} channels chosen).",
                                                count: configuration.chosenChannels.count, ["source": source]))
            }
        }
    }

    struct Channels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: Output.words("The channels a grabber source's grabber offers (--list-channels); with --choose, the ones to grab."))

        @OptionGroup var setup: Setup

        @Argument(help: .words("The grabber source."))
        var source: String

        @Option(parsing: .upToNextOption, help: .words("Channel ids to grab (the others offered are not)."))
        var choose: [String] = []

        func run() async throws {
            try await setup.withGrabbers { grabbers, database in
                let definition = try await Setup.source(source, in: database)
                let configuration = GrabberConfiguration(try await database.grabberConfiguration(of: definition.name) ?? "")
                let offered = try await CLIFailure.translating {
                    try await grabbers.channels(grabber: definition.location, for: definition.name, configuration: configuration)
                }
                guard !choose.isEmpty else {
                    let chosen = Set(configuration.chosenChannels)
                    for channel in offered { Output.line("\(chosen.contains(channel.id.rawValue) ? "*" : " ") \(channel.id)\t\(channel.name)") }
                    return
                }
                let unknown = Set(choose).subtracting(offered.map(\.id.rawValue))
                guard unknown.isEmpty else {
                    throw CLIFailure(Output.words("{grabber} does not offer {channels}", ["grabber": definition.location, "channels": unknown.sorted().joined(separator: ", ")]))
                }
                let chosen = configuration.choosing(Set(choose), of: offered.map(\.id.rawValue))
                if let problem = chosen.problem { throw CLIFailure(problem.worded(Output.words)) }
                try await database.setGrabberConfiguration(chosen.text, of: definition.name)
                Output.line(Output.words.plural("{source} grabs {chosen} of {count} channel.", "{source} grabs {chosen} of {count} channels.", count: offered.count,
                                                ["source": source, "chosen": Output.words.number(choose.count)]))
            }
        }
    }
}
