import ArgumentParser
import Foundation
import GuideCore
import GuideServer
import GuideStore
import TVMaze

/// `tvguide watched SHOW [S02E05] [--season N | --up-to S02E05 | --all] [--not] [--at TIME]`.
struct WatchedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watched",
        abstract: Output.words("Mark an episode of a show watched (or, with --not, not watched): one episode, a season, everything up to an episode, or every aired one."),
        discussion: Output.words("SHOW is a TVmaze id or a show's name (a followed show's, else TVmaze's best match). Episodes are written S02E05 or 2x5. Seasons, --up-to and --all take the episodes that have aired; specials are marked one at a time. Marking what is marked changes nothing."))

    @OptionGroup var options: SeriesOptions
    @Argument(help: .words("The show: a TVmaze id or its name, then the episode (S02E05) when marking one.")) var words: [String]
    @Option(help: .words("Every aired episode of this season.", valueName: "number")) var season: Int?
    @Option(name: .customLong("up-to"), help: .words("Every aired episode up to this one (S02E05).", valueName: "episode")) var upTo: String?
    @Flag(help: .words("Every aired episode.")) var all = false
    @Flag(name: .customLong("not"), help: .words("Unmark instead.")) var unmark = false
    @Option(help: .words("When it was watched (ISO 8601; now when left out).", valueName: "time")) var at: String?

    func validate() throws {
        if let at {
            guard let instant = CivilTime.parseISO8601(at), WatchedEpisode.timeRange.contains(instant.timeIntervalSince1970) else {
                throw ValidationError(Output.words("--at {value} is not a time from 1928 to 2100: use ISO 8601, like 2026-11-27T20:00:00Z", ["value": at]))
            }
        }
        if let season, !Episode.numberRange.contains(season) { throw ValidationError.option("--season", .wholeNumber(Episode.numberRange, got: String(season))) }
        if let upTo, Self.episodeNumber(upTo) == nil { throw ValidationError(Output.words("--up-to {value} is not an episode: write S02E05 or 2x5", ["value": upTo])) }
        let chosen = [season != nil, upTo != nil, all, words.last.flatMap(Self.episodeNumber) != nil].filter { $0 }.count
        if chosen != 1 { throw ValidationError(Output.words("Name one of: an episode (S02E05), --season, --up-to or --all")) }
    }

    func run() async throws {
        try await options.withOpened { database, client, tracker in
            let profile = try await options.chosenProfile(in: database)
            let history = WatchHistory(store: database, tracker: tracker, now: tracker.now)
            let numbered = words.last.flatMap(Self.episodeNumber)
            let showWords = numbered == nil ? words : Array(words.dropLast())
            let show = try await Self.show(showWords.joined(separator: " "), of: profile, in: database, client: client, history: history)
            let episodes = try await database.episodes(ofShow: show.id)
            func episode(_ number: (season: Int, number: Int)) throws -> Int {
                guard let found = episodes.first(where: { $0.season == number.season && $0.number == number.number }) else {
                    throw CLIFailure(Output.words("{show} has no {number} on TVmaze", ["show": show.name, "number": Episode.code(season: number.season, number: number.number)]))
                }
                return found.id
            }
            let scope: WatchScope
            if let numbered { scope = .episode(try episode(numbered)) }
            else if let season { scope = .season(season) }
            else if let upTo, let number = Self.episodeNumber(upTo) { scope = .upTo(try episode(number)) }
            else { scope = .allAired }
            let changed = try await CLIFailure.translating(context: show.name) {
                try await history.mark(scope, show: show.id, watched: !unmark, by: profile.id, at: at.flatMap(CivilTime.parseISO8601))
            }
            let progress = try await history.progress(through: show.id, of: profile.id)
            let format = SeriesFormat(clock: Output.viewerClock(), words: Output.words)
            let words = format.words
            let values: KeyValuePairs = ["profile": profile.name, "show": show.name]
            let marked = unmark
                ? words.plural("{profile}: {count} episode of {show} marked not watched", "{profile}: {count} episodes of {show} marked not watched",
                               count: changed, values)
                : words.plural("{profile}: {count} episode of {show} marked watched", "{profile}: {count} episodes of {show} marked watched",
                               count: changed, values)
            Output.line(marked + (progress.map { "; " + format.progress($0) + ($0.next.map { ", " + words("up next {episode}", ["episode": $0.code]) } ?? "") } ?? "")
                        + ".")
        }
    }

    /// S02E05, s2e5 or 2x5, as (season, number): as `tvguide episode` reads it.
    static func episodeNumber(_ text: String) -> (season: Int, number: Int)? {
        EpisodeCommand.parse(text).map { (season: $0.0, number: $0.1) }
    }

    /// The show `text` names: a TVmaze id, a followed show's name, else TVmaze's best match; kept with its episodes.
    static func show(_ text: String, of profile: Profile, in database: any GuideDatabase, client: TVMazeClient,
                     history: WatchHistory) async throws -> Show {
        guard !text.isEmpty else { throw CLIFailure(Output.words("Name the show: a TVmaze id or its name")) }
        if let followed = try await database.following(profile.id).first(where: { SearchText.fold($0.show.name) == SearchText.fold(text) }) {
            return followed.show
        }
        return try await CLIFailure.translating(context: text) {
            if let id = Bounded.integer(text, in: TVMazeClient.idRange) { return try await history.kept(id) }
            guard let match = try await client.searchShows(text).first else {
                throw CLIFailure(Output.words("TVmaze knows no show called {name}; try tvguide shows search", ["name": text]))
            }
            return try await history.kept(match.id)
        }
    }
}

/// `tvguide progress [--json]`.
struct ProgressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "progress",
        abstract: Output.words("How far the profile is through each show it follows, the ones under way first: watched of aired, what is next."))

    @OptionGroup var options: SeriesOptions
    @Flag(help: .words("Print JSON.")) var json = false

    func run() async throws {
        try await options.withOpened { database, _, tracker in
            let profile = try await options.chosenProfile(in: database)
            let shows = try await WatchHistory(store: database, tracker: tracker, now: tracker.now).progress(of: profile.id)
            if json {
                try Output.json(shows.map(ShowProgressDocument.init))
                return
            }
            let words = Output.words
            if shows.isEmpty { Output.line(words("{profile} follows no shows yet: tvguide follow SHOW.", ["profile": profile.name])) }
            for progress in shows {
                let next = progress.next.map { words("next {episode}", ["episode": $0.code]) + ($0.name.map { " \($0)" } ?? "") } ?? words("up to date")
                Output.line("\(progress.show.name)\t\(progress.watched)/\(progress.aired)\t\(next)")
            }
        }
    }
}
