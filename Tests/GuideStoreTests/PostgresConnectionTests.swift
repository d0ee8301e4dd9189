import Foundation
import GuideCore
import GuideStore
@testable import GuideStorePostgres
import StoreTestSupport
import Testing

/// TLS to PostgreSQL and passwords kept off the command line. The throwaway server of `scripts/test` offers TLS with
/// a self-signed certificate for 127.0.0.1 (TVGUIDE_TEST_POSTGRES_CA); these run only on PostgreSQL.
@Suite(.enabled(if: TestDatabase.postgres != nil)) struct PostgresConnectionTests {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-tls").path

    @Test func addressesReadTheirTLSModeAndKeepPasswordsOutOfMessages() throws {
        let location = try PostgresLocation(url: "postgres://tv%40guide:s%3Acret@db.example:6543/guide?schema=g&sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(location.user == "tv@guide" && location.password == "s:cret")
        #expect(location.tls == .verifyFull && location.rootCertificate == "/etc/ca.pem")
        #expect(location.description == "postgres://tv@guide@db.example:6543/guide?schema=g&sslmode=verify-full")
        #expect(throws: StoreError.self) { try PostgresLocation(url: "postgres://u@h/db?sslmode=prefer") }
    }

    /// Every connection leaves out JIT compilation (the import's statements paid 0.2-0.3 s each for it) and keeps to
    /// its own schema.
    @Test func connectionsCompileNoQueries() async throws {
        let store = try #require(try await TestDatabase.open(in: Self.folder) as? PostgresListingStore)
        let (jit, path) = try await store.pool.withConnection { link in
            (try await link.value("SHOW jit", as: String.self), try await link.value("SHOW search_path", as: String.self))
        }
        #expect(jit == "off")
        #expect(path?.hasPrefix("t_") == true, "\(path ?? "none")")
    }

    @Test func requireEncryptsAndVerifyFullChecksTheCertificate() async throws {
        let base = TestDatabase.location(in: Self.folder)
        // Encrypted, certificate not checked.
        let required = try await TestDatabase.open(base + "&sslmode=require")
        #expect(try await required.channels().isEmpty)
        // Checked against the system's authorities: a self-signed certificate is refused, saying why.
        do {
            _ = try await TestDatabase.open(base + "&sslmode=verify-full").channels()
            Issue.record("a self-signed certificate was accepted")
        } catch {
            #expect("\(error)".lowercased().contains("certificate"), "\(error)")
        }
        // Checked against the server's own certificate as the authority: accepted.
        if let ca = ProcessInfo.processInfo.environment["TVGUIDE_TEST_POSTGRES_CA"] {
            let verified = try await TestDatabase.open(base + "&sslmode=verify-full&sslrootcert=\(ca)")
            #expect(try await verified.channels().isEmpty)
        }
        await #expect(throws: StoreError.self) { try await TestDatabase.open(base + "&sslmode=verify-full&sslrootcert=/nonexistent.pem") }
    }
}
