import Foundation
import Glibc
import GuideCore
import Synchronization

/// A program tvguide runs (an XMLTV grabber), bounded every way it can misbehave: it reads nothing (standard input is
/// /dev/null), it runs in a process group of its own (grabbers start helpers), and the group is ended, SIGTERM then
/// SIGKILL, when it runs past its time, writes more than its limits to standard output or to its output file, or the
/// task awaiting it is cancelled (serve stopping). Standard output is kept up to its limit, standard error's last
/// bytes for the health page. The blocking calls (reading pipes, waiting for the exit) run on threads of
/// ``BlockingWork``, never on Swift's cooperative ones.
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
        let child = try SpawnedProcess(executable, arguments: arguments, environment: environment,
                                       output: .pipe, errors: .pipe, ownGroup: true)
        let group = ProcessGroup(pid: child.pid, grace: limits.grace)
        let limits = self.limits
        async let kept = BlockingWork.run("child-stdout") {
            Self.drain(child, child.output, keeping: limits.standardOutputBytes, last: false) { group.stop(.standardOutputLimit) }
        }
        async let errorTail = BlockingWork.run("child-stderr") {
            Self.drain(child, child.errors, keeping: limits.standardErrorKept, last: true, overflow: nil)
        }
        let (status, signal) = try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: (Int32?, Int32?)?.self) { tasks in
                tasks.addTask {
                    // Waits for the exit without reaping, so the group's id stays its own while what it left is ended.
                    let ended = try await BlockingWork.run("child-wait") { group.waitForExit() }
                    group.endLeftovers()
                    _ = try await BlockingWork.run("child-reap") { group.reap() }
                    return ended
                }
                tasks.addTask {
                    try? await watch(group, limits: limits)
                    return nil
                }
                var result: (Int32?, Int32?) = (nil, nil)
                for try await ended in tasks {
                    if let ended {
                        result = ended
                        tasks.cancelAll()
                    }
                }
                return result
            }
        } onCancel: {
            group.stop(.cancelled)
        }
        let written = try await kept
        let said = try await errorTail
        return Outcome(status: status, signal: signal, stopped: group.reason, standardOutput: written,
                       standardError: String(decoding: said, as: UTF8.self))
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

    /// Reads `descriptor` to its end, keeping the first (or the last) `keeping` bytes; past them, calls `overflow`
    /// once and reads on without keeping, so the writer is never blocked on a full pipe.
    private static func drain(_ child: SpawnedProcess, _ descriptor: Int32?, keeping: Int, last: Bool,
                              overflow: (@Sendable () -> Void)?) -> [UInt8] {
        var kept: [UInt8] = []
        var overflowed = false
        while true {
            let bytes = child.readSome(descriptor)
            guard !bytes.isEmpty else { break }
            if last {
                kept += bytes
                if kept.count > keeping { kept.removeFirst(kept.count - keeping) }
            } else if kept.count + bytes.count <= keeping {
                kept += bytes
            } else if !overflowed {
                overflowed = true
                overflow?()
            }
        }
        return kept
    }
}

/// A running child's process group, and why tvguide is ending it.
private final class ProcessGroup: Sendable {
    let pid: pid_t
    let grace: Duration
    private let state = Mutex<(reason: ChildProcess.Stopped?, exited: Bool)>((nil, false))

    init(pid: pid_t, grace: Duration) { (self.pid, self.grace) = (pid, grace) }

    var reason: ChildProcess.Stopped? { state.withLock { $0.reason } }

    /// Asks the group to end (SIGTERM), remembering the first reason, and ends it (SIGKILL) after the grace. The
    /// SIGKILL is in a task of its own: cancelling the run (serve stopping) must not cancel it.
    func stop(_ reason: ChildProcess.Stopped) {
        let send = state.withLock { state -> Bool in
            guard state.reason == nil else { return false }
            state.reason = reason
            return !state.exited
        }
        guard send else { return }
        Glibc.kill(-pid, SIGTERM)
        Task.detached { [self] in
            try? await ContinuousClock().sleep(for: grace)
            kill()
        }
    }

    /// Ends the group (SIGKILL), if the child has not exited.
    func kill() {
        if !state.withLock({ $0.exited }) { Glibc.kill(-pid, SIGKILL) }
    }

    /// Waits for the child to exit, leaving it unreaped: its exit status, or the signal that ended it.
    func waitForExit() -> (Int32?, Int32?) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
            guard errno == EINTR else { return (nil, nil) }
        }
        let status = info._sifields._sigchld.si_status
        return info.si_code == CLD_EXITED ? (status, nil) : (nil, status)
    }

    /// Ends what the child left running in its group (helpers holding its pipes), while its id still names the group.
    func endLeftovers() {
        Glibc.kill(-pid, SIGKILL)
        state.withLock { $0.exited = true }
    }

    func reap() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}
