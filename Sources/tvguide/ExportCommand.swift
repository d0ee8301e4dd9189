import ArgumentParser
import Foundation
import GuideCore
import XMLTV

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Write the whole guide as XMLTV.")

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("The file to write (default: standard output).", valueName: "file"))
    var output: String?

    func run() throws {
        let database = try store.open()
        let handle: FileHandle
        var temporary: String?
        if let output {
            // Write beside the target and rename, so a failed export never leaves half a file.
            let path = output + ".partial"
            guard FileManager.default.createFile(atPath: path, contents: nil),
                  let file = FileHandle(forWritingAtPath: path) else {
                throw CLIFailure("Cannot write \(output): check the folder exists and is writable.")
            }
            handle = file
            temporary = path
        } else {
            handle = FileHandle.standardOutput
        }
        var pending = ""
        let writer = XMLTVWriter { text in
            pending += text
            if pending.utf8.count > 1 << 16 {
                try handle.write(contentsOf: Data(pending.utf8))
                pending = ""
            }
        }
        try CLIFailure.translating(context: "cannot export") {
            try writer.begin()
            for channel in try database.channels() { try writer.write(channel) }
            try database.forEachProgramme { try writer.write($0.programme) }
            try writer.end()
            try handle.write(contentsOf: Data(pending.utf8))
        }
        if let temporary, let output {
            try handle.close()
            _ = try? FileManager.default.removeItem(atPath: output)  // Replacing an older export is intended.
            try FileManager.default.moveItem(atPath: temporary, toPath: output)
        }
    }
}
