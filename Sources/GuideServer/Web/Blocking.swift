import NIOPosix

/// Runs blocking work (SQLite calls, bcrypt) on NIO's thread pool, off the event loops and Swift's executor.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive(body)
}
