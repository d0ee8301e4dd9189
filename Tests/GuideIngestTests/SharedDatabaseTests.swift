import Foundation
import GuideCore
import GuideIngest
import GuideStore
import StoreTestSupport
import Synchronization
import Testing

/// Several tvguide instances on one database, as behind a load balancer: each test opens a second store on the
/// fixture's database, as a second `serve` process would.
@Suite struct SharedDatabaseTests {
    /// While one instance refreshes a source, another asked to refresh it downloads nothing and says why; once the
    /// first lets go, the other refreshes it. PostgreSQL only: an SQLite guide has one process.
    @Test(.enabled(if: TestDatabase.postgres != nil)) func oneInstanceRefreshesASourceAtATime() async throws {
        let rig = try await RefreshTests.Rig()
        defer { Task { try await rig.close() } }
        rig.server.script("/feed.xml", .file(RefreshTests.small), .file(RefreshTests.small))
        try rig.add("feed", "/feed.xml")
        let other = try openGuideDatabase(rig.fixture.location)
        let otherRefresher = SourceRefresher(store: other, transport: rig.transport, policy: RefreshTests.Rig.quickPolicy)

        let claim = try #require(try rig.fixture.store.claimRefresh(of: SourceName("feed")))
        #expect(try other.claimRefresh(of: SourceName("feed")) == nil)
        let refused = try #require(try await otherRefresher.refresh([SourceName("feed")]).first)
        #expect(refused.outcome == .alreadyRunning)
        #expect(refused.error == "being refreshed by another tvguide instance")
        #expect(rig.server.requests(to: "/feed.xml").isEmpty)
        #expect(try other.sources().first?.lastAttempt == nil)

        claim.release()
        let report = try #require(try await otherRefresher.refresh([SourceName("feed")]).first)
        #expect(report.outcome == .imported)
        #expect(report.programmes > 0)
        #expect(rig.server.requests(to: "/feed.xml").count == 1)
        // The first instance sees the other's refresh: its listings and its record.
        #expect(try rig.fixture.store.counts().programmes == report.programmes)
        #expect(try rig.fixture.store.sources().first?.lastOutcome == .imported)
        // And the claim went with the refresh: the first instance can take it again.
        let again = try #require(try rig.fixture.store.claimRefresh(of: SourceName("feed")))
        again.release()
    }

    /// A sign-in on one instance is valid on every other; signing out on one ends it on all.
    @Test func sessionsAreSharedBetweenInstances() throws {
        let fixture = try IngestFixture()
        let other = try openGuideDatabase(fixture.location)
        let profile = try fixture.store.createProfile(name: "Sam", role: .admin, secretKind: .pin, secretHash: "hash")
        let now = Date(timeIntervalSince1970: 1_771_187_400)
        try fixture.store.createSession(tokenHash: "token-hash", for: profile.id, at: now, expires: now.addingTimeInterval(3600))
        #expect(try other.sessionProfile(tokenHash: "token-hash", at: now.addingTimeInterval(60))?.name == "Sam")
        try other.deleteSession(tokenHash: "token-hash")
        #expect(try fixture.store.sessionProfile(tokenHash: "token-hash", at: now.addingTimeInterval(60)) == nil)
    }

    /// The first instances on a new database create its extension and tables once, in turn: six stores opened at
    /// once, each in a schema of its own (two first runs used to collide on CREATE EXTENSION).
    @Test(.enabled(if: TestDatabase.postgres != nil)) func instancesStartingTogetherOnANewDatabaseTakeTurns() throws {
        let server = try #require(TestDatabase.postgres.flatMap(URLComponents.init(string:)))
        let name = "tvguide_start_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let create = Process()
        create.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        create.arguments = [server.string ?? "", "-qc", "CREATE DATABASE \(name)"]
        try create.run()
        create.waitUntilExit()
        try #require(create.terminationStatus == 0, "psql could not create the database")
        var components = server
        components.path = "/" + name
        let fresh = components.string ?? ""
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            do {
                _ = try openGuideDatabase(fresh + "?schema=s\(index)")
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
    }
}
