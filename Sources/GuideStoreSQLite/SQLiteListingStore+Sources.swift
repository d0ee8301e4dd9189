import Foundation
import GuideCore
import GuideStore

/// The shared scripts (``SourceScripts``) in SQLite's transactions and reads.
extension SQLiteListingStore {
    public func sources() async throws -> [SourceStatus] {
        try await reading { try await SourceScripts.sources($0) }
    }

    public func addSource(_ definition: SourceDefinition) async throws {
        try await transaction { try await SourceScripts.add(definition, $0) }
    }

    public func updateSource(_ definition: SourceDefinition) async throws {
        try await transaction { try await SourceScripts.update(definition, $0) }
    }

    public func removeSource(_ name: SourceName) async throws -> Int {
        try await transaction { try await SourceScripts.remove(name, $0) }
    }

    public func sourceChannels(of name: SourceName) async throws -> [SourceChannel] {
        try await reading { try await SourceScripts.channels(of: name, $0) }
    }

    public func chooseSourceChannels(_ channels: [SourceChannel], of name: SourceName) async throws {
        try await transaction { try await SourceScripts.choose(channels, of: name, $0) }
    }

    public func recordOffer(_ offered: [OfferedChannel], of name: SourceName, at instant: Date,
                            complete: Bool) async throws -> ChannelPlan {
        try await transaction { try await SourceScripts.recordOffer(offered, of: name, at: instant, complete: complete, $0) }
    }

    public func validators(of name: SourceName) async throws -> [String: HTTPValidators] {
        try await reading { try await SourceScripts.validators(of: name, $0) }
    }

    public func recordRefreshStart(of name: SourceName, at instant: Date) async throws {
        try await transaction { try await SourceScripts.recordRefreshStart(of: name, at: instant, $0) }
    }

    public func recordRefresh(_ record: RefreshRecord, of name: SourceName) async throws {
        try await transaction { try await SourceScripts.recordRefresh(record, of: name, $0) }
    }

    /// One process writes an SQLite guide (instances sharing a guide share PostgreSQL): the refresher's own guard is
    /// the only one needed, so the claim is always granted.
    public func withRefreshClaim<T: Sendable>(of name: SourceName, _ body: @Sendable () async throws -> T) async throws -> T? {
        try await body()
    }
}
