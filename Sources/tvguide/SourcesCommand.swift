import ArgumentParser
import Foundation
import GuideCore
import GuideStore

struct SourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources",
        abstract: Output.words("Configure where listings come from: XMLTV files or URLs, Radio Times channels, TVmaze schedules, M3U playlists, Schedules Direct lineups."),
        discussion: Output.words("Sources are refreshed by `tvguide refresh` and, on their intervals, by `tvguide serve`. Where two sources list the same channel at the same time, the higher priority wins; a lower one fills gaps."),
        subcommands: [Add.self, List.self, Edit.self, Remove.self, Channels.self],
        defaultSubcommand: List.self
    )

    /// The options `add` and `edit` share.
    struct Settings: ParsableArguments {
        @Option(help: .words("Higher wins where sources overlap (default 0)."))
        var priority: Int?

        @Option(help: .words("Refresh every this many hours (default 12).", valueName: "hours"))
        var interval: Double?

        @Option(name: .customLong("shift"), help: .words("Add this many minutes to the source's times (negative to subtract).", valueName: "minutes"))
        var shiftMinutes: Int?

        @Option(name: .customLong("local-zone"), help: .words("Read the source's times as wall-clock times in this zone, ignoring the offsets it states (\"none\" to stop).", valueName: "zone"))
        var localZone: String?

        @Option(help: .words("Radio Times: channel numbers to fetch; others: the only channels to keep. Comma-separated.", valueName: "ids"))
        var channels: String?

        @Option(help: .words("TVmaze and grabbers: days to fetch from today (default 7).", valueName: "n"))
        var days: Int?

        func apply(to definition: inout SourceDefinition) throws {
            if let priority {
                guard SourceDefinition.priorityRange.contains(priority) else {
                    throw ValidationError.option("--priority", .wholeNumber(SourceDefinition.priorityRange, got: String(priority)))
                }
                definition.priority = priority
            }
            if let interval {
                guard let seconds = SourceDefinition.refreshInterval(hours: interval) else {
                    throw ValidationError.option("--interval", .number(lowest: SourceDefinition.refreshHoursRange.lowerBound,
                                                                       highest: SourceDefinition.refreshHoursRange.upperBound, got: String(interval)))
                }
                definition.refreshInterval = seconds
            }
            if let shiftMinutes {
                guard SourceDefinition.timeShiftMinutesRange.contains(shiftMinutes) else {
                    throw ValidationError.option("--shift", .wholeNumber(SourceDefinition.timeShiftMinutesRange, got: String(shiftMinutes)))
                }
                definition.timeShift = shiftMinutes * 60
            }
            if let localZone { definition.localZone = localZone == "none" ? nil : localZone }
            if let channels {
                definition.channels = channels.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }
                // Naming channels for a feed that offers many means: only these.
                if definition.format != .radiotimes { definition.keepNewChannels = definition.channels.isEmpty }
            }
            if let days {
                guard SourceDefinition.daysRange.contains(days) else {
                    throw ValidationError.option("--days", .wholeNumber(SourceDefinition.daysRange, got: String(days)))
                }
                definition.days = days
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Add a source."))

        @OptionGroup var store: StoreOptions

        @Argument(help: .words("A name for the source."))
        var name: String

        @Argument(help: .words("An XMLTV URL or path; Radio Times: a URL with {channel} where the number goes; TVmaze: a country code (GB) or schedule URL; M3U: the playlist's URL or path; Schedules Direct: its lineups (USA-IL57303-X, commas between several); a grabber: its name (tv_grab_fr).", valueName: "url-or-path"))
        var location: String

        @Option(help: .words("xmltv (default), radiotimes, tvmaze, m3u (an IPTV playlist: channel numbers, logos, groups and streams) schedulesdirect (lineups of the account `tvguide schedules-direct login` signed in with) or grabber (an XMLTV grabber installed here: `tvguide grabbers`)."))
        var format: SourceFormat = .xmltv

        @OptionGroup var settings: Settings

        func run() async throws {
            var definition = SourceDefinition(name: SourceName(name), format: format, location: location)
            try settings.apply(to: &definition)
            try await store.withDatabase { database in
                try await database.addSource(definition)
                Output.line(Output.words("Added {name}. Fetch it now with: tvguide refresh {name}", ["name": name]))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("List the sources and how their last refresh went."))

        @OptionGroup var store: StoreOptions

        @Flag(help: .words("Print JSON."))
        var json = false

        func run() async throws {
            let sources = try await store.withDatabase { try await $0.sources() }
            if json {
                try Output.json(sources)
                return
            }
            let (words, clock) = (Output.words, Output.viewerClock())
            guard !sources.isEmpty else {
                Output.line(words("No sources yet. Add one: tvguide sources add NAME URL-OR-PATH [--format xmltv|radiotimes|tvmaze|m3u]"))
                return
            }
            for status in sources {
                let definition = status.definition
                Output.line(words("{name}  {format}  priority {priority}  {schedule}", [
                    "name": definition.name.rawValue, "format": definition.format.rawValue, "priority": words.number(definition.priority),
                    "schedule": definition.schedule(words)]))
                Output.line("  \(definition.location)"
                            + (definition.channels.isEmpty ? "" : "  " + words("channels {ids}", ["ids": definition.channels.joined(separator: ",")])))
                Output.line("  " + status.refreshLine(words, clock))
                Output.line("  " + words("holds {programmes}", ["programmes": status.holding(words)]))
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Change a source's settings."))

        @OptionGroup var store: StoreOptions

        @Argument(help: .words("The source's name."))
        var name: String

        @Option(name: .customLong("location"), help: .words("A new URL or path.", valueName: "url-or-path"))
        var location: String?

        @OptionGroup var settings: Settings

        func run() async throws {
            try await store.withDatabase { database in
                try await CLIFailure.translating {
                    guard var definition = try await database.sources().first(where: { $0.definition.name.rawValue == name })?.definition else {
                        throw StoreError(.notFound, saying: "there is no source called {name}; `tvguide sources list` shows them", ["name": name])
                    }
                    if let location { definition.location = location }
                    try settings.apply(to: &definition)
                    try await database.updateSource(definition)
                }
                Output.line(Output.words("Changed {name}.", ["name": name]))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Remove a source and its listings."))

        @OptionGroup var store: StoreOptions

        @Argument(help: .words("The source's name."))
        var name: String

        func run() async throws {
            let removed = try await store.withDatabase { try await $0.removeSource(SourceName(name)) }
            let words = Output.words
            Output.line(words.plural("Removed {name} and its {count} programme.", "Removed {name} and its {count} programmes.", count: removed, ["name": name]))
        }
    }

    struct Channels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: Output.words("List the channels a source offers; choose which to keep and map them to guide channels."),
            discussion: Output.words("Channels appear here after the source's first refresh. A mapping survives the provider renaming a channel's id as long as its name stays the same. Channels the matcher was not sure of are shown with its best suggestion; a mapping chosen here is never replaced by the matcher (tvguide channels match).")
        )

        @OptionGroup var store: StoreOptions

        @Argument(help: .words("The source's name."))
        var name: String

        @Option(help: .words("Keep these channels (comma-separated source ids).", valueName: "ids"))
        var keep: String?

        @Option(help: .words("Drop these channels (comma-separated source ids).", valueName: "ids"))
        var drop: String?

        @Option(help: .words("Send a source channel's listings to a guide channel: SOURCE-ID=GUIDE-ID (repeatable; GUIDE-ID empty to undo).", valueName: "mapping"))
        var map: [String] = []

        @Flag(help: .words("Print JSON."))
        var json = false

        func run() async throws {
            try await store.withDatabase { database in
                let source = SourceName(name)
                try await CLIFailure.translating {
                    var channels = Dictionary(uniqueKeysWithValues: try await database.sourceChannels(of: source).map { ($0.id, $0) })
                    var changed: [ChannelID: SourceChannel] = [:]
                    func named(_ id: String) -> SourceChannel {
                        changed[ChannelID(id)] ?? channels[ChannelID(id)] ?? SourceChannel(id: ChannelID(id), name: id, keep: true)
                    }
                    for id in Self.list(keep) { var channel = named(id); channel.keep = true; changed[channel.id] = channel }
                    for id in Self.list(drop) { var channel = named(id); channel.keep = false; changed[channel.id] = channel }
                    for mapping in map {
                        let parts = mapping.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                        guard parts.count == 2, !parts[0].isEmpty else {
                            throw CLIFailure(Output.words("--map takes SOURCE-ID=GUIDE-ID, not {mapping}", ["mapping": mapping]))
                        }
                        var channel = named(parts[0])
                        channel.mappedTo = parts[1].isEmpty ? nil : ChannelID(parts[1])
                        // A person's choice: the matcher never replaces it.
                        channel.chosenBy = .person
                        changed[channel.id] = channel
                    }
                    if !changed.isEmpty {
                        try await database.chooseSourceChannels(Array(changed.values), of: source)
                        for (id, channel) in changed { channels[id] = channel }
                    }
                    let sorted = channels.values.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
                    if json {
                        try Output.json(sorted.map(SourceChannelDocument.init))
                        return
                    }
                    guard !sorted.isEmpty else {
                        Output.line(Output.words("{name} has offered no channels yet: run tvguide refresh {name} first.", ["name": name]))
                        return
                    }
                    let words = Output.words
                    for channel in sorted {
                        // "keep" and "drop" are what --keep and --drop take, so they stay as typed.
                        var line = "\(channel.keep ? "keep" : "drop")  \(channel.id)  \(channel.name)"
                        if let mapped = channel.mappedTo {
                            line += "  -> \(mapped)" + (channel.chosenBy == .matcher ? " " + words("(matched)") : "")
                        } else if channel.awaitsReview, let suggestion = channel.candidates.first {
                            line += "  " + words("(perhaps guide channel {guide}, {percent}% sure: --map {id}={guide})",
                                                 ["guide": suggestion.channel.rawValue, "id": channel.id.rawValue, "percent": "\(Int(suggestion.confidence * 100))"])
                        }
                        Output.line(line)
                    }
                }
            }
        }

        static func list(_ text: String?) -> [String] {
            (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }
}

extension SourceFormat: ExpressibleByArgument {}

extension SourceStatus {
    /// How its last refresh went and, when it failed or never finished, when it is tried again: the terminal's line.
    func refreshLine(_ words: Localizer, _ clock: ViewerClock) -> String {
        lastRefresh(words, clock: clock) + (hasFailed() ? "; " + words("next try {when}", ["when": words.moment(nextDue, clock)]) : "")
    }
}

struct SourceChannelDocument: Encodable {
    var id: String
    var name: String
    var keep: Bool
    var mappedTo: String?
    /// "person" or "matcher": who chose `mappedTo`.
    var chosenBy: String?
    /// The matcher's best suggestion for a channel that waits for a person.
    var suggestion: String?
    var lastSeen: Date?

    init(_ channel: SourceChannel) {
        id = channel.id.rawValue
        name = channel.name
        keep = channel.keep
        mappedTo = channel.mappedTo?.rawValue
        chosenBy = channel.chosenBy?.rawValue
        suggestion = channel.awaitsReview ? channel.candidates.first?.channel.rawValue : nil
        lastSeen = channel.lastSeen
    }
}
