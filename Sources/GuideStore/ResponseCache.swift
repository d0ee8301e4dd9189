import Foundation

/// A web API's answers kept in the store, so the guide works offline and asks again only when an answer is stale.
public protocol ResponseCache: Sendable {
    /// The answer saved for `key` (a request's path and query), however old.
    func cachedResponse(for key: String) async throws -> CachedResponse?
    /// Saves (or replaces) the answer for `key`.
    func storeResponse(_ response: CachedResponse, for key: String) async throws
    /// Forgets the answers for `keys` and those whose keys start with any of `prefixes`; how many.
    @discardableResult
    func forgetResponses(keys: [String], prefixes: [String]) async throws -> Int
    /// Forgets answers fetched before `instant`, then the oldest until the bodies kept add up to at most `bytes`;
    /// how many were forgotten.
    @discardableResult
    func pruneResponses(fetchedBefore instant: Date, keepingAtMost bytes: Int) async throws -> Int
}

/// One saved answer: its status (200, or 404 for "there is none"), its body, and when it was fetched.
public struct CachedResponse: Sendable, Equatable {
    public var status: Int
    public var body: Data
    public var fetched: Date

    public init(status: Int, body: Data, fetched: Date) {
        self.status = status
        self.body = body
        self.fetched = fetched
    }
}
