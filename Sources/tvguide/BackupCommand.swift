import ArgumentParser
import Foundation
import GuideStoreBackends

struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the guide database to a new file, while serve runs.",
        discussion: "SQLite's online backup: the copy is the database as one moment saw it (an import running meanwhile is in it whole or not at all). For PostgreSQL, use pg_dump."
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: ArgumentHelp("The new file to write.", valueName: "file"))
    var file: String

    func run() async throws {
        let store = try await store.location()
        let summary = try await CLIFailure.translating(context: "cannot back up") { try await backUpDatabase(store.path, to: file) }
        Output.line("Backed up \(store.described) to \(file): \(summary.channels) channels, \(summary.programmes) programmes, "
            + ByteCountFormatter.string(fromByteCount: summary.bytes, countStyle: .file) + ".")
    }
}
