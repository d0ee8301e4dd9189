import ArgumentParser
import Foundation
import GuideIngest

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: Output.words("Write the whole guide as XMLTV."))

    @OptionGroup var store: StoreOptions

    @Option(help: .words("The file to write (default: standard output); gzip-compressed when it ends in .gz.", valueName: "file"))
    var output: String?

    @OptionGroup var language: LanguageOption

    func run() async throws {
        try await store.withDatabase { database in
            let export = GuideExport(store: database)
            try await CLIFailure.translating(context: "cannot export") {
                if let output {
                    try await export.write(to: output, compressed: output.hasSuffix(".gz"), languages: language.languages)
                } else {
                    try await export.write({ try FileHandle.standardOutput.write(contentsOf: Data($0.utf8)) }, languages: language.languages)
                }
            }
        }
    }
}
