import Foundation
import GuideStore
import Testing

/// The TVmaze answer cache has an age and a size: guests' searches each store an answer, and must not fill the disk.
@Suite struct ResponseCacheTests {
    @Test func pruningForgetsTheOldAndThenTheOldestPastTheSize() async throws {
        let store = try await StoreFixture().store
        let t0 = Date(timeIntervalSince1970: 1_771_185_600)
        for index in 0..<10 {
            try await store.storeResponse(CachedResponse(status: 200, body: Data(repeating: 1, count: 1000), fetched: t0.addingTimeInterval(Double(index) * 60)),
                                    for: "/search/shows?q=\(index)")
        }
        // Older than the 2nd minute: 2 answers; then keep 5,000 bytes: the 5 newest.
        #expect(try await store.pruneResponses(fetchedBefore: t0.addingTimeInterval(120), keepingAtMost: 5_000) == 5)
        #expect(try await store.cachedResponse(for: "/search/shows?q=4") == nil)
        #expect(try await store.cachedResponse(for: "/search/shows?q=5") != nil)
        #expect(try await store.cachedResponse(for: "/search/shows?q=9") != nil)
        #expect(try await store.pruneResponses(fetchedBefore: t0, keepingAtMost: 5_000) == 0)
    }
}
