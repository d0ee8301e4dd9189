import Foundation
import GuideCore
import GuideStore
import Synchronization

/// Every channel with its place, as playlists describe it (number, logo; groups and stream in `playlist`) and with
/// the logo an admin chose first, read once
/// per version of the listings rather than on every request: naming 3,000 channels means decoding 3,000 detail blobs.
final class ChannelDirectory: Sendable {
    struct Snapshot: Sendable {
        var generation: Int64
        var channels: [Channel]
        var positions: [ChannelID: Int]
        /// The channels with listings, in guide order: the lineup of anyone who has not chosen one.
        var listed: [Channel]
        /// The playlist entry describing each channel (``PlaylistMatch``).
        var playlist: [ChannelID: PlaylistEntry]
        /// The logos an admin chose (already first among the channels' icons).
        var chosenLogos: [ChannelID: String]
        /// The groups an admin made, by name.
        var groups: [ChannelGroup]
        /// The group guests see until they choose another.
        var guestGroup: String?

        func channel(_ id: ChannelID) -> Channel? { positions[id].map { channels[$0] } }
    }

    private let store: any ListingStore & PlaylistStore & ChannelSettingsStore
    private let cached = Mutex<Snapshot?>(nil)
    private let readings = Mutex(0)
    /// How many times the channels were read from the store (once per version of the listings, however many ask).
    var reads: Int { readings.withLock { $0 } }

    init(store: any ListingStore & PlaylistStore & ChannelSettingsStore) {
        self.store = store
    }

    /// The channels as of the store's current version.
    func snapshot() async throws -> Snapshot {
        let generation = try await store.version().generation
        if let snapshot = cached.withLock({ $0 }), snapshot.generation == generation { return snapshot }
        readings.withLock { $0 += 1 }
        let stored = try await store.channels()
        let playlist = try await PlaylistMatch.read(store, for: stored).entries
        let chosenLogos = try await store.channelLogos()
        let channels = stored.map { $0.described(by: playlist[$0.id]).withLogo(chosenLogos[$0.id]) }
        var positions: [ChannelID: Int] = [:]
        for (index, channel) in channels.enumerated() where positions[channel.id] == nil { positions[channel.id] = index }
        let listed = try await store.listedChannels().compactMap { positions[$0].map { channels[$0] } }
        let snapshot = Snapshot(generation: generation, channels: channels, positions: positions, listed: listed, playlist: playlist,
                                chosenLogos: chosenLogos, groups: try await store.channelGroups(), guestGroup: try await store.guestGroup())
        cached.withLock { $0 = snapshot }
        return snapshot
    }
}
