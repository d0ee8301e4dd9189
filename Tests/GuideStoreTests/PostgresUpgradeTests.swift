import Foundation
import GuideCore
import GuideStore
import GuideStorePostgres
import StoreTestSupport
import TestReceivers
import Testing

/// A PostgreSQL guide made by the last release upgrades to today's schema and keeps what it held (issue 42, point 8),
/// as `UpgradeTests` shows for SQLite. `Fixtures/guide-postgres-v23.sql` is what `pg_dump` wrote of a guide that
/// `writeTheFixture` made with the migrations of 016c13c (PostgreSQL's last is v23), its schema renamed
/// `tvguide_fixture` and psql's `\restrict` lines left out (psql before 15.14 does not know them);
/// the test loads it with `psql` into a schema of its own and opens that with today's code.
@Suite(.enabled(if: TestDatabase.postgres != nil, "needs PostgreSQL (TVGUIDE_TEST_POSTGRES; scripts/test's second run)"))
struct PostgresUpgradeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/guide-postgres-v23.sql")
    /// The schema's name in the fixture, replaced by the test's own.
    static let fixtureSchema = "tvguide_fixture"

    /// A PostgreSQL client program: on the PATH, or beside the server `scripts/postgres` runs.
    static func tool(_ name: String) throws -> String {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
        let servers = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted().reversed()
            .map { "/usr/lib/postgresql/\($0)/bin/\(name)" }
        return try #require((path + servers).first { FileManager.default.isExecutableFile(atPath: $0) }, "no \(name) (apt-get install postgresql)")
    }

    /// Runs a PostgreSQL client program and returns what it printed, failing the test on a non-zero exit.
    static func run(_ name: String, _ arguments: [String]) async throws -> String {
        let run = try await Program.run(try tool(name), arguments: arguments)
        #expect(run.status == 0, "\(name) failed: \(run.errorText)")
        return run.outputText
    }

    /// The schema a test location names.
    static func schema(of location: String) throws -> String {
        try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "schema" }?.value)
    }

    /// Writes the fixture at `TVGUIDE_WRITE_POSTGRES_UPGRADE_FIXTURE` with this code's schema: a guide filled as
    /// `UpgradeTests.fill` does, dumped as plain SQL (INSERTs, no owners or grants) with its schema renamed.
    /// Before the next PostgreSQL migration is added, write it again (named by its version).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TVGUIDE_WRITE_POSTGRES_UPGRADE_FIXTURE"] != nil, "writes the fixture when asked"))
    func writeTheFixture() async throws {
        let path = try #require(ProcessInfo.processInfo.environment["TVGUIDE_WRITE_POSTGRES_UPGRADE_FIXTURE"])
        let server = try #require(TestDatabase.postgres)
        let location = TestDatabase.location(in: TestScratch.folder("tvguide-upgrade"))
        do {
            let store = try await TestDatabase.open(location, now: { UpgradeTests.evening })
            try await UpgradeTests.fill(store)
        }
        let schema = try Self.schema(of: location)
        let dump = try await Self.run("pg_dump", ["--dbname=\(server)", "--schema=\(schema)", "--inserts", "--no-owner", "--no-privileges",
                                                  "--no-comments", "--no-tablespaces"])
        let lines = dump.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("\\restrict") && !$0.hasPrefix("\\unrestrict") }
        try lines.joined(separator: "\n").replacingOccurrences(of: schema, with: Self.fixtureSchema).write(toFile: path, atomically: true, encoding: .utf8)
        _ = try await Self.run("psql", ["--dbname=\(server)", "-v", "ON_ERROR_STOP=1", "-q", "-c", "DROP SCHEMA \(schema) CASCADE"])
    }

    @Test func aGuideOfTheLastReleaseUpgradesAndKeepsItsData() async throws {
        let server = try #require(TestDatabase.postgres)
        let folder = FileManager.default.temporaryDirectory.path + "/tvguide-upgrade-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }  // Scratch.
        // The trigram extension is database-wide: today's migrations create it (under their lock) before the fixture needs it.
        _ = try await TestDatabase.open(in: folder, now: { UpgradeTests.evening })

        // Given the guide the last release made, in a schema of its own.
        let location = TestDatabase.location(in: folder)
        let schema = try Self.schema(of: location)
        let dump = try String(contentsOf: Self.fixture, encoding: .utf8)
        #expect(dump.contains("CREATE SCHEMA \(Self.fixtureSchema);"))
        let script = folder + "/guide.sql"
        try dump.replacingOccurrences(of: Self.fixtureSchema, with: schema).write(toFile: script, atomically: true, encoding: .utf8)
        _ = try await Self.run("psql", ["--dbname=\(server)", "-v", "ON_ERROR_STOP=1", "-q", "-f", script])
        let query = { (sql: String) in try await Self.run("psql", ["--dbname=\(server)", "-At", "-c", sql]).split(separator: "\n").map(String.init) }
        let before = try await query("SELECT name FROM \(schema).schema_migration ORDER BY name")
        let runsBefore = try await query("SELECT id FROM \(schema).import_run ORDER BY id").compactMap { Int64($0) }
        #expect(before.contains("v23: a profile's language and clock"))
        #expect(!runsBefore.isEmpty)

        // When today's code opens it.
        let store = try #require(try await TestDatabase.open(location, now: { UpgradeTests.evening }) as? PostgresListingStore)

        // Then every migration it had is still recorded, any since are applied, and everything it held is there.
        let after = try await store.reading { try await $0.column("SELECT name FROM schema_migration ORDER BY name", as: String.self) }
        #expect(Set(before).isSubset(of: after))
        try await UpgradeTests.expectEverythingKept(in: store, runsBefore: runsBefore)
        _ = try await Self.run("psql", ["--dbname=\(server)", "-q", "-c", "DROP SCHEMA \(schema) CASCADE"])
    }
}
