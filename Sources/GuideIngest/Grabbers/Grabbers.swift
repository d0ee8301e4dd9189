import Foundation
import GuideCore
import Synchronization

/// An XMLTV grabber installed on the machine (`tv_grab_fr`): what it says it is and can do.
public struct InstalledGrabber: Encodable, Sendable, Equatable {
    /// Its file name, which is what a source names.
    public var name: String
    /// Where it is, symbolic links resolved.
    public var path: String
    public var description: String
    /// What `--capabilities` printed, a word a line (`baseline`, `manualconfig`, `apiconfig`, ...).
    public var capabilities: [String]
    /// Why it cannot be used, when it cannot: it did not answer `--description` or `--capabilities`, or it cannot grab
    /// unattended (no `baseline`).
    public var problem: Sentence?

    public var isUsable: Bool { problem == nil }
    /// Whether tvguide can configure it by its `--configure-api` stages (else an admin gives its configuration file).
    public var configuresByAPI: Bool { capabilities.contains("apiconfig") }
}

/// The XMLTV grabbers tvguide may run and how: found in `directories` (serve's `PATH` unless the admin names others),
/// each run with a home of its own under `home` (its caches, and its configuration file written from the store), with
/// a bare environment, nothing on standard input, and the limits of ``ChildProcess``.
///
/// The protocol is the XMLTV project's (`XMLTV::Options`, `XMLTV::Configure`): `--description`, `--capabilities`,
/// `--configure-api --stage S`, `--list-channels`, and a grab with `--config-file --output --days --offset --quiet`.
public final class Grabbers: Sendable {
    public struct Limits: Sendable {
        /// A grab's wall-clock limit.
        public var grabTime: Duration
        /// How large its output file may grow.
        public var outputBytes: Int64
        /// `--description`, `--capabilities`, a configuration stage, `--list-channels`: 25 s, as MythTV allows.
        public var questionTime: Duration

        public init(grabTime: Duration = .seconds(30 * 60), outputBytes: Int64 = 1 << 30, questionTime: Duration = .seconds(25)) {
            (self.grabTime, self.outputBytes, self.questionTime) = (grabTime, outputBytes, questionTime)
        }
    }

    /// Where grabbers are looked for.
    public let directories: [String]
    /// Under which each source's grabber gets its home (`<home>/<source>`).
    public let home: String
    public let limits: Limits
    /// What each grabber said, by path and modification time: asked once per version of the file.
    private let answers = Mutex<[String: (modified: Int, grabber: InstalledGrabber)]>([:])

    /// How many bytes a source's configuration file may have: within what a form posts (64 KB, encoded).
    public static let configurationLimit = 48 << 10

    public init(directories: [String], home: String, limits: Limits = Limits()) {
        self.directories = directories
        self.home = home
        self.limits = limits
    }

    /// The directories of `PATH`, as the grabbers' own `tv_find_grabbers` searches.
    public static func searchPath(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    }

    /// The grabbers installed, by name (the first of a name on the path wins, as the shell's would), each asked what
    /// it is (at most four at a time).
    public func installed() async -> [InstalledGrabber] {
        let files = found()
        let slots = Slots(4)
        return await withTaskGroup(of: (Int, InstalledGrabber?).self) { group in
            for (index, file) in files.enumerated() {
                group.addTask { (index, try? await slots.run { await self.describe(file.name, path: file.path, modified: file.modified) }) }
            }
            var grabbers = [InstalledGrabber?](repeating: nil, count: files.count)
            for await (index, grabber) in group { grabbers[index] = grabber }
            return grabbers.compactMap { $0 }
        }
    }

    /// The grabber `name` on the path, asked what it is; nil when there is none of that name.
    public func grabber(named name: String) async -> InstalledGrabber? {
        guard SourceDefinition.isGrabberName(name), let file = found().first(where: { $0.name == name }) else { return nil }
        return await describe(file.name, path: file.path, modified: file.modified)
    }

    /// Where the grabber `name` is; nil when none of that name is on the path.
    func path(of name: String) -> String? {
        guard SourceDefinition.isGrabberName(name) else { return nil }
        return found().first { $0.name == name }?.path
    }

    /// Executable `tv_grab_*` files in the directories, by name, one per real path (merged-/usr systems reach
    /// `/usr/bin` as `/bin` too), sorted by name.
    private func found() -> [(name: String, path: String, modified: Int)] {
        var found: [(name: String, path: String, modified: Int)] = []
        // A name is the first directory's, as the shell would run it; a file reached twice is one grabber.
        var names: Set<String> = []
        var realPaths: Set<String> = []
        for directory in directories {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in entries.sorted() where SourceDefinition.isGrabberName(name) {
                let path = (directory as NSString).appendingPathComponent(name)
                var info = stat()
                guard let real = realpath(path, nil) else { continue }
                let resolved = String(cString: real)
                free(real)
                guard stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(resolved, X_OK) == 0,
                      names.insert(name).inserted, realPaths.insert(resolved).inserted else { continue }
                found.append((name, resolved, Int(info.st_mtim.tv_sec)))
            }
        }
        return found.sorted { $0.name < $1.name }
    }

    private func describe(_ name: String, path: String, modified: Int) async -> InstalledGrabber {
        if let known = answers.withLock({ $0[path] }), known.modified == modified { return known.grabber }
        var grabber = InstalledGrabber(name: name, path: path, description: "", capabilities: [])
        do {
            let description = try await ask(path, ["--description"], home: probeHome)
            let capabilities = try await ask(path, ["--capabilities"], home: probeHome)
            grabber.description = String(String(decoding: description, as: UTF8.self)
                .split(separator: "\n").first ?? "").trimmingCharacters(in: .whitespaces)
            grabber.capabilities = String(decoding: capabilities, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if !grabber.capabilities.contains("baseline") {
                grabber.problem = Sentence(saying: "it cannot grab unattended (its capabilities have no baseline)")
            }
        } catch {
            grabber.problem = Sentence(error)
        }
        answers.withLock { $0[path] = (modified, grabber) }
        return grabber
    }

    /// Where grabbers asked only what they are keep what they write.
    private var probeHome: String { (home as NSString).appendingPathComponent(".probe") }

    /// A source's grabber's home: its configuration file and caches.
    public func home(of source: SourceName) -> String {
        // The source's name as a file name: letters and digits kept, anything else hex, so no two names share one.
        var file = ""
        for byte in source.rawValue.utf8 {
            if (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) {
                file.append(Character(UnicodeScalar(byte)))
            } else {
                file += String(format: "_%02x", byte)
            }
        }
        return (home as NSString).appendingPathComponent(file)
    }

    /// Runs `path` with `arguments` for a short answer (within ``Limits/questionTime``): its standard output, or an
    /// error holding how it ended and the end of its standard error.
    func ask(_ path: String, _ arguments: [String], home: String, outputFile: String? = nil) async throws -> [UInt8] {
        let outcome = try await run(path, arguments, home: home, time: limits.questionTime, outputFile: outputFile)
        guard outcome.succeeded else { throw GrabberFailure(path: path, outcome: outcome) }
        return outcome.standardOutput
    }

    /// Runs `path` with `arguments` in `home` (made private to tvguide first).
    func run(_ path: String, _ arguments: [String], home: String, time: Duration, outputFile: String?) async throws -> ChildProcess.Outcome {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = [
            "HOME": home, "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
            "TMPDIR": NSTemporaryDirectory(), "TZ": ProcessInfo.processInfo.environment["TZ"] ?? "UTC",
        ]
        let limits = ChildProcess.Limits(time: time, outputFile: outputFile, outputFileBytes: self.limits.outputBytes)
        return try await ChildProcess(executable: path, arguments: arguments, environment: environment, limits: limits).run()
    }
}

/// A grabber that did not do what was asked: how it ended, and the last lines of what it said on standard error.
public struct GrabberFailure: WordedError, CustomStringConvertible {
    public var grabber: String
    /// How the run ended ("exit status 1"), or that it was never run.
    public var ending: Sentence
    /// What went wrong, with the end of what the grabber said on standard error (its words, as they came).
    public var said: Sentence?

    /// A run that did not exit 0 on its own: how it ended, and what it said.
    init(path: String, outcome: ChildProcess.Outcome) {
        grabber = (path as NSString).lastPathComponent
        ending = outcome.ending
        let tail = Self.lastLines(outcome.standardError)
        said = tail.isEmpty ? nil : .verbatim(tail)
    }

    init(grabber: String, ending: Sentence, said: Sentence?) {
        (self.grabber, self.ending, self.said) = (grabber, ending, said)
    }

    /// A grabber tvguide did not run (none installed by that name, a configuration it refused).
    static func notRun(_ grabber: String, _ why: Sentence) -> GrabberFailure {
        GrabberFailure(grabber: grabber, ending: Sentence(saying: "not run"), said: why)
    }

    /// `what` went wrong, then the end of what the grabber said on standard error, if anything.
    static func said(_ what: Sentence, then standardError: String) -> Sentence {
        let tail = lastLines(standardError)
        return tail.isEmpty ? what : Sentence(saying: "{what}; it said: {tail}", ["tail": tail], sentences: ["what": what])
    }

    /// The last 5 lines of `text`, at most 1,000 characters: what an admin needs to see why.
    static func lastLines(_ text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).suffix(5).joined(separator: "\n")
        return lines.count > 1000 ? "…" + String(lines.suffix(1000)) : lines
    }

    public var sentence: Sentence {
        guard let said else { return Sentence(saying: "{grabber} failed ({ending})", ["grabber": grabber], sentences: ["ending": ending]) }
        return Sentence(saying: "{grabber} failed ({ending}): {said}", ["grabber": grabber], sentences: ["ending": ending, "said": said])
    }

    public var description: String { sentence.description }
}
