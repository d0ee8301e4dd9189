import Foundation
import Glibc
import GuideCore
import Subprocess
import Synchronization
import SystemPackage

/// A program tvguide runs (an XMLTV grabber), bounded every way it can misbehave: it reads nothing (standard input is
/// /dev/null), it runs in a process group of its own (grabbers start helpers), and the group is ended, SIGTERM then
/// SIGKILL, when it runs past its time, writes more than its limits to standard output or to its output file, or the
/// task awaiting it is cancelled (serve stopping). Standard output is kept up to its limit, standard error's last
/// bytes for the health page. It is started and awaited by swift-subprocess: every other descriptor of ours closed in
/// the child, its signals back to their defaults (serve ignores SIGPIPE), no thread held while it runs.
public struct ChildProcess: Sendable {
    public struct Limits: Sendable {
        /// How long it may run.
        public var time: Duration
        /// Standard output kept; more ends the run.
        public var standardOutputBytes: Int
        /// How much of standard error is kept (its last bytes).
        public var standardErrorKept: Int
        /// A file it writes (its `--output`) and how large it may grow; more ends the run.
        public var outputFile: String?
        public var outputFileBytes: Int64
        /// Between SIGTERM and SIGKILL.
        public var grace: Duration

        public init(time: Duration, standardOutputBytes: Int = 1 << 20, standardErrorKept: Int = 16 << 10,
                    outputFile: String? = nil, outputFileBytes: Int64 = 1 << 30, grace: Duration = .seconds(5)) {
            self.time = time
            self.standardOutputBytes = standardOutputBytes
            self.standardErrorKept = standardErrorKept
            self.outputFile = outputFile
            self.outputFileBytes = outputFileBytes
            self.grace = grace
        }
    }

    /// Why tvguide ended a run.
    public enum Stopped: Sendable, Equatable {
        case timeLimit, standardOutputLimit, outputFileLimit, cancelled

        /// Why, for an admin.
        public var sentence: Sentence {
            switch self {
            case .timeLimit: Sentence(saying: "it ran past its time limit")
            case .standardOutputLimit: Sentence(saying: "it wrote more to standard output than tvguide keeps")
            case .outputFileLimit: Sentence(saying: "its output file grew past the size limit")
            case .cancelled: Sentence(saying: "tvguide stopped it")
            }
        }
    }

    public struct Outcome: Sendable {
        /// Its exit status, or nil when a signal ended it.
        public var status: Int32?
        /// The signal that ended it, if one did.
        public var signal: Int32?
        /// Why tvguide ended it, if tvguide did.
        public var stopped: Stopped?
        public var standardOutput: [UInt8]
        /// The last ``Limits/standardErrorKept`` bytes of its standard error, as text.
        public var standardError: String

        /// Exited 0 on its own.
        public var succeeded: Bool { status == 0 && stopped == nil }

        /// How it ended, for an admin: "exit status 1", "ended by signal 9 (it ran past its time limit)".
        public var ending: Sentence {
            let how = status.map { Sentence(saying: "exit status {status}", ["status": "\($0)"]) }
                ?? Sentence(saying: "ended by signal {signal}", ["signal": "\(signal ?? 0)"])
            return stopped.map { Sentence(saying: "{how} ({why})", sentences: ["how": how, "why": $0.sentence]) } ?? how
        }
    }

    public var executable: String
    public var arguments: [String]
    /// The whole environment it gets (nothing of serve's is passed on unless named here).
    public var environment: [String: String]
    public var limits: Limits

    public init(executable: String, arguments: [String], environment: [String: String], limits: Limits) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.limits = limits
    }

    /// Runs it to its end (or tvguide's), however long that takes within the limits.
    public func run() async throws -> Outcome {
        let limits = self.limits
        var options = PlatformOptions()
        // A group of its own, which the run's end and every stop reach: the helpers a grabber starts end with it.
        options.processGroupID = 0
        options.teardownSequence = [.send(signal: .terminate, toProcessGroup: true, allowedDurationToNextStep: limits.grace)]
        let group = ProcessGroup(grace: limits.grace)
        let variables = Dictionary(uniqueKeysWithValues: environment.compactMap { name, value in
            Environment.Key(rawValue: name).map { ($0, value) }
        })
        let result = try await withTaskCancellationHandler {
            try await Subprocess.run(.path(FilePath(executable)), arguments: Arguments(arguments), environment: .custom(variables),
                                     platformOptions: options, input: .none, output: .sequence, error: .sequence) { execution in
                group.started(execution.processIdentifier.value)
                async let kept = Self.keep(execution.standardOutput, most: limits.standardOutputBytes, last: false) {
                    group.stop(.standardOutputLimit)
                }
                async let said = Self.keep(execution.standardError, most: limits.standardErrorKept, last: true, overflow: nil)
                let watching = Task { try? await watch(group, limits: limits) }
                // Both outputs end when it exits (swift-subprocess ends the reads then, even with a helper holding them).
                let outputs = await (kept, said)
                watching.cancel()
                return outputs
            }
        } onCancel: {
            group.stop(.cancelled)
        }
        // What it left running in its group (helpers holding its pipes); the group's id is not reused while it has any.
        group.ended()
        let (status, signal): (Int32?, Int32?) = switch result.terminationStatus {
        case .exited(let code): (code, nil)
        case .signaled(let number): (nil, number)
        }
        return Outcome(status: status, signal: signal, stopped: group.reason, standardOutput: result.closureResult.0,
                       standardError: String(decoding: result.closureResult.1, as: UTF8.self))
    }

    /// Ends the group when it runs too long or its output file grows too big.
    private func watch(_ group: ProcessGroup, limits: Limits) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limits.time)
        while group.reason == nil {
            if clock.now >= deadline {
                group.stop(.timeLimit)
            } else if let file = limits.outputFile, let size = Self.size(of: file), size > limits.outputFileBytes {
                group.stop(.outputFileLimit)
            } else {
                try await clock.sleep(for: .milliseconds(200))
            }
        }
    }

    private static func size(of path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Reads `output` to its end, keeping the first (or the last) `most` bytes; past them, calls `overflow` once and
    /// reads on without keeping, so the writer is never blocked on a full pipe.
    private static func keep(_ output: SubprocessOutputSequence, most: Int, last: Bool,
                             overflow: (@Sendable () -> Void)?) async -> [UInt8] {
        var kept: [UInt8] = []
        var overflowed = false
        do {
            for try await buffer in output {
                let bytes = buffer.withUnsafeBytes { Array($0) }
                if last {
                    kept += bytes
                    if kept.count > most { kept.removeFirst(kept.count - most) }
                } else if kept.count + bytes.count <= most {
                    kept += bytes
                } else if !overflowed {
                    overflowed = true
                    overflow?()
                }
            }
        } catch {
            // A read that failed ends what is kept; how the run ended says the rest.
        }
        return kept
    }
}

/// A running child's process group, and why tvguide is ending it.
private final class ProcessGroup: Sendable {
    let grace: Duration
    private let state = Mutex<(pid: pid_t?, reason: ChildProcess.Stopped?, ended: Bool)>((nil, nil, false))

    init(grace: Duration) { self.grace = grace }

    var reason: ChildProcess.Stopped? { state.withLock { $0.reason } }

    /// The child is running as `pid`, the id of its group.
    func started(_ pid: pid_t) {
        state.withLock { $0.pid = pid }
    }

    /// Asks the group to end (SIGTERM), remembering the first reason, and ends it (SIGKILL) after the grace. The
    /// SIGKILL is in a task of its own: cancelling the run (serve stopping) must not cancel it.
    func stop(_ reason: ChildProcess.Stopped) {
        let send = state.withLock { state -> Bool in
            guard state.reason == nil else { return false }
            state.reason = reason
            return true
        }
        guard send else { return }
        signal(SIGTERM)
        Task.detached { [self] in
            try? await ContinuousClock().sleep(for: grace)
            signal(SIGKILL)
        }
    }

    /// Ends what is left of the group once the child was reaped; nothing is signalled after that.
    func ended() {
        signal(SIGKILL)
        state.withLock { $0.ended = true }
    }

    private func signal(_ number: Int32) {
        state.withLock { state in
            if let pid = state.pid, !state.ended { _ = Glibc.kill(-pid, number) }
        }
    }
}
