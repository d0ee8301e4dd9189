import Foundation
#if canImport(CMalloc)
import CMalloc
#endif

/// What serve asks of glibc's allocator, which keeps the memory a process frees for its next allocations and counts it
/// in the process's resident memory. Elsewhere, nothing to do.
public enum Allocator {
    /// How often serve hands freed memory back (``releaseFreed()``): a trim takes a few milliseconds at 1.75 M programmes.
    public static let releaseInterval: Duration = .seconds(30)

    /// glibc gives each thread that allocates an arena of its own (up to 8 a core) and keeps what is freed in each: a
    /// server whose requests hop between NIO's, Swift's, GRDB's and the import's threads grew by about 1.2 MB a minute
    /// for 30 minutes of the soak (200 to 273 MB). With 2 arenas (as MALLOC_ARENA_MAX=2 does) a 10-minute soak of the
    /// same traffic stayed at 135-149 MB. Call before the server's threads start; the environment variable still wins.
    public static func useFewerArenas() {
        #if canImport(CMalloc)
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        _ = mallopt(M_ARENA_MAX, 2)
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
