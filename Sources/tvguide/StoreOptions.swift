import ArgumentParser
import Foundation
import GuideStore

/// `--database`, shared by every subcommand; falls back to `TVGUIDE_DATABASE`, then a per-user data folder.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The guide database: an SQLite file, or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME] for a database several instances share (default: $TVGUIDE_DATABASE, else ~/.local/share/tvguide/guide.sqlite).",
                                           valueName: "path-or-url"))
    var database: String?

    /// The file path or postgres:// address.
    var path: String {
        if let database { return database }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["TVGUIDE_DATABASE"], !path.isEmpty { return path }
        return Self.dataHome + "/tvguide/guide.sqlite"
    }

    /// Where this instance keeps its own files (XMLTV exports, cached images): beside an SQLite file; for PostgreSQL,
    /// a folder per database in the data folder (each instance keeps its own).
    var localFiles: String {
        guard let location = try? PostgresLocation(url: path) else { return path }
        let name = [location.host, String(location.port), location.database, location.schema].compactMap { $0 }.joined(separator: "-")
        return Self.dataHome + "/tvguide/postgres-" + name
    }

    /// The database for messages: a path, or the address without its password.
    var described: String {
        (try? PostgresLocation(url: path))?.description ?? path
    }

    private static var dataHome: String {
        ProcessInfo.processInfo.environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share").path
    }

    func open() throws -> any GuideDatabase {
        try CLIFailure.translating { try openGuideDatabase(path) }
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
