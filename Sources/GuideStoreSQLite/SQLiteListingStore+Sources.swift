import Foundation
import GuideCore
import GuideStore

/// What SQLite's ``SourceStore`` adds to the shared scripts (SourceScripts.swift).
extension SQLiteListingStore {
    /// One process writes an SQLite guide (instances sharing a guide share PostgreSQL): the refresher's own guard is
    /// the only one needed, so the claim is always granted.
    public func withRefreshClaim<T: Sendable>(of name: SourceName, _ body: @Sendable () async throws -> T) async throws -> T? {
        try await body()
    }
}
