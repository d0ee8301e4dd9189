import Foundation
import Glibc
import GuideCore
import Testing

/// SpawnedProcess, the one way programs are started: what goes in and out, what the child inherits, how it ends.
struct SpawnTests {
    @Test func inputGoesInAndBothOutputsComeBackWithTheStatus() async throws {
        let run = try await SpawnedProcess.run("/bin/sh", arguments: ["-c", "cat; echo said >&2; exit 3"], input: Array("in\n".utf8))
        #expect(run.status == 3 && run.outputText == "in\n" && run.errorText == "said\n")
    }

    /// A megabyte on each of standard output and error, written one after the other: reading only one pipe at a
    /// time would leave the child blocked on the other, full one.
    @Test func fullPipesOnBothSidesDoNotHang() async throws {
        let run = try await SpawnedProcess.run("/bin/sh", arguments: ["-c", "head -c 1048576 /dev/zero >&2; head -c 1048576 /dev/zero"])
        #expect(run.status == 0 && run.output.count == 1 << 20 && run.errors.count == 1 << 20)
    }

    /// A descriptor of ours left open across exec (no FD_CLOEXEC) is not the child's: it has 0, 1, 2 and what it opens.
    @Test func theChildInheritsOnlyItsThreeStreams() async throws {
        let leaked = open("/dev/null", O_RDONLY)
        defer { close(leaked) }
        #expect(leaked > 2)
        let run = try await SpawnedProcess.run("/bin/sh", arguments: ["-c", "ls /proc/$$/fd"])
        // dash opens nothing of its own; bash would add 255.
        #expect(Set(run.outputText.split(separator: "\n")).subtracting(["255"]) == ["0", "1", "2"], "\(run.outputText), ours \(leaked)")
    }

    @Test func aKilledChildEndsWithItsSignalAndCannotBeSignalledOnceReaped() async throws {
        let child = try SpawnedProcess("/bin/sleep", arguments: ["30"])
        #expect(child.isRunning)
        child.signal(SIGKILL)
        #expect(await child.exited() == 128 + SIGKILL)
        #expect(!child.isRunning)
        child.signal(SIGKILL)   // Reaped: its pid is not signalled again (it may be another process's by now).
        #expect(await child.exited() == 128 + SIGKILL)
    }

    @Test func aMissingProgramIsAClearError() {
        #expect(throws: SpawnedProcess.Failure.self) { try SpawnedProcess("/nonexistent/program", arguments: []) }
    }
}
