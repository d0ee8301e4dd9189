import Foundation
import GuideThreads
import Testing

/// Memory freed in the middle of the allocator's heap stays resident until it is handed back (``Allocator/releaseFreed()``).
@Suite struct AllocatorTests {
    /// The process's resident memory, in KB (Linux).
    static func resident() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test func freedPagesGoBackToTheSystem() throws {
        // 96 MB in blocks below glibc's mmap threshold, written to, then freed but for the last: the freed ones lie
        // below a block in use, so free() alone cannot return them.
        let count = 3_072, size = 32 * 1024
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<count {
            let block = try #require(malloc(size))
            memset(block, 1, size)
            blocks.append(block)
        }
        for block in blocks.dropLast() { free(block) }
        defer { free(blocks[count - 1]) }
        let before = try Self.resident()
        Allocator.releaseFreed()
        let after = try Self.resident()
        // Other tests allocate meanwhile; most of the 96 MB still has to go.
        #expect(before - after > 48 * 1024, "resident \(before) KB -> \(after) KB")
    }
}
