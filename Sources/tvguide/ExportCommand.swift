import ArgumentParser
import Foundation
import GuideIngest

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Write the whole guide as XMLTV.")

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("The file to write (default: standard output); gzip-compressed when it ends in .gz.", valueName: "file"))
    var output: String?

    func run() throws {
        let export = GuideExport(store: try store.open())
        try CLIFailure.translating(context: "cannot export") {
            if let output {
                try export.write(to: output, compressed: output.hasSuffix(".gz"))
            } else {
                try export.write { try FileHandle.standardOutput.write(contentsOf: Data($0.utf8)) }
            }
        }
    }
}
