import Foundation
import GuideCore
import GuideHTTP
import GuideStore
import GuideStoreBackends
import GuideThreads
import Synchronization

/// Where a test's database goes: SQLite by default; PostgreSQL when `TVGUIDE_TEST_POSTGRES` names a database
/// (`scripts/test` starts a throwaway server and runs the suite once with each store).
public enum TestDatabase {
    /// The PostgreSQL database the suite runs against, if any.
    public static var postgres: String? {
        ProcessInfo.processInfo.environment["TVGUIDE_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Which store this run tests, for messages.
    public static var kind: String { postgres == nil ? "SQLite" : "PostgreSQL" }

    /// A new, empty database's location: a schema of its own in the PostgreSQL database, or `folder/guide.sqlite`.
    /// `folder` is created either way: tests keep their other files there.
    public static func location(in folder: String) -> String {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)  // A test's scratch folder; a failure shows as the test's own.
        guard let postgres else { return folder + "/guide.sqlite" }
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        return postgres + (postgres.contains("?") ? "&" : "?") + "schema=" + schema
    }

    /// A new, empty database (see ``location(in:)``), open until released.
    public static func open(in folder: String, now: @escaping @Sendable () -> Date = GuideClock.system().now) async throws -> any GuideDatabase {
        try await open(location(in: folder), now: now)
    }

    /// The database at `location`, open until released (``openGuideDatabase(_:password:now:)``).
    public static func open(_ location: String, now: @escaping @Sendable () -> Date = GuideClock.system().now) async throws -> any GuideDatabase {
        try await openGuideDatabase(location, now: now)
    }
}

/// Runs long blocking work (processes, a reference parser) on a thread of its own and waits for it without holding a
/// thread: Swift has as many cooperative threads as cores (two here), and a test blocking one for a minute starves
/// the tests beside it (a streamed HTTP body nobody reads long enough hits its read timeout). Assert on the result
/// afterwards, in the test's own task.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingWork.run("tvguide.test") { try work() }
}

extension ListingStore {
    /// Every programme ``ListingStore/forEachProgramme(_:)`` hands over, in its order.
    public func everyProgramme() async throws -> [StoredProgramme] {
        let collected = Mutex<[StoredProgramme]>([])
        try await forEachProgramme { programme in collected.withLock { $0.append(programme) } }
        return collected.withLock { $0 }
    }
}

/// HTTP for tests: one client for the whole test process, never shut down (the process ends first), where the
/// product makes one per command or server and shuts it down.
public enum TestHTTP {
    public static let transport = AsyncHTTPTransport()
    /// With the short timeouts `serve` gives its images' client (3 s to connect there; 1 s here, where hosts are on
    /// loopback): a host that does not answer costs a test a second.
    public static let images = AsyncHTTPTransport(connectTimeout: .seconds(1), readTimeout: .seconds(10))
    /// The outbound policy as a test's admin sets it to reach the test's receivers on this machine
    /// (`allowed-hosts = loopback`). It reaches only loopback, where a closed port refuses at once, so the connect timeout
    /// only bounds reaching a receiver that is there: 10 s, as beside 89 suites on 2 cores 1 s was once too short (a
    /// reminder's webhook lost one of 60 sends).
    public static let outbound = PolicedTransport(policy: OutboundPolicy(allowances: [.loopback]), connectTimeout: .seconds(10),
                                                  readTimeout: .seconds(10))
}
