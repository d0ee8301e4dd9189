import Foundation
import GuideCore
import XMLTV

extension Grabbers {
    /// Asks the grabber `name` configured by `configuration` for the questions of `stage` (`start` first), as
    /// `--configure-api --stage S` answers them.
    public func questions(_ stage: String, grabber name: String, for source: SourceName,
                          configuration: GrabberConfiguration) async throws -> GrabberQuestions {
        guard Self.isStageName(stage) else { throw GrabberFailure(grabber: name, ending: Sentence(saying: "not asked"), said: Sentence(saying: "{stage} is not a stage's name", ["stage": stage])) }
        let answer = try await shortRun(name, for: source, configuration: configuration) { file in
            ["--configure-api", "--stage", stage, "--output", file]
        }
        return try GrabberQuestions.read(answer)
    }

    /// The channels the grabber `name` configured by `configuration` offers (`--list-channels`).
    public func channels(grabber name: String, for source: SourceName, configuration: GrabberConfiguration) async throws -> [Channel] {
        let answer = try await shortRun(name, for: source, configuration: configuration) { file in
            ["--list-channels", "--output", file]
        }
        return try XMLTVReader.read(answer).channels
    }

    /// Grabs `days` days from today with the grabber `name` into `output`, within the grab's limits. Success is exit
    /// status 0 and a file that is not empty; whether the file is a whole document is for the import to find.
    public func grab(grabber name: String, for source: SourceName, configuration: GrabberConfiguration, days: Int,
                     into output: String) async throws {
        let (path, home, file) = try prepare(name, for: source, configuration: configuration)
        let arguments = ["--config-file", file, "--output", output, "--days", String(days), "--offset", "0", "--quiet"]
        let outcome = try await run(path, arguments, home: home, time: limits.grabTime, outputFile: output)
        guard outcome.succeeded else { throw GrabberFailure(path: path, outcome: outcome) }
        var info = stat()
        guard stat(output, &info) == 0, info.st_size > 0 else {
            throw GrabberFailure(grabber: name, ending: outcome.ending,
                                 said: GrabberFailure.said(Sentence(saying: "it wrote no listings"), then: outcome.standardError))
        }
        // A grabber that fails may leave the prolog and an open <tv> (tv_grab_fr does): only a whole document is listings.
        guard Self.endsWholeDocument(output) else {
            throw GrabberFailure(grabber: name, ending: outcome.ending,
                                 said: GrabberFailure.said(Sentence(saying: "it wrote an unfinished document (no closing </tv>)"), then: outcome.standardError))
        }
        // It may have finished between two looks of the watch: the limit holds all the same.
        guard Int64(info.st_size) <= limits.outputBytes else {
            throw GrabberFailure(grabber: name, ending: outcome.ending, said: ChildProcess.Stopped.outputFileLimit.sentence)
        }
    }

    /// Whether the file at `path` ends with `</tv>` (and white space).
    static func endsWholeDocument(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return false }
        try? handle.seek(toOffset: size > 64 ? size - 64 : 0)
        let tail = (try? handle.readToEnd()) ?? Data()
        return String(decoding: tail, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("</tv>")
    }

    /// Runs a question (a stage, the channel list) whose answer is written to a file, and reads that file (1 MB at most).
    private func shortRun(_ name: String, for source: SourceName, configuration: GrabberConfiguration,
                          arguments: (String) -> [String]) async throws -> [UInt8] {
        let (path, home, file) = try prepare(name, for: source, configuration: configuration)
        let answer = (home as NSString).appendingPathComponent("answer-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(atPath: answer) }
        let outcome = try await run(path, ["--config-file", file] + arguments(answer), home: home, time: limits.questionTime, outputFile: answer)
        guard outcome.succeeded else { throw GrabberFailure(path: path, outcome: outcome) }
        guard let handle = FileHandle(forReadingAtPath: answer) else {
            throw GrabberFailure(grabber: name, ending: outcome.ending, said: Sentence(saying: "it wrote no answer"))
        }
        defer { try? handle.close() }
        let bytes = try handle.read(upToCount: 1 << 20) ?? Data()
        guard try handle.read(upToCount: 1) == nil else {
            throw GrabberFailure(grabber: name, ending: outcome.ending, said: Sentence(saying: "its answer is larger than 1 MB"))
        }
        return Array(bytes)
    }

    /// The grabber's path, the source's home, and its configuration file there, written (0600) from `configuration`.
    private func prepare(_ name: String, for source: SourceName,
                         configuration: GrabberConfiguration) throws -> (path: String, home: String, file: String) {
        guard let path = path(of: name) else {
            throw GrabberFailure.notRun(name, Sentence(saying: "there is no grabber called {grabber} in {folders} (xmltv-util has the XMLTV project's)",
                                                       ["grabber": name, "folders": directories.joined(separator: ", ")]))
        }
        if let problem = configuration.problem { throw GrabberFailure.notRun(name, problem) }
        let home = home(of: source)
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = (home as NSString).appendingPathComponent("\(name).conf")
        // Private: a configuration may hold a password (XMLTV's grabbers keep them in clear).
        let written = FileManager.default.createFile(atPath: file + ".tmp", contents: Data(configuration.text.utf8),
                                                     attributes: [.posixPermissions: 0o600])
        guard written, rename(file + ".tmp", file) == 0 else {
            throw GrabberFailure.notRun(name, Sentence(saying: "its configuration could not be written in {folder}", ["folder": home]))
        }
        return (path, home, file)
    }

    /// Whether `stage` can be a stage's name (they are words like `start`, `select-channels`), never an option.
    public static func isStageName(_ stage: String) -> Bool {
        !stage.isEmpty && stage.utf8.count <= 64 && !stage.hasPrefix("-")
            && stage.utf8.allSatisfy { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) || (0x41...0x5A).contains($0) }
    }
}
