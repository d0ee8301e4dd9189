import Crypto
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import XMLTV

/// The feeds an admin cut for media servers (``LineupFeed``): each one's channels from today's broadcast day for its
/// days, written plainly or for Plex and Jellyfin (``MediaServerShape``) to a file once per version of the listings,
/// day and definition; its channels with a stream, for its playlist and its HDHomeRun tuner; and the fingerprint media
/// servers are told about. The doors serve them (the web's `/xmltv/TOKEN.xml`, the tuner ports).
public struct LineupFeeds: Sendable {
    public let store: any GuideDatabase
    public let directory: ChannelDirectory
    public let settings: ServerSettings
    public let cache: ExportCache
    /// Where the web serves the logos and artwork a feed names.
    public let links: WebLinks

    /// What the admin page warns about: reported limits of Plex's guide (an empty guide over 20 MB, a few hundred
    /// channels a tuner).
    public static let plexBytes: Int64 = 20 * 1024 * 1024
    public static let plexChannels = 480

    /// A feed as written for a request.
    public struct Built: Sendable {
        public var path: String
        public var tag: String
        public var channels: Int
        public var bytes: Int64
    }

    public init(store: any GuideDatabase, directory: ChannelDirectory, settings: ServerSettings, cache: ExportCache, links: WebLinks) {
        (self.store, self.directory, self.settings, self.cache, self.links) = (store, directory, settings, cache, links)
    }

    /// The feed `token` reads; an unknown or removed address looks like any missing page.
    public func feed(_ token: String) async throws -> LineupFeed {
        guard token.utf8.count <= 128, let feed = try await store.lineupFeed(tokenHash: TokenHash.hex(token)) else {
            throw ActionRefusal(.notFound, saying: "No such feed. Its address may have been removed on the admin page.")
        }
        return feed
    }

    /// The feed's channels that have a stream from a playlist source, in its order, each with its playlist entry.
    public func streams(of feed: LineupFeed) async throws -> [(Channel, PlaylistEntry)] {
        let snapshot = try await directory.snapshot()
        return try await channels(of: feed, in: snapshot).compactMap { channel in snapshot.playlist[channel.id].map { (channel, $0) } }
    }

    /// The feed's file for the listings as they are now, written unless it exists.
    public func build(_ feed: LineupFeed, compressed: Bool, base: String, languages: [String] = []) async throws -> Built {
        let snapshot = try await directory.snapshot()
        let channels = try await self.channels(of: feed, in: snapshot)
        let (today, window) = self.window(of: feed)
        var hasher = SHA256()
        for part in [feed.name, "\(feed.channels)", "\(feed.days)", feed.shape.rawValue, today.description, languages.joined(separator: ",")]
            + channels.map(\.id.rawValue) {
            hasher.update(data: Data(part.utf8))
            hasher.update(data: [0])
        }
        let version = "\(snapshot.generation)-" + hasher.finalize().prefix(8).map { String(format: "%02x", $0) }.joined()
        let shape = feed.shape == .mediaServer ? MediaServerShape { channel in links.logo(channel).map { base + $0 } } : nil
        let store = self.store
        let path = try await cache.file(kind: "feed\(feed.id)", version: version, variant: ImageCache.name(for: base),
                                        ending: compressed ? "xml.gz" : "xml") { path in
            try await GuideExport(store: store, artwork: links.artwork(at: base))
                .write(to: path, compressed: compressed, channels: channels, window: window, shape: shape, languages: languages)
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        // The tag names the file served (its variant too: the same listings with logos under another address differ).
        let served = URL(fileURLWithPath: path).lastPathComponent.split(separator: ".").first.map(String.init) ?? version
        return Built(path: path, tag: "\"\(served)\(compressed ? "-gz" : "")\"", channels: channels.count, bytes: bytes)
    }

    /// The feed's days: from the start of today's broadcast day (the server's zone and day start).
    public func window(of feed: LineupFeed) -> (today: BroadcastDay, window: TimeWindow) {
        let clock = ViewerClock(zone: settings.timeZone, dayStartHour: settings.dayStartHour)
        let today = clock.day(containing: settings.now())
        return (today, TimeWindow(start: today.window.start, end: today.adding(days: feed.days).window.start))
    }

    /// What a media server would read in the feed now, as a hash: its channels and every programme's id, start and
    /// end. Another import that changes none of them leaves it the same.
    public func fingerprint(of feed: LineupFeed) async throws -> String {
        let channels = try await self.channels(of: feed, in: try await directory.snapshot())
        var hasher = SHA256()
        for channel in channels { hasher.update(data: Data(channel.id.rawValue.utf8)); hasher.update(data: [0]) }
        for start in stride(from: 0, to: channels.count, by: 200) {
            let chunk = channels[start..<min(channels.count, start + 200)].map(\.id)
            for listings in try await store.guide(in: window(of: feed).window, channels: chunk, detail: .summary) {
                for programme in listings.programmes {
                    hasher.update(data: Data("\(programme.id.rawValue) \(programme.programme.start.unixSeconds) \(programme.end.unixSeconds)\n".utf8))
                }
            }
        }
        return hasher.finalize().prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The feed's channels, in guide order (a lineup's own order).
    public func channels(of feed: LineupFeed, in snapshot: ChannelDirectory.Snapshot) async throws -> [Channel] {
        switch feed.channels {
        case .lineup(let profile):
            let chosen = try await store.lineup(of: profile).compactMap(snapshot.channel)
            return chosen.isEmpty ? snapshot.listed : chosen
        case .favourites(let profile):
            let favourites = Set(try await store.favourites(of: profile))
            return snapshot.listed.filter { favourites.contains($0.id) }
        case .group(let name):
            return snapshot.members(of: name, among: snapshot.listed)
        }
    }
}
