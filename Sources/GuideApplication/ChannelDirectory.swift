import Foundation
import GuideCore
import GuideStore
import Synchronization

/// Every channel with its place, as playlists describe it (number, logo; groups and stream in `playlist`) and with
/// the logo an admin chose first, read once
/// per version of the listings rather than on every request: naming 3,000 channels means decoding 3,000 detail blobs.
public final class ChannelDirectory: Sendable {
    public struct Snapshot: Sendable {
        public var generation: Int64
        public var channels: [Channel]
        public var positions: [ChannelID: Int]
        /// The channels with listings, in guide order: the lineup of anyone who has not chosen one.
        public var listed: [Channel]
        /// The playlist entry describing each channel (``PlaylistMatch``).
        public var playlist: [ChannelID: PlaylistEntry]
        /// The logos an admin chose (already first among the channels' icons).
        public var chosenLogos: [ChannelID: String]
        /// The groups an admin made, by name.
        public var groups: [ChannelGroup]
        /// The group guests see until they choose another.
        public var guestGroup: String?
        /// When the guide is the bundled sample a first run imported: the whole weeks it was moved by (0: not moved).
        public var sampleWeeks: Int?

        public func channel(_ id: ChannelID) -> Channel? { positions[id].map { channels[$0] } }

        /// `channels` in the hand-made or playlist group `group`, in their order.
        public func members(of group: String, among channels: [Channel]) -> [Channel] {
            let members = Set(groups.first { $0.name == group }?.channels ?? [])
            return channels.filter { members.contains($0.id) || playlist[$0.id]?.groups.contains(group) == true }
        }
    }

    private let store: any ListingStore & PlaylistStore & ChannelSettingsStore
    private let cached = Mutex<Snapshot?>(nil)
    private let readings = Mutex(0)
    /// How many times the channels were read from the store (once per version of the listings, however many ask).
    public var reads: Int { readings.withLock { $0 } }

    public init(store: any ListingStore & PlaylistStore & ChannelSettingsStore) {
        self.store = store
    }

    /// The channels as of the store's current version.
    public func snapshot() async throws -> Snapshot {
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
                                chosenLogos: chosenLogos, groups: try await store.channelGroups(), guestGroup: try await store.guestGroup(),
                                sampleWeeks: try await store.guideSetting(GuideSettingName.sample).flatMap { Int($0) })
        cached.withLock { $0 = snapshot }
        return snapshot
    }
}
