import Foundation
#if canImport(CMalloc)
import CMalloc
#endif

/// What serve asks of glibc's allocator, which keeps the memory a process frees for its next allocations and counts it
/// in the process's resident memory. Elsewhere, nothing to do.
public enum Allocator {
    /// How often serve hands freed memory back (``releaseFreed()``): a trim takes a few milliseconds at 1.75 M programmes.
    public static let releaseInterval: Duration = .seconds(30)

    /// A block of at least this many bytes gets a mapping of its own, handed back to the system when it is freed.
    /// glibc's own threshold starts at 128 KB and rises to the largest such block freed (up to 32 MB): after the
    /// first 4 MB `/api/now` of 10,000 channels was freed, the next ones came from the heap, and each left its freed
    /// pages resident between live ones until the next trim. Fixed, the threshold stays where it is set: serve of
    /// the 1.75 M guide on PostgreSQL held 116-124 MB after its first grid page rather than 146-149, 178-182 MB after
    /// six fresh `/api/now`s and a trim rather than 183-189, and the highest reading between trims fell from 242-246
    /// to 191-196 MB (docs/performance.md); the pages took no longer.
    public static let ownMappingFrom = 256 << 10

    /// Sets glibc's allocator up for a long-running server; call before the server's threads start. The environment's
    /// `MALLOC_ARENA_MAX` and `MALLOC_MMAP_THRESHOLD_` still win.
    ///
    /// glibc gives each thread that allocates an arena of its own (up to 8 a core) and keeps what is freed in each: a
    /// server whose requests hop between NIO's, Swift's, GRDB's and the import's threads grew by about 1.2 MB a minute
    /// for 30 minutes of the soak (200 to 273 MB). With 2 arenas (as MALLOC_ARENA_MAX=2 does) a 10-minute soak of the
    /// same traffic stayed at 135-149 MB. Large blocks are mapped on their own (``ownMappingFrom``).
    public static func tuneForServing() {
        #if canImport(CMalloc)
        let environment = ProcessInfo.processInfo.environment
        if environment["MALLOC_ARENA_MAX"] == nil { _ = mallopt(M_ARENA_MAX, 2) }
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil { _ = mallopt(M_MMAP_THRESHOLD, Int32(ownMappingFrom)) }
        #endif
    }

    /// Hands back every whole page the allocator holds free, in every arena: a 4 MB `/api/now` or a schedule reloaded
    /// after an import leaves freed pages between live ones, resident until reused (serve, browsed for half an hour
    /// at 1.75 M programmes: 261 -> 218 MB after one trim).
    public static func releaseFreed() {
        #if canImport(CMalloc)
        _ = malloc_trim(0)
        #endif
    }
}
