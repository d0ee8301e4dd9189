import ArgumentParser
import Configuration
import Foundation
import GuideCore
import GuideStore
import GuideStoreBackends

/// `--database` and `--config`, shared by every subcommand: the database is the flag's, else `$TVGUIDE_DATABASE`, else
/// the configuration file's `database`, else a per-user data folder.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: .words("The guide database: an SQLite file, or postgres://USER@HOST[:PORT]/DATABASE[?schema=NAME&sslmode=require|verify-full&sslrootcert=PATH] for a database several instances share, its password in $TVGUIDE_DATABASE_PASSWORD or the file $TVGUIDE_DATABASE_PASSWORD_FILE names (default: $TVGUIDE_DATABASE, else the configuration file's database, else ~/.local/share/tvguide/guide.sqlite).",
                                           valueName: "path-or-url"))
    var database: String?

    @Option(help: .words("The configuration file: key = value lines, keys named as serve's options (default: $TVGUIDE_CONFIG, else /etc/tvguide/tvguide.conf when it exists; none for no file). Environment variables and flags override it.",
                               valueName: "file"))
    var config: String?

    /// The settings' layers over these flags and `flags`.
    func settings(flags: [SettingKey: ConfigContent] = [:]) async throws -> SettingsLayers {
        var given = flags
        if let database { given[.database] = .string(database) }
        return try await SettingsLayers.load(flags: given, file: config)
    }

    /// Where the database is, by the layers.
    func location() async throws -> StoreLocation {
        StoreLocation(try await settings())
    }

    static var dataHome: String {
        ProcessInfo.processInfo.environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share").path
    }

    /// Runs `body` with the database open; a failure to open it, or of the store, is told as a CLI failure. A command
    /// reads nothing while it imports, so that a first import may take an SQLite file for itself (``ImportReaders``).
    func withDatabase<T>(_ body: (any GuideDatabase) async throws -> T) async throws -> T {
        let password = try Self.password(ProcessInfo.processInfo.environment)
        let path = try await location().path
        return try await CLIFailure.translating {
            try await body(try await openGuideDatabase(path, password: password, readers: .afterwards,
                                                       now: GuideClock.system().now))
        }
    }

    /// The PostgreSQL password kept off the command line (where `ps` shows it to everyone on the machine):
    /// `TVGUIDE_DATABASE_PASSWORD`, or the first line of the file `TVGUIDE_DATABASE_PASSWORD_FILE` names (a
    /// container secret). A password in the address itself wins.
    static func password(_ environment: [String: String]) throws -> String? {
        if let password = environment["TVGUIDE_DATABASE_PASSWORD"], !password.isEmpty { return password }
        guard let file = environment["TVGUIDE_DATABASE_PASSWORD_FILE"], !file.isEmpty else { return nil }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw CLIFailure(Output.words("TVGUIDE_DATABASE_PASSWORD_FILE names {file}, which cannot be read", ["file": file]))
        }
        return String(text.split(whereSeparator: \.isNewline).first ?? "")
    }
}

/// `--tvmaze-url`, for the commands that ask TVmaze; falls back to `TVGUIDE_TVMAZE_URL`, then the configuration file's
/// `tvmaze-url`, then TVmaze itself.
struct TVMazeOptions: ParsableArguments {
    @Option(name: .customLong("tvmaze-url"),
            help: .words("TVmaze's API address (default: $TVGUIDE_TVMAZE_URL, else the configuration file's tvmaze-url, else https://api.tvmaze.com).", valueName: "url"))
    var tvmazeURL: String?

    var flags: [SettingKey: ConfigContent] {
        tvmazeURL.map { [.tvmazeURL: .string($0)] } ?? [:]
    }

    /// TVmaze's address by the layers (over `store`'s flags and these).
    func base(_ store: StoreOptions) async throws -> String {
        try Self.base(try await store.settings(flags: flags))
    }

    static func base(_ layers: SettingsLayers) throws -> String {
        try layers.address(.tvmazeURL, else: "https://api.tvmaze.com")
    }
}

extension SettingsLayers {
    /// The http(s) address `key` sets, else `fallback`; a CLIFailure naming the setting for anything else.
    func address(_ key: SettingKey, else fallback: String) throws -> String {
        let base = string(key) ?? fallback
        guard let url = URL(string: base), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ServeSettings.failure(key, base, saying: "{key} \"{value}\" ({origin}) is not an http(s) address")
        }
        return base
    }
}
