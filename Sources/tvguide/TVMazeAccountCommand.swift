import ArgumentParser
import Foundation
import GuideCore
import TVMaze

/// `tvguide tvmaze connect|sync|status|disconnect`: a profile's TVmaze account, synced both ways.
struct TVMazeAccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tvmaze", abstract: Output.words("Sync a profile's watched episodes and followed shows with its TVmaze account, both ways."),
        discussion: Output.words("The API key is on your TVmaze dashboard (API section). With Premium every mark and follow is synced; without it, the marks of the shows the profile follows (TVmaze takes unmarks and follows from Premium accounts only). Where both sides changed an episode since the last sync, the later change wins. serve syncs every account every 6 hours."),
        subcommands: [Connect.self, Sync.self, Status.self, Disconnect.self])

    struct Connect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Check a TVmaze username and API key, and keep them for the profile."))
        @OptionGroup var options: SeriesOptions
        @Option(help: .words("The TVmaze username.", valueName: "name")) var user: String
        @Option(name: .customLong("key-file"), help: .words("A file holding the API key (standard input when left out).", valueName: "path"))
        var keyFile: String?

        func run() async throws {
            let text = try keyFile.map { try String(contentsOfFile: $0, encoding: .utf8) } ?? (readLine(strippingNewline: true) ?? "")
            let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !key.isEmpty, key.count <= 200, !user.isEmpty, user.count <= 200 else {
                throw CLIFailure(Output.words("Give the TVmaze username (--user) and its API key (--key-file, or on standard input)"))
            }
            try await options.withOpened { database, client, tracker in
                let profile = try await options.chosenProfile(in: database)
                let sync = TVMazeSync(history: WatchHistory(store: database, tracker: tracker, now: tracker.now), client: client, accounts: database)
                let premium = try await CLIFailure.translating(context: "TVmaze") {
                    try await sync.connect(.init(username: user, apiKey: key), profile: profile.id)
                }
                Output.line(premium > 0
                    ? Output.words("{profile}: TVmaze account {user} kept (Premium). tvguide tvmaze sync syncs now.", ["profile": profile.name, "user": user])
                    : Output.words("{profile}: TVmaze account {user} kept (no Premium: the marks of followed shows are synced). tvguide tvmaze sync syncs now.",
                                   ["profile": profile.name, "user": user]))
            }
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Sync the profile's TVmaze account now."))
        @OptionGroup var options: SeriesOptions

        func run() async throws {
            try await options.withOpened { database, client, tracker in
                let profile = try await options.chosenProfile(in: database)
                let sync = TVMazeSync(history: WatchHistory(store: database, tracker: tracker, now: tracker.now), client: client, accounts: database)
                guard let report = try await CLIFailure.translating(context: "TVmaze", { try await sync.sync(profile.id) }) else {
                    throw CLIFailure(Output.words("{profile} has no TVmaze account: tvguide tvmaze connect --user NAME", ["profile": profile.name]))
                }
                Output.line("\(profile.name): \(report.sentence.worded(Output.words)).")
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Say which TVmaze account the profile syncs with, and how the last sync went."))
        @OptionGroup var options: SeriesOptions

        func run() async throws {
            try await options.withOpened { database, _, _ in
                let profile = try await options.chosenProfile(in: database)
                guard let account = try await database.tvmazeAccount(of: profile.id) else {
                    Output.line(Output.words("{profile}: no TVmaze account.", ["profile": profile.name]))
                    return
                }
                let words = Output.words
                let last = account.syncedAt.map { words("last synced {when}", ["when": words.moment($0, Output.viewerClock())]) } ?? words("not synced yet")
                let values: KeyValuePairs = ["profile": profile.name, "user": account.username, "last": last]
                Output.line((account.premium > 0 ? words("{profile}: TVmaze account {user} (Premium), {last}", values)
                                                 : words("{profile}: TVmaze account {user}, {last}", values))
                            + (account.outcome.map { account.succeeded == true ? "; " + words("last sync: {outcome}", ["outcome": TVMazeSync.Report.outcome($0).worded(words)])
                                                                               : "; " + words("last sync FAILED: {outcome}", ["outcome": TVMazeSync.Report.outcome($0).worded(words)]) } ?? "") + ".")
            }
        }
    }

    struct Disconnect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: Output.words("Forget the profile's TVmaze account (nothing is unmarked on either side)."))
        @OptionGroup var options: SeriesOptions

        func run() async throws {
            try await options.withOpened { database, _, _ in
                let profile = try await options.chosenProfile(in: database)
                try await database.setTVMazeAccount(nil, of: profile.id)
                Output.line(Output.words("{profile}: TVmaze account forgotten.", ["profile": profile.name]))
            }
        }
    }
}
