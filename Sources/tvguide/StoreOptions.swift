import ArgumentParser
import Foundation
import GuideStore

/// `--database`, shared by every subcommand; falls back to `TVGUIDE_DATABASE`, then a per-user data folder.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The guide database file (default: $TVGUIDE_DATABASE, else ~/.local/share/tvguide/guide.sqlite).",
                                           valueName: "path"))
    var database: String?

    var path: String {
        if let database { return database }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["TVGUIDE_DATABASE"], !path.isEmpty { return path }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share").path
        return dataHome + "/tvguide/guide.sqlite"
    }

    func open() throws -> SQLiteListingStore {
        try CLIFailure.translating { try SQLiteListingStore(path: path) }
    }
}

/// `--tvmaze-url`, for the commands that ask TVmaze; falls back to `TVGUIDE_TVMAZE_URL`, then TVmaze itself.
struct TVMazeOptions: ParsableArguments {
    @Option(name: .customLong("tvmaze-url"),
            help: ArgumentHelp("TVmaze's API address (default: $TVGUIDE_TVMAZE_URL, else https://api.tvmaze.com).", valueName: "url"))
    var tvmazeURL: String?

    var base: String {
        if let tvmazeURL { return tvmazeURL }
        if let url = ProcessInfo.processInfo.environment["TVGUIDE_TVMAZE_URL"], !url.isEmpty { return url }
        return "https://api.tvmaze.com"
    }

    func validate() throws {
        guard let url = URL(string: base), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--tvmaze-url \(base) is not an http(s) address")
        }
    }
}
