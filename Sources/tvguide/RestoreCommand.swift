import ArgumentParser
import Foundation
import GuideStoreBackends

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: Output.words("Replace the guide database with a backup."),
        discussion: Output.words("The backup is checked first (an SQLite file passing its integrity check, a tvguide schema no newer than this version's). The database it replaces is kept beside it as DATABASE.before-restore. For PostgreSQL, use pg_restore.")
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: .words("The backup to restore (made by tvguide backup).", valueName: "file"))
    var file: String

    func run() async throws {
        let store = try await store.location()
        let summary = try await CLIFailure.translating(context: Output.words("cannot restore")) { try await restoreDatabase(store.path, from: file) }
        let words = Output.words
        Output.line(words("Restored {file} into {database}: {channels}, {programmes}. The database it replaced is in {path}.", [
            "file": file, "database": store.described, "channels": words.plural("{count} channel", "{count} channels", count: summary.channels),
            "programmes": words.plural("{count} programme", "{count} programmes", count: summary.programmes), "path": store.path + ".before-restore"]))
    }
}
