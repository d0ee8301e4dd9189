import ArgumentParser
import Foundation
import GuideStoreBackends

struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: Output.words("Copy the guide database to a new file, while serve runs."),
        discussion: Output.words("SQLite's online backup: the copy is the database as one moment saw it (an import running meanwhile is in it whole or not at all). For PostgreSQL, use pg_dump.")
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: .words("The new file to write.", valueName: "file"))
    var file: String

    func run() async throws {
        let store = try await store.location()
        let summary = try await CLIFailure.translating(context: Output.words("cannot back up")) { try await backUpDatabase(store.path, to: file) }
        let words = Output.words
        Output.line(words("Backed up {database} to {file}: {channels}, {programmes}, {size}.", [
            "database": store.described, "file": file, "channels": words.plural("{count} channel", "{count} channels", count: summary.channels),
            "programmes": words.plural("{count} programme", "{count} programmes", count: summary.programmes), "size": words.megabytes(summary.bytes)]))
    }
}
