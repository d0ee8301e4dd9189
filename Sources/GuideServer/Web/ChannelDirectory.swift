import Foundation
import GuideCore
import GuideStore
import Synchronization

/// Every channel with its place, read once per version of the listings rather than on every request: naming
/// 3,000 channels means decoding 3,000 detail blobs.
final class ChannelDirectory: Sendable {
    struct Snapshot: Sendable {
        var generation: Int64
        var channels: [Channel]
        var positions: [ChannelID: Int]
        /// The channels with listings, in guide order: the lineup of anyone who has not chosen one.
        var listed: [Channel]

        func channel(_ id: ChannelID) -> Channel? { positions[id].map { channels[$0] } }
    }

    private let store: any ListingStore
    private let cached = Mutex<Snapshot?>(nil)

    init(store: any ListingStore) {
        self.store = store
    }

    /// The channels as of the store's current version.
    func snapshot() async throws -> Snapshot {
        let generation = try await store.version().generation
        if let snapshot = cached.withLock({ $0 }), snapshot.generation == generation { return snapshot }
        let channels = try await store.channels()
        var positions: [ChannelID: Int] = [:]
        for (index, channel) in channels.enumerated() where positions[channel.id] == nil { positions[channel.id] = index }
        let listed = try await store.listedChannels().compactMap { positions[$0].map { channels[$0] } }
        let snapshot = Snapshot(generation: generation, channels: channels, positions: positions, listed: listed)
        cached.withLock { $0 = snapshot }
        return snapshot
    }
}
