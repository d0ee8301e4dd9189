import Foundation
import GuideCore
import GuideIngest
import GuideStore
import StoreTestSupport
import TestReceivers
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
        try await rig.add("feed", "/feed.xml")
        let other = try await TestDatabase.open(rig.fixture.location)
        let otherRefresher = SourceRefresher(store: other, transport: rig.transport, policy: RefreshTests.Rig.quickPolicy, now: { Date() }, clock: ContinuousClock())

        let server = rig.server
        let refused = try await rig.fixture.store.withRefreshClaim(of: SourceName("feed")) { () -> SourceReport? in
            #expect(try await other.withRefreshClaim(of: SourceName("feed")) { true } == nil)
            return try await otherRefresher.refresh([SourceName("feed")]).first
        }
        #expect(refused??.outcome == .alreadyRunning)
        #expect(refused??.error == "being refreshed by another tvguide instance")
        #expect(server.requests(to: "/feed.xml").isEmpty)
        #expect(try await other.sources().first?.lastAttempt == nil)

        // The claim ended with its body: the other instance refreshes now.
        let report = try #require(try await otherRefresher.refresh([SourceName("feed")]).first)
        #expect(report.outcome == .imported)
        #expect(report.programmes > 0)
        #expect(rig.server.requests(to: "/feed.xml").count == 1)
        // The first instance sees the other's refresh: its listings and its record.
        #expect(try await rig.fixture.store.counts().programmes == report.programmes)
        #expect(try await rig.fixture.store.sources().first?.lastOutcome == .imported)
        // And the claim went with the refresh: the first instance can take it again.
        #expect(try await rig.fixture.store.withRefreshClaim(of: SourceName("feed")) { true } == true)
    }

    /// A sign-in on one instance is valid on every other; signing out on one ends it on all.
    @Test func sessionsAreSharedBetweenInstances() async throws {
        let fixture = try await IngestFixture()
        let other = try await TestDatabase.open(fixture.location)
        let profile = try await fixture.store.createProfile(name: "Sam", role: .admin, secretKind: .pin, secretHash: "hash")
        let now = Date(timeIntervalSince1970: 1_771_187_400)
        try await fixture.store.createSession(tokenHash: "token-hash", for: profile.id, at: now, expires: now.addingTimeInterval(3600))
        #expect(try await other.sessionProfile(tokenHash: "token-hash", at: now.addingTimeInterval(60))?.name == "Sam")
        try await other.deleteSession(tokenHash: "token-hash")
        #expect(try await fixture.store.sessionProfile(tokenHash: "token-hash", at: now.addingTimeInterval(60)) == nil)
    }

    /// The first instances on a new database create its extension and tables once, in turn: six stores opened at
    /// once, each in a schema of its own (two first runs used to collide on CREATE EXTENSION).
    @Test(.enabled(if: TestDatabase.postgres != nil)) func instancesStartingTogetherOnANewDatabaseTakeTurns() async throws {
        let server = try #require(TestDatabase.postgres.flatMap(URLComponents.init(string:)))
        let name = "tvguide_start_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let create = try await Program.run("/usr/bin/psql", arguments: [server.string ?? "", "-qc", "CREATE DATABASE \(name)"])
        try #require(create.status == 0, "psql could not create the database: \(create.errorText)")
        var components = server
        components.path = "/" + name
        let fresh = components.string ?? ""
        let failures = await withTaskGroup(of: String?.self) { group in
            for index in 0..<6 {
                group.addTask {
                    do {
                        _ = try await TestDatabase.open(fresh + "?schema=s\(index)")
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
        }
        #expect(failures.isEmpty)
    }
}
