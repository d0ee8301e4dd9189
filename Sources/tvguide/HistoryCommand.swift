import ArgumentParser
import Foundation
import GuideCore
import TrackerExports
import TVMaze

/// `tvguide history import FILE...` and `tvguide history export`.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "Bring a tracker's watch history in (TV Time, Trakt, SeriesGuide, IMDb, a CSV), or write tvguide's out.",
        subcommands: [Import.self, Export.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a tracker's export: a zip as it came, or its files. Shows are matched on TVmaze, episodes by season and number.",
            discussion: """
                Reads TV Time's export (tvtime-series-episodes.csv with tvtime-series.csv, tvtime-series.json, \
                tracking-prod-records-v2.csv), Trakt's (watched-history.json, watched-shows.json, lists-watchlist.json), \
                SeriesGuide's backup, an IMDb list (its series are followed) and a CSV of show, season, episode, watched_at \
                (what tvguide history export writes). --preview says what would be imported and changes nothing. \
                Importing the same file again changes nothing.
                """)

        @OptionGroup var options: SeriesOptions
        @Argument(help: "The export: a zip, or its files.") var files: [String]
        @Flag(help: "Say what would be imported; change nothing.") var preview = false
        @Flag(name: .customLong("no-follow"), help: "Mark episodes only; follow none of the tracker's shows.") var noFollow = false
        @Option(help: ArgumentHelp("A show TVmaze did not find, by hand: its title as the file writes it, = and a TVmaze id.",
                                   valueName: "title=id")) var choose: [String] = []

        func run() async throws {
            var choices: [String: Int] = [:]
            for text in choose {
                guard let choice = HistoryImport.choice(text) else {
                    throw ValidationError("--choose \(text): write the title, = and a TVmaze id, like --choose \"The Office=526\"")
                }
                choices[choice.title] = choice.id
            }
            var read: [(name: String, bytes: [UInt8])] = []
            for path in files {
                let url = URL(fileURLWithPath: path)
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
                guard size <= TrackerFiles.largestZip else { throw CLIFailure("\(path) is larger than \(TrackerFiles.largestZip >> 20) MB") }
                do {
                    read.append((url.lastPathComponent, [UInt8](try Data(contentsOf: url))))
                } catch {
                    throw CLIFailure("cannot read \(path): \(error.localizedDescription)")
                }
            }
            let tracked = try CLIFailure.translating { try TrackerFiles.read(read) }
            try await options.withOpened { database, client, tracker in
                let profile = try await options.chosenProfile(in: database)
                let importer = HistoryImport(client: client, history: WatchHistory(store: database, tracker: tracker))
                let plan = try await CLIFailure.translating { try await importer.plan(tracked, choices: choices) }
                Output.line("\(tracked.kind.rawValue) export: \(tracked.shows.count) shows, \(tracked.episodeCount) watched episodes.")
                for match in plan.matched {
                    Output.line("  \(match.tracked.title) → \(match.show.name) (TVmaze \(match.show.id), by \(match.how)): \(match.marks.count) episodes"
                                + (match.unmatched.isEmpty ? "" : ", \(match.unmatched.count) not on TVmaze ("
                                   + match.unmatched.prefix(5).map { Episode.code(season: $0.season, number: $0.number) }.joined(separator: ", ") + ")"))
                }
                for show in plan.unmatched {
                    Output.line("  \(show.title): not found on TVmaze (\(show.episodes.count) episodes); --choose \"\(show.title)=ID\" names it")
                }
                for problem in plan.problems { Output.line("  left out: \(problem)") }
                guard !preview else {
                    Output.line("Preview: nothing changed. \(plan.episodes) episodes would be marked watched for \(profile.name).")
                    return
                }
                let report = try await CLIFailure.translating { try await importer.apply(plan, to: profile.id, follow: !noFollow) }
                Output.line("\(profile.name): \(report.marked) episodes marked watched, \(report.followed) shows followed.")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the profile's followed shows and watched episodes, as JSON or CSV.")

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case json, csv
        }

        @OptionGroup var options: SeriesOptions
        @Option(help: "json or csv (what tvguide history import reads back).") var format: Format = .json

        func run() async throws {
            try await options.withOpened { database, _, _ in
                let profile = try await options.chosenProfile(in: database)
                let document = try await HistoryExport(store: database).document(of: profile.id, at: Date())
                switch format {
                case .json: try Output.json(document)
                case .csv: FileHandle.standardOutput.write(Data(HistoryExport.csv(document).utf8))
                }
            }
        }
    }
}
