import ArgumentParser
import Foundation
import GuideCore
import TrackerExports
import TVMaze

/// `tvguide history import FILE...` and `tvguide history export`.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: Output.words("Bring a tracker's watch history in (TV Time, Trakt, SeriesGuide, IMDb, a CSV), or write tvguide's out."),
        subcommands: [Import.self, Export.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: Output.words("Import a tracker's export: a zip as it came, or its files. Shows are matched on TVmaze, episodes by season and number."),
            discussion: Output.words("Reads TV Time's export (tvtime-series-episodes.csv with tvtime-series.csv, tvtime-series.json, tracking-prod-records-v2.csv), Trakt's (watched-history.json, watched-shows.json, lists-watchlist.json), SeriesGuide's backup, an IMDb list (its series are followed) and a CSV of show, season, episode, watched_at (what tvguide history export writes). --preview says what would be imported and changes nothing. Importing the same file again changes nothing."))

        @OptionGroup var options: SeriesOptions
        @Argument(help: .words("The export: a zip, or its files.")) var files: [String]
        @Flag(help: .words("Say what would be imported; change nothing.")) var preview = false
        @Flag(name: .customLong("no-follow"), help: .words("Mark episodes only; follow none of the tracker's shows.")) var noFollow = false
        @Option(help: .words("A show TVmaze did not find, by hand: its title as the file writes it, = and a TVmaze id.",
                                   valueName: "title=id")) var choose: [String] = []

        func run() async throws {
            var choices: [String: Int] = [:]
            for text in choose {
                guard let choice = HistoryImport.choice(text) else {
                    throw ValidationError(Output.words("--choose {value}: write the title, = and a TVmaze id, like --choose \"The Office=526\"", ["value": text]))
                }
                choices[choice.title] = choice.id
            }
            var read: [(name: String, bytes: [UInt8])] = []
            for path in files {
                let url = URL(fileURLWithPath: path)
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
                guard size <= TrackerFiles.largestFile else {
                    throw CLIFailure(Output.words("{file} is larger than {size}", ["file": path, "size": Output.words.megabytes(Int64(TrackerFiles.largestFile))]))
                }
                do {
                    read.append((url.lastPathComponent, [UInt8](try Data(contentsOf: url))))
                } catch {
                    throw CLIFailure(Output.words("cannot read {file}: {error}", ["file": path, "error": error.localizedDescription]))
                }
            }
            let tracked = try CLIFailure.translating { try TrackerFiles.read(read) }
            try await options.withOpened { database, client, tracker in
                let profile = try await options.chosenProfile(in: database)
                let importer = HistoryImport(client: client, history: WatchHistory(store: database, tracker: tracker, now: tracker.now))
                let plan = try await CLIFailure.translating { try await importer.plan(tracked, choices: choices) }
                let words = Output.words
                let episodes = { (count: Int) in words.plural("{count} episode", "{count} episodes", count: count) }
                Output.line(words("{kind} export: {shows}, {episodes}.", [
                    "kind": tracked.kind.rawValue, "shows": words.plural("{count} show", "{count} shows", count: tracked.shows.count),
                    "episodes": words.plural("{count} watched episode", "{count} watched episodes", count: tracked.episodeCount)]))
                for match in plan.matched {
                    // How it was matched ("imdb", "title") is the name the history page and --json use.
                    Output.line("  " + words("{title} → {show} (TVmaze {id}, by {how}): {episodes}", [
                        "title": match.tracked.title, "show": match.show.name, "id": String(match.show.id), "how": "\(match.how)",
                        "episodes": episodes(match.marks.count)])
                        + (match.unmatched.isEmpty ? "" : ", " + words.plural("{count} not on TVmaze ({episodes})", "{count} not on TVmaze ({episodes})",
                            count: match.unmatched.count,
                            ["episodes": match.unmatched.prefix(5).map { Episode.code(season: $0.season, number: $0.number) }.joined(separator: ", ")])))
                }
                for show in plan.unmatched {
                    Output.line("  " + words("{title}: not found on TVmaze ({episodes}); --choose \"{title}=ID\" names it",
                                             ["title": show.title, "episodes": episodes(show.episodes.count)]))
                }
                for problem in plan.problems { Output.line("  " + words("left out: {problem}", ["problem": problem.worded(words)])) }
                guard !preview else {
                    Output.line(words.plural("Preview: nothing changed. {count} episode would be marked watched for {profile}.",
                                             "Preview: nothing changed. {count} episodes would be marked watched for {profile}.", count: plan.episodes,
                                             ["profile": profile.name]))
                    return
                }
                let report = try await CLIFailure.translating { try await importer.apply(plan, to: profile.id, follow: !noFollow) }
                Output.line(words("{profile}: {marked} marked watched, {followed} followed.", [
                    "profile": profile.name, "marked": episodes(report.marked),
                    "followed": words.plural("{count} show", "{count} shows", count: report.followed)]))
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Write the profile's followed shows and watched episodes, as JSON or CSV."))

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case json, csv
        }

        @OptionGroup var options: SeriesOptions
        @Option(help: .words("json or csv (what tvguide history import reads back).")) var format: Format = .json

        func run() async throws {
            try await options.withOpened { database, _, _ in
                let profile = try await options.chosenProfile(in: database)
                let document = try await HistoryExport(store: database).document(of: profile.id, at: GuideClock.system().now())
                switch format {
                case .json: try Output.json(document)
                case .csv: FileHandle.standardOutput.write(Data(HistoryExport.csv(document).utf8))
                }
            }
        }
    }
}
