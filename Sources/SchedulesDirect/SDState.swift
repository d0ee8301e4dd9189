import Foundation
import GuideCore
import GuideStore

/// What a Schedules Direct client keeps between calls and across restarts, per account: the token and when it
/// expires, the locks in force (each code's stop: API-NOTES.md section 6), and the lineup changes left today. Kept
/// under a fingerprint of the account's credentials, so new credentials start with no token and no lock.
public struct SDState: Codable, Sendable, Equatable {
    public enum Scope: String, Codable, Sendable {
        /// Every call.
        case everything
        /// Images.
        case images
        /// Adding and removing lineups.
        case lineupChanges
    }

    public struct Lock: Codable, Sendable, Equatable {
        public var code: Int
        /// Why, as ``Sentence/stored`` keeps it (SD's words verbatim, or ours to be worded for each reader).
        public var reason: String
        public var sentence: Sentence { SDCode(rawValue: code).explained(Sentence(stored: reason)) }
        /// Nil: until the credentials change.
        public var until: Date?
    }

    public var token: String?
    public var tokenExpires: Date?
    public var locks: [Scope: Lock] = [:]
    /// From the last lineup change's answer, and the UTC day it was given.
    public var changesRemaining: Int?
    public var changesDay: String?
    /// Image calls (`metadata/programs/` and `image/`) made on the UTC day `imageCallsDay`.
    public var imageCalls: Int?
    public var imageCallsDay: String?
    /// Images SD answered 5000 for (hashes of their URIs, the latest ``mostMissingImages``): never asked again, as SD
    /// blocks a client that keeps asking (5004).
    public var missingImages: [String]?

    public static let mostMissingImages = 1_000

    public init() {}

    /// The lock on `scope` (or on everything) still in force at `instant`.
    public func lock(on scope: Scope, at instant: Date) -> Lock? {
        for key in [Scope.everything, scope] {
            if let lock = locks[key], lock.until.map({ $0 > instant }) ?? true { return lock }
        }
        return nil
    }
}

/// Where ``SDState`` is kept.
public protocol SDStateStore: Sendable {
    func load(_ key: String) async throws -> SDState?
    func save(_ state: SDState, _ key: String) async throws
}

/// ``SDState`` in the store's answer cache, shared by every instance on the database.
public struct StoredSDState: SDStateStore {
    let cache: any ResponseCache
    let now: @Sendable () -> Date

    public init(cache: any ResponseCache, now: @escaping @Sendable () -> Date) {
        (self.cache, self.now) = (cache, now)
    }

    public func load(_ key: String) async throws -> SDState? {
        guard let saved = try await cache.cachedResponse(for: "schedulesdirect/state/" + key) else { return nil }
        return try? JSONDecoder().decode(SDState.self, from: saved.body)
    }

    public func save(_ state: SDState, _ key: String) async throws {
        try await cache.storeResponse(CachedResponse(status: 200, body: try JSONEncoder().encode(state), fetched: now()),
                                      for: "schedulesdirect/state/" + key)
    }
}
