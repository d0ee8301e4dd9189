import ArgumentParser
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideServer
import GuideStore
import GuideWebFormats
import TVMaze

/// What the series commands share: the database, TVmaze's address, and whose shows.
struct SeriesOptions: ParsableArguments {
    @OptionGroup var store: StoreOptions
    @OptionGroup var tvmaze: TVMazeOptions

    @Option(help: .words("Whose followed shows (default: the only profile, else the first admin).", valueName: "name"))
    var profile: String?

    /// Runs `body` with the database open, a TVmaze client caching in it, and the tracker.
    func withOpened<T>(_ body: (any GuideDatabase, TVMazeClient, SeriesTracker) async throws -> T) async throws -> T {
        let base = try await tvmaze.base(store)
        return try await store.withDatabase { database in
            try await withHTTPTransport { transport in
                let clock = GuideClock.system()
                let client = TVMazeClient(base: base, transport: transport, limiter: RateLimiter(clock: clock.waits), cache: database,
                                          now: clock.now, clock: clock.waits)
                return try await body(database, client, SeriesTracker(client: client, store: database, now: clock.now))
            }
        }
    }

    func chosenProfile(in database: any GuideDatabase) async throws -> Profile {
        let profiles = try await database.profiles()
        if let profile {
            guard let found = profiles.first(where: { $0.name.caseInsensitiveCompare(profile) == .orderedSame }) else {
                throw CLIFailure(Output.words("There is no profile called {name}; profiles: {names}.",
                                              ["name": profile, "names": profiles.map(\.name).joined(separator: ", ")]))
            }
            return found
        }
        guard let found = profiles.count == 1 ? profiles[0] : profiles.first(where: \.isAdmin) else {
            throw CLIFailure(Output.words("No profiles yet: run tvguide serve, open /setup and create the admin; then follow shows here or on the web."))
        }
        return found
    }

    /// The viewer's zone: the profile's, else this machine's.
    func zone(of profile: Profile) -> TimeZone {
        profile.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current
    }
}

/// `tvguide shows search QUERY`.
struct ShowsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "shows", abstract: Output.words("Find shows on TVmaze."),
                                                    subcommands: [Search.self])

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Shows whose name matches, best first, with their TVmaze ids."))

        @OptionGroup var options: SeriesOptions
        @Argument(help: .words("Words of the show's name.")) var words: [String]
        @Flag(help: .words("Print JSON.")) var json = false

        func run() async throws {
            try await options.withOpened { _, client, _ in
                let results = try await CLIFailure.translating { try await client.searchShows(words.joined(separator: " ")) }
                if json {
                    try Output.json(results.map(ShowDocument.init))
                    return
                }
                if results.isEmpty { Output.line(Output.words("TVmaze knows no show called {name}.", ["name": words.joined(separator: " ")])) }
                for show in results {
                    let details = [show.premiered.map { String($0.year) }, show.channel?.name, show.status].compactMap { $0 }.joined(separator: ", ")
                    Output.line("\(show.id)\t\(show.name)" + (details.isEmpty ? "" : " (\(details))"))
                }
            }
        }
    }
}

/// `tvguide follow SHOW`.
struct FollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "follow",
                                                    abstract: Output.words("Follow a show (a TVmaze id, or a name: TVmaze's best match, as tvguide shows search lists first)."))

    @OptionGroup var options: SeriesOptions
    @Argument(help: .words("A TVmaze show id or the show's name.")) var show: [String]

    func run() async throws {
        try await options.withOpened { database, client, tracker in
            let profile = try await options.chosenProfile(in: database)
            let text = show.joined(separator: " ")
            let followed = try await CLIFailure.translating(context: text) {
                let id: Int
                if let number = Bounded.integer(text, in: TVMazeClient.idRange) {
                    id = number
                } else if let match = try await client.searchShows(text).first {
                    id = match.id
                } else {
                    throw CLIFailure(Output.words("TVmaze knows no show called {name}; try tvguide shows search", ["name": text]))
                }
                return try await tracker.follow(show: id, by: profile.id)
            }
            Output.line(followed.channel.map {
                Output.words("{profile} follows {show} (TVmaze {id}, {channel}).", ["profile": profile.name, "show": followed.name, "id": String(followed.id),
                                                                                    "channel": $0.name])
            } ?? Output.words("{profile} follows {show} (TVmaze {id}).", ["profile": profile.name, "show": followed.name, "id": String(followed.id)]))
        }
    }
}

/// `tvguide unfollow SHOW`.
struct UnfollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unfollow", abstract: Output.words("Stop following a show (its id or name)."))

    @OptionGroup var options: SeriesOptions
    @Argument(help: .words("A followed show's TVmaze id or name.")) var show: [String]

    func run() async throws {
        try await options.withOpened { database, _, tracker in
            let profile = try await options.chosenProfile(in: database)
            let text = show.joined(separator: " ")
            let following = try await database.following(profile.id)
            guard let match = following.first(where: { String($0.show.id) == text || SearchText.fold($0.show.name) == SearchText.fold(text) }) else {
                throw CLIFailure(Output.words("{profile} does not follow {show}; following: {shows}.", [
                    "profile": profile.name, "show": text, "shows": following.map(\.show.name).joined(separator: ", ")]))
            }
            try await tracker.unfollow(show: match.show.id, by: profile.id)
            Output.line(Output.words("{profile} no longer follows {show}.", ["profile": profile.name, "show": match.show.name]))
        }
    }
}

/// `tvguide upcoming [--json]`.
struct UpcomingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upcoming",
        abstract: Output.words("Each followed show's next episode and when it airs in the profile's zone (with its shift)."),
        discussion: Output.words("Reads what tvguide keeps; the server brings followed shows up to date every 6 hours, --refresh does it now."))

    @OptionGroup var options: SeriesOptions
    @Flag(help: .words("Print JSON.")) var json = false
    @Flag(help: .words("Ask TVmaze which followed shows changed first.")) var refresh = false
    @Option(help: .words("As if it were this instant (ISO 8601).", valueName: "time")) var at: String?

    func validate() throws {
        if let at, CivilTime.parseISO8601(at) == nil {
            throw ValidationError(Output.words("--at {value} is not a time: use ISO 8601, like 2026-02-15T20:00:00Z", ["value": at]))
        }
    }

    func run() async throws {
        try await options.withOpened { database, _, tracker in
            let profile = try await options.chosenProfile(in: database)
            if refresh { _ = try await CLIFailure.translating { try await tracker.refresh() } }
            let zone = options.zone(of: profile)
            let now = at.flatMap(CivilTime.parseISO8601) ?? GuideClock.system().now()
            let settings = try await database.seriesSettings(of: profile.id)
            let list = try await EpisodeSchedule(store: database, profile: profile.id, zone: zone, settings: settings).upcoming(at: now)
            if json {
                try Output.json(list.map { UpcomingDocument($0, zone: zone) })
                return
            }
            let format = SeriesFormat(clock: Output.viewerClock(zone), words: Output.words)
            let words = format.words
            if list.isEmpty { Output.line(words("{profile} follows no shows yet: tvguide follow SHOW.", ["profile": profile.name])) }
            for entry in list {
                let show = entry.followed.show.name
                switch entry.state {
                case .next(let airing):
                    Output.line("\(format.airs(airing.time))  \(show) \(airing.episode.code)" + (airing.episode.name.map { " \($0)" } ?? "")
                                + (airing.show.channel.map { "  [\($0.name)]" } ?? ""))
                case .noDate: Output.line(words("no date announced") + "  " + show)
                case .ended: Output.line(words("ended") + "  " + show)
                }
            }
        }
    }

}

/// `tvguide episode SHOW SxE`.
struct EpisodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "episode", abstract: Output.words("One episode: when it airs and what it is about."))

    @OptionGroup var options: SeriesOptions
    @Argument(help: .words("A TVmaze show id or the show's name.")) var show: String
    @Argument(help: .words("Season and episode, like S1E3 or 1x03.")) var number: String

    func run() async throws {
        guard let (season, episodeNumber) = Self.parse(number) else {
            throw ValidationError(Output.words("{number} is not an episode number: use S1E3 or 1x03", ["number": number]))
        }
        try await options.withOpened { database, client, _ in
            let zone = (try? await options.chosenProfile(in: database)).map(options.zone) ?? .current
            try await CLIFailure.translating(context: show) {
                let found: Show? = if let id = Bounded.integer(show, in: TVMazeClient.idRange) { try await client.show(id) } else { try await client.searchShows(show).first }
                guard let found else { throw CLIFailure(Output.words("TVmaze knows no show called {name}.", ["name": show])) }
                guard let episode = try await client.episode(ofShow: found.id, season: season, number: episodeNumber) else {
                    throw CLIFailure(Output.words("{show} has no {number} on TVmaze", ["show": found.name, "number": number]))
                }
                let time = episode.airTime(zone: found.timeZone)
                Output.line("\(found.name) \(episode.code)" + (episode.name.map { " \($0)" } ?? ""))
                let format = SeriesFormat(clock: Output.viewerClock(zone), words: Output.words)
                Output.line([format.airs(time), found.channel?.name, episode.runtime.map(format.minutes)].compactMap { $0 }.joined(separator: ", "))
                for paragraph in HTMLText.paragraphs(episode.summary) { Output.line("\n" + paragraph) }
                if let url = episode.url { Output.line("\n" + Output.words("{address} (data: TVmaze, CC BY-SA)", ["address": url])) }
            }
        }
    }

    /// `S1E3`, `s01e03`, `1x03`.
    static func parse(_ text: String) -> (Int, Int)? {
        let lower = text.lowercased()
        let parts: [Substring] = lower.hasPrefix("s") ? lower.dropFirst().split(separator: "e") : lower.split(separator: "x")
        guard parts.count == 2, let season = Bounded.integer(parts[0], in: Episode.numberRange),
              let number = Bounded.integer(parts[1], in: 1...XMLTVNSNumber.numberRange.upperBound) else { return nil }
        return (season, number)
    }
}

/// `tvguide person NAME`.
struct PersonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "person", abstract: Output.words("A person on TVmaze and the shows they are in."))

    @OptionGroup var options: SeriesOptions
    @Argument(help: .words("The person's name, or their TVmaze id.")) var name: [String]

    func run() async throws {
        try await options.withOpened { _, client, _ in
            let text = name.joined(separator: " ")
            try await CLIFailure.translating(context: text) {
                let person: Person? = if let id = Bounded.integer(text, in: TVMazeClient.idRange) { try await client.person(id) } else { try await client.searchPeople(text).first }
                let words = Output.words
                guard let person else { throw CLIFailure(words("TVmaze knows nobody called {name}", ["name": text])) }
                Output.line(person.name + ([person.birthday.map { words("born {date}", ["date": Output.viewerClock().civil($0)]) }, person.country].compactMap { $0 }.map { ", \($0)" }.joined()))
                for credit in try await client.castCredits(ofPerson: person.id, withCharacters: true) {
                    guard let show = credit.show, let showName = show.name else { continue }
                    Output.line("  \(showName)" + (show.premiered.map { " (\($0.year))" } ?? "")
                                + (credit.character.map { " " + words("as {character}", ["character": $0]) } ?? ""))
                }
                if let url = person.url { Output.line(words("{address} (data: TVmaze, CC BY-SA)", ["address": url])) }
            }
        }
    }
}

/// A show in `shows search --json`.
struct ShowDocument: Encodable {
    var id: Int
    var name: String
    var premiered: String?
    var channel: String?
    var status: String?
    var url: String?

    init(_ show: Show) {
        id = show.id
        name = show.name
        premiered = show.premiered?.description
        channel = show.channel?.name
        status = show.status
        url = show.url
    }
}

/// A followed show in `upcoming --json`: `state` is next, no-date or ended; times in ISO 8601 UTC.
struct UpcomingDocument: Encodable {
    var showID: Int
    var show: String
    var state: String
    var episodeID: Int?
    var episode: String?
    var name: String?
    var airs: String?
    var day: String?
    var allDay: Bool?
    var channel: String?
    var reminders: Bool

    init(_ upcoming: Upcoming, zone: TimeZone) {
        showID = upcoming.followed.show.id
        show = upcoming.followed.show.name
        channel = upcoming.followed.show.channel?.name
        reminders = upcoming.followed.reminders
        switch upcoming.state {
        case .next(let airing):
            state = "next"
            episodeID = airing.episode.id
            episode = airing.episode.code
            name = airing.episode.name
            airs = airing.time.instant.map(CivilTime.iso8601)
            day = airing.time.day(in: zone)?.description
            allDay = airing.time.instant == nil
        case .noDate: state = "no-date"
        case .ended: state = "ended"
        }
    }
}
