import Foundation
import Subprocess
import Synchronization
import SystemPackage

/// How the tests start another program (a peer, a validator, a broker, the built `tvguide`): swift-subprocess, which
/// closes every other descriptor in the child, sets its signals back to their defaults and waits without holding a
/// thread. `run` runs one to its end; ``RunningProgram`` keeps one running until the test ends it.
public enum Program {
    /// How a program run to its end ended, and what it wrote.
    public struct Finished: Sendable {
        /// Its exit status, or 128 + the signal that ended it (as a shell says it).
        public var status: Int32
        public var output: [UInt8]
        public var errors: [UInt8]
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    /// What a test keeps of each of a program's outputs, at most (an export of the crash tests' guide is 18 MB).
    public static let most = 64 << 20

    /// Runs `executable` to its end, `input` on its standard input (nothing when nil), keeping all it writes to
    /// standard output and error; `environment` is its whole environment (this process's when nil).
    public static func run(_ executable: String, arguments: [String], environment: [String: String]? = nil,
                           input: [UInt8]? = nil) async throws -> Finished {
        let result = try await Subprocess.run(.path(FilePath(executable)), arguments: Arguments(arguments),
                                              environment: Self.environment(environment), input: .array(input ?? []),
                                              output: .bytes(limit: most), error: .bytes(limit: most))
        return Finished(status: status(result.terminationStatus), output: result.standardOutput, errors: result.standardError)
    }

    static func environment(_ variables: [String: String]?) -> Environment {
        guard let variables else { return .inherit }
        return .custom(Dictionary(uniqueKeysWithValues: variables.compactMap { name, value in
            Environment.Key(rawValue: name).map { ($0, value) }
        }))
    }

    static func status(_ termination: TerminationStatus) -> Int32 {
        switch termination {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }
}

/// A program a test starts and leaves running (a receiver, mosquitto, `tvguide serve`) until it ends it or the program
/// ends by itself. What it writes to standard output is read as it comes (so it never waits on a full pipe): its first
/// line is ``firstOutput()``, the rest is dropped. Its standard input stays open until ``end()`` when `keepsInput`
/// (the Python receivers stop when it ends), else it ends at once.
public final class RunningProgram: Sendable {
    private enum Command: Sendable {
        case signal(Int32)
        case closeInput
    }

    private let commands: AsyncStream<Command>.Continuation
    private let state = ProgramState()
    private let run: Task<Int32, any Error>

    public init(_ executable: String, arguments: [String], environment: [String: String]? = nil, keepsInput: Bool = false,
                errors: Bool = false) {
        let (stream, commands) = AsyncStream.makeStream(of: Command.self)
        self.commands = commands
        let state = self.state
        run = Task {
            defer { state.said("") }
            let errorsTo = errors ? FileDescriptor.standardError : try FileDescriptor.open("/dev/null", .writeOnly)
            let result = try await Subprocess.run(
                .path(FilePath(executable)), arguments: Arguments(arguments), environment: Program.environment(environment),
                input: .inputWriter, output: .sequence, error: .fileDescriptor(errorsTo, closeAfterSpawningProcess: !errors)
            ) { execution in
                if !keepsInput { try await execution.standardInputWriter.finish() }
                await withTaskGroup(of: Void.self) { tasks in
                    tasks.addTask {
                        // Read to its end (the program's exit, or the library ending the reads when it has exited).
                        var line: [UInt8] = []
                        do {
                            for try await buffer in execution.standardOutput where line.last != 0x0A {
                                line += buffer.withUnsafeBytes { Array($0) }
                                if let end = line.firstIndex(of: 0x0A) {
                                    line.removeSubrange(line.index(after: end)...)
                                    state.said(String(decoding: line, as: UTF8.self))
                                }
                            }
                        } catch {}
                        state.said(String(decoding: line, as: UTF8.self))
                        state.ended()
                    }
                    tasks.addTask {
                        for await command in stream {
                            switch command {
                            case .signal(let number): try? execution.send(signal: Signal(rawValue: number))
                            case .closeInput: try? await execution.standardInputWriter.finish()
                            }
                        }
                    }
                    await tasks.next()
                    tasks.cancelAll()
                }
            }
            state.ended()
            return Program.status(result.terminationStatus)
        }
    }

    /// The first line it wrote to standard output, with its newline (what it wrote when it ended without one).
    public func firstOutput() async -> String {
        await state.line()
    }

    /// Whether it has not ended yet.
    public var isRunning: Bool { state.isRunning }

    /// Sends it `signal`, unless it has ended.
    public func signal(_ signal: Int32) {
        commands.yield(.signal(signal))
    }

    /// How it ended: its exit status, or 128 + the signal that ended it; -1 when it could not be started.
    public func exited() async -> Int32 {
        (try? await run.value) ?? -1
    }

    /// Ends it: closes its standard input and sends SIGTERM, without waiting.
    public func end() {
        commands.yield(.closeInput)
        commands.yield(.signal(SIGTERM))
    }
}

/// Whether a running program has ended, and its first line, for whoever waits for it.
private final class ProgramState: Sendable {
    private let state = Mutex<(said: String?, waiting: [CheckedContinuation<String, Never>], running: Bool)>((nil, [], true))

    var isRunning: Bool { state.withLock { $0.running } }

    func ended() {
        state.withLock { $0.running = false }
    }

    /// The line is `text`, unless one was said already.
    func said(_ text: String) {
        let waiting = state.withLock { state -> [CheckedContinuation<String, Never>] in
            guard state.said == nil else { return [] }
            state.said = text
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume(returning: text) }
    }

    func line() async -> String {
        await withCheckedContinuation { continuation in
            let said = state.withLock { state -> String? in
                if state.said == nil { state.waiting.append(continuation) }
                return state.said
            }
            if let said { continuation.resume(returning: said) }
        }
    }
}
