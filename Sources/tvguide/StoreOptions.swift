import ArgumentParser
import Foundation
import GuideStore
import GuideStoreBackends

/// `--database`, shared by every subcommand; falls back to `TVGUIDE_DATABASE`, then a per-user data folder.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The guide database: an SQLite file, or postgres://USER@HOST[:PORT]/DATABASE[?schema=NAME&sslmode=require|verify-full&sslrootcert=PATH] for a database several instances share, its password in $TVGUIDE_DATABASE_PASSWORD or the file $TVGUIDE_DATABASE_PASSWORD_FILE names (default: $TVGUIDE_DATABASE, else ~/.local/share/tvguide/guide.sqlite).",
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
        guard case .postgres(let location)? = try? DatabaseLocation(path) else { return path }
        let name = [location.host, String(location.port), location.database, location.schema].compactMap { $0 }.joined(separator: "-")
        return Self.dataHome + "/tvguide/postgres-" + name
    }

    /// The database for messages: a path, or the address without its password.
    var described: String {
        (try? DatabaseLocation(path))?.description ?? path
    }

    private static var dataHome: String {
        ProcessInfo.processInfo.environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share").path
    }

    /// Runs `body` with the database open; a failure to open it, or of the store, is told as a CLI failure.
    func withDatabase<T>(_ body: (any GuideDatabase) async throws -> T) async throws -> T {
        let password = try Self.password(ProcessInfo.processInfo.environment)
        return try await CLIFailure.translating {
            try await body(try await openGuideDatabase(path, password: password))
        }
    }

    /// The PostgreSQL password kept off the command line (where `ps` shows it to everyone on the machine):
    /// `TVGUIDE_DATABASE_PASSWORD`, or the first line of the file `TVGUIDE_DATABASE_PASSWORD_FILE` names (a
    /// container secret). A password in the address itself wins.
    static func password(_ environment: [String: String]) throws -> String? {
        if let password = environment["TVGUIDE_DATABASE_PASSWORD"], !password.isEmpty { return password }
        guard let file = environment["TVGUIDE_DATABASE_PASSWORD_FILE"], !file.isEmpty else { return nil }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw CLIFailure("TVGUIDE_DATABASE_PASSWORD_FILE names \(file), which cannot be read")
        }
        return String(text.split(whereSeparator: \.isNewline).first ?? "")
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
