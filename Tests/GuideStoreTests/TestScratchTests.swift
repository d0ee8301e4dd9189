import Foundation
@testable import StoreTestSupport
import TestReceivers
import Testing

@Suite struct TestScratchTests {
    /// Only the folder of a process that has gone is removed: not this process's, not a live one's, and not one whose
    /// number is no process id (0 and -1 mean whole groups to `kill`; others do not fit a pid).
    @Test func onlyTheFoldersOfProcessesThatHaveGoneAreRemoved() async throws {
        let temporary = TestScratch.folder("scratch-of-scratch")
        // A shell that says its own process id and ends: by the time `run` returns, that process has gone.
        let shell = try await Program.run("/bin/sh", arguments: ["-c", "echo $$"])
        let gone = try #require(Int32(shell.outputText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let kept = ["0", "-1", "9223372036854775807", "1e308", "nan", "", "x", String(getpid()), "1"]
        for name in kept + [String(gone)] {
            try FileManager.default.createDirectory(atPath: temporary + "/" + TestScratch.rootPrefix + name,
                                                    withIntermediateDirectories: true)
        }
        TestScratch.removeAbandoned(in: temporary)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: temporary))
        #expect(left == Set(kept.map { TestScratch.rootPrefix + $0 }))
    }
}
