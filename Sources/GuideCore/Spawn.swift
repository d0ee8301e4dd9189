import Foundation
import Glibc
import Synchronization

/// The one way tvguide and its tests start another program: posix_spawn, with the child's standard input, output and
/// error each /dev/null, a pipe to us, or ours; every other descriptor closed in the child; the signals serve ignores
/// or blocks back to their defaults; optionally a process group of its own.
///
/// Not Foundation's `Process`: its `run()` on Linux copies 256 bytes from each entry of /proc/self/fd and crashes
/// when an entry ends a page (swiftlang/swift-corelibs-foundation#5472, not in Swift 6.3.1); it took down a CI run.
public final class SpawnedProcess: Sendable {
    /// What the child's descriptor 0, 1 or 2 is.
    public enum Stream: Sendable {
        case null
        /// A pipe to us: ``input``, ``output`` or ``errors``.
        case pipe
        /// The same as ours.
        case inherit
    }

    public struct Failure: Error, CustomStringConvertible {
        public var executable: String
        public var code: Int32
        public var description: String { "could not start \(executable): \(String(cString: strerror(code)))" }
    }

    public let pid: pid_t
    /// Our end of the child's standard input, output and error, when that one is `.pipe`; closed when it is deinitialized.
    public let input: Int32?
    public let output: Int32?
    public let errors: Int32?
    private let ownGroup: Bool
    private let open = Mutex<Set<Int32>>([])
    /// How it ended, once reaped (its pid may be another's then).
    private let ended = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`, and `environment` as its whole environment (this process's when nil).
    public init(_ executable: String, arguments: [String], environment: [String: String]? = nil,
                input: Stream = .null, output: Stream = .null, errors: Stream = .null, ownGroup: Bool = false) throws {
        let started = try Self.spawning.withLock { _ in
            try Self.spawn(executable, arguments: arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                           streams: [input, output, errors], ownGroup: ownGroup)
        }
        pid = started.pid
        self.input = started.ours[0]
        self.output = started.ours[1]
        self.errors = started.ours[2]
        self.ownGroup = ownGroup
        open.withLock { $0 = Set(started.ours.compactMap { $0 }) }
    }

    deinit {
        open.withLock { $0.forEach { _ = Glibc.close($0) } }
    }

    /// Sends `signal` to the child (to its group when it has one of its own), unless it was reaped.
    public func signal(_ signal: Int32) {
        ended.withLock { if $0 == nil { _ = Glibc.kill(ownGroup ? -pid : pid, signal) } }
    }

    /// Whether it has not exited yet.
    public var isRunning: Bool {
        guard ended.withLock({ $0 }) == nil else { return false }
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == 0
    }

    /// ``waitForExit()`` on a thread of ``BlockingWork``.
    public func exited() async -> Int32 {
        (try? await BlockingWork.run("spawn-wait") { self.waitForExit() }) ?? -1
    }

    /// Closes our end of one of its pipes (its standard input, so it reads the end).
    public func close(_ descriptor: Int32?) {
        guard let descriptor, open.withLock({ $0.remove(descriptor) != nil }) else { return }
        _ = Glibc.close(descriptor)
    }

    /// Ends the child: closes its standard input, sends `signal`, and reaps it on a thread of ``BlockingWork``.
    public func end(_ signal: Int32 = SIGTERM) {
        close(input)
        self.signal(signal)
        Task.detached { _ = await self.exited() }
    }

    /// Waits for the child to end and reaps it: its exit status, or 128 + the signal that ended it. Blocks: call it
    /// on a thread of ``BlockingWork``.
    public func waitForExit() -> Int32 {
        if let status = ended.withLock({ $0 }) { return status }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            // Reaped meanwhile by another wait.
            guard errno == EINTR else { return ended.withLock { $0 } ?? -1 }
        }
        let signal = status & 0x7f
        let result = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        ended.withLock { $0 = result }
        return result
    }

    /// Reads from one of its pipes what is there now, waiting for something (empty at end of file). Blocks.
    public func readSome(_ descriptor: Int32?, most: Int = 64 << 10) -> [UInt8] {
        guard let descriptor else { return [] }
        var buffer = [UInt8](repeating: 0, count: most)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            return count > 0 ? Array(buffer[0..<count]) : []
        }
    }

    /// How a program run to its end ended, and what it wrote.
    public struct Finished: Sendable {
        /// Its exit status, or 128 + the signal that ended it.
        public var status: Int32
        public var output: [UInt8]
        public var errors: [UInt8]
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    /// Runs `executable` to its end, `input` on its standard input (/dev/null when nil), keeping all it writes to
    /// standard output and error (read together, so neither pipe fills while the other is read). On a thread of
    /// ``BlockingWork``.
    public static func run(_ executable: String, arguments: [String], environment: [String: String]? = nil,
                           input: [UInt8]? = nil) async throws -> Finished {
        try await BlockingWork.run("spawn") { try runWaiting(executable, arguments: arguments, environment: environment, input: input) }
    }

    /// ``run(_:arguments:environment:input:)``, blocking the calling thread.
    public static func runWaiting(_ executable: String, arguments: [String], environment: [String: String]? = nil,
                                  input: [UInt8]? = nil) throws -> Finished {
        if input != nil { ignoreBrokenPipes }
        let child = try SpawnedProcess(executable, arguments: arguments, environment: environment,
                                       input: input == nil ? .null : .pipe, output: .pipe, errors: .pipe)
        var pending = input ?? []
        if let writing = child.input {
            _ = fcntl(writing, F_SETFL, fcntl(writing, F_GETFL) | O_NONBLOCK)
            if pending.isEmpty { child.close(writing) }
        }
        var kept: [Int32: [UInt8]] = [:]
        var reading = [child.output, child.errors].compactMap { $0 }
        var writing = pending.isEmpty ? nil : child.input
        while !reading.isEmpty || writing != nil {
            var watched = reading.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if let writing { watched.append(pollfd(fd: writing, events: Int16(POLLOUT), revents: 0)) }
            guard poll(&watched, nfds_t(watched.count), -1) >= 0 else {
                if errno == EINTR { continue }
                throw Failure(executable: executable, code: errno)
            }
            for entry in watched where entry.revents != 0 {
                if entry.fd == writing {
                    let sent = pending.withUnsafeBytes { write(entry.fd, $0.baseAddress, $0.count) }
                    if sent > 0 { pending.removeFirst(sent) }
                    if pending.isEmpty || (sent < 0 && errno != EAGAIN && errno != EINTR) {
                        child.close(entry.fd)
                        writing = nil
                    }
                } else {
                    let bytes = child.readSome(entry.fd)
                    if bytes.isEmpty { reading.removeAll { $0 == entry.fd } } else { kept[entry.fd, default: []] += bytes }
                }
            }
        }
        let status = child.waitForExit()
        return Finished(status: status, output: child.output.flatMap { kept[$0] } ?? [],
                        errors: child.errors.flatMap { kept[$0] } ?? [])
    }

    /// A child that exits before reading all its input must not end this process with SIGPIPE (serve ignores it too).
    private static let ignoreBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    // MARK: - Spawning

    /// Held while pipes are made and a child started, so no child of ours inherits another's pipe in between.
    private static let spawning = Mutex(())

    /// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which Swift's Glibc module leaves out.
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0),
                                                                        "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }

    private static func spawn(_ executable: String, arguments: [String], environment: [String: String],
                              streams: [Stream], ownGroup: Bool) throws -> (pid: pid_t, ours: [Int32?]) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var theirs: [Int32] = []
        var ours: [Int32?] = []
        func closeAll() { (theirs + ours.compactMap { $0 }).forEach { _ = Glibc.close($0) } }
        for (descriptor, stream) in streams.enumerated() {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, Int32(descriptor), "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
                ours.append(nil)
            case .inherit:
                ours.append(nil)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard Glibc.pipe(&ends) == 0 else {
                    let code = errno
                    closeAll()
                    throw Failure(executable: "a pipe", code: code)
                }
                // Closed on exec: the child gets its end by dup2, which clears the flag.
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                let (child, mine) = descriptor == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                posix_spawn_file_actions_adddup2(&actions, child, Int32(descriptor))
                theirs.append(child)
                ours.append(mine)
            }
        }
        _ = closeFrom?(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // SIGPIPE and the ending signals back to their defaults (serve ignores SIGPIPE), no signal blocked.
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if ownGroup {
            flags |= POSIX_SPAWN_SETPGROUP
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        theirs.forEach { _ = Glibc.close($0) }
        guard code == 0 else {
            ours.compactMap { $0 }.forEach { _ = Glibc.close($0) }
            throw Failure(executable: executable, code: code)
        }
        return (pid, ours)
    }
}
