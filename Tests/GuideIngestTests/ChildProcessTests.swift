import Foundation
import Glibc
import GuideIngest
import TestReceivers
import Testing

/// How tvguide starts a program (``ChildProcess``, on swift-subprocess): what comes out, what the child inherits, and
/// that what it leaves behind is ended with it. The grabbers' own tests (GrabberTests) cover the limits.
struct ChildProcessTests {
    static func run(_ script: String, limits: ChildProcess.Limits = .init(time: .seconds(60))) async throws -> ChildProcess.Outcome {
        try await ChildProcess(executable: "/bin/sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"], limits: limits).run()
    }

    @Test func bothOutputsComeBackWithTheStatus() async throws {
        let run = try await Self.run("echo out; echo said >&2; exit 3")
        #expect(run.status == 3 && run.signal == nil && !run.succeeded)
        #expect(String(decoding: run.standardOutput, as: UTF8.self) == "out\n" && run.standardError == "said\n")
    }

    /// A megabyte on each of standard output and error, written one after the other: reading only one pipe at a
    /// time would leave the child blocked on the other, full one. Standard error keeps its last bytes.
    @Test func fullPipesOnBothSidesDoNotHang() async throws {
        let run = try await Self.run("head -c 1048576 /dev/zero >&2; head -c 1048576 /dev/zero",
                                     limits: .init(time: .seconds(60), standardOutputBytes: 2 << 20, standardErrorKept: 1000))
        #expect(run.succeeded && run.standardOutput.count == 1 << 20 && run.standardError.utf8.count == 1000)
    }

    /// A descriptor of ours left open across exec (no FD_CLOEXEC) is not the child's: it has 0, 1, 2 and what it opens.
    @Test func theChildInheritsOnlyItsThreeStreams() async throws {
        let leaked = open("/dev/null", O_RDONLY)
        defer { close(leaked) }
        #expect(leaked > 2)
        let run = try await Self.run("ls /proc/$$/fd")
        let text = String(decoding: run.standardOutput, as: UTF8.self)
        // dash opens nothing of its own; bash would add 255.
        #expect(Set(text.split(separator: "\n")).subtracting(["255"]) == ["0", "1", "2"], "\(text), ours \(leaked)")
    }

    /// serve ignores SIGPIPE; a grabber gets every signal at its default, so a closed pipe ends it as it expects.
    @Test func theChildsSignalsAreAtTheirDefaults() async throws {
        let before = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, before) }
        let run = try await ChildProcess(executable: "/bin/grep", arguments: ["^Sig\\(Ign\\|Blk\\)", "/proc/self/status"], environment: [:],
                                         limits: .init(time: .seconds(60))).run()
        // Each a mask of signals, bit n-1 for signal n; 32 and up are the C library's own, which it keeps.
        let masks = String(decoding: run.standardOutput, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) }.map { $0 & 0x7fff_ffff }
        }
        #expect(masks == [0, 0], "none of signals 1-31 blocked or ignored: \(String(decoding: run.standardOutput, as: UTF8.self))")
    }

    /// A helper left running with the child's output open does not keep the run waiting, and is ended with it: it is in
    /// the child's process group.
    @Test func whatTheChildLeavesRunningIsEnded() async throws {
        let started = ContinuousClock.now
        let run = try await Self.run("sleep 60 & echo $!")
        #expect(ContinuousClock.now - started < .seconds(50), "the run waited for the helper")
        let helper = try #require(pid_t(String(decoding: run.standardOutput, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Killed; reaped by whoever inherited it, a moment later.
        var gone = false
        for _ in 0..<100 where !gone {
            gone = kill(helper, 0) == -1 && errno == ESRCH
            if !gone { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(gone, "helper \(helper) still runs")
    }

    @Test func aMissingProgramIsAnError() async throws {
        await #expect(throws: (any Error).self) {
            try await ChildProcess(executable: "/nonexistent/program", arguments: [], environment: [:], limits: .init(time: .seconds(5))).run()
        }
    }
}

/// How the tests run a program to its end (``Program``): input in, both outputs and the status out.
struct ProgramTests {
    @Test func inputGoesInAndBothOutputsComeBackWithTheStatus() async throws {
        let run = try await Program.run("/bin/sh", arguments: ["-c", "cat; echo said >&2; exit 3"], input: Array("in\n".utf8))
        #expect(run.status == 3 && run.outputText == "in\n" && run.errorText == "said\n")
    }

    @Test func aKilledProgramEndsWithItsSignal() async throws {
        let child = RunningProgram("/bin/sleep", arguments: ["30"])
        #expect(child.isRunning)
        child.signal(SIGKILL)
        #expect(await child.exited() == 128 + SIGKILL)
        #expect(!child.isRunning)
        child.signal(SIGKILL)   // Ended: nothing is signalled again.
        #expect(await child.exited() == 128 + SIGKILL)
    }
}
