import Crypto
import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import Hummingbird
import XMLTV

/// `/xmltv/TOKEN.xml` and `/xmltv/TOKEN.xml.gz`: a feed an admin cut for one media server (``LineupFeed``): its
/// channels from today's broadcast day for its days, written plainly or for Plex and Jellyfin (``MediaServerShape``).
/// The token in the address only reads this feed. Written to a file once per version of the listings, day and
/// definition, and served from it with `ETag` and `Last-Modified`. `/xmltv/TOKEN.m3u` is the same channels as an M3U
/// playlist for IPTV players (``M3UWriter``): those with a stream from a playlist source, naming the feed as their guide.
struct LineupFeeds: Sendable {
    let store: any GuideDatabase
    let directory: ChannelDirectory
    let settings: ServerSettings
    let cache: ExportCache

    /// What the admin page warns about: reported limits of Plex's guide (an empty guide over 20 MB, a few hundred
    /// channels a tuner).
    static let plexBytes: Int64 = 20 * 1024 * 1024
    static let plexChannels = 480

    /// A feed as written for a request.
    struct Built: Sendable {
        var path: String
        var tag: String
        var channels: Int
        var bytes: Int64
    }

    func register(on routes: RouteGroups) {
        routes.open.get(.lineupFeed) { request, context in try await serve(request, context) }
        routes.open.get(.tuner) { request, context in
            let token = context.parameters.get("token") ?? ""
            let feed = try await feed(token)
            // The device's base: the path with an empty file, its closing slash left out.
            let base = settings.publicAddress(for: request, local: context.local) + SitePath.tuner(token, "").dropLast()
            return try await tuner(HDHomeRunDevice(feed: feed, base: base), of: feed, file: context.parameters.get("file") ?? "", request)
        }
    }

    private func serve(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let file = context.parameters.get("file") ?? ""
        if file.hasSuffix(".m3u") { return try await playlist(token: String(file.dropLast(4)), request, context) }
        let compressed = file.hasSuffix(".xml.gz")
        guard compressed || file.hasSuffix(".xml") else { throw HTTPError(.notFound) }
        let token = String(file.dropLast(compressed ? 7 : 4))
        let feed = try await feed(token)
        let version = try await store.version()
        let built = try await build(feed, compressed: compressed, base: settings.publicAddress(for: request, local: context.local),
                                    languages: Self.languages(request))
        var headers: HTTPFields = [.eTag: built.tag, .cacheControl: "no-cache",
                                   .contentType: compressed ? "application/gzip" : "application/xml; charset=utf-8"]
        if let updated = version.updated { headers[.lastModified] = HTTPDate.format(updated) }
        if XMLTVFeed.isUnchanged(request, tag: built.tag, updated: nil) { return Response(status: .notModified, headers: headers) }
        if compressed { headers[.contentDisposition] = "attachment; filename=\"tvguide.xml.gz\"" }
        return Response(status: .ok, headers: headers, body: try await FileIO().loadFile(path: built.path, context: context))
    }

    /// The feed `token` reads; an unknown or removed address looks like any missing page.
    private func feed(_ token: String) async throws -> LineupFeed {
        guard token.utf8.count <= 128, let feed = try await store.lineupFeed(tokenHash: Accounts.digest(token)) else {
            throw Refusal(.notFound, saying: "No such feed. Its address may have been removed on the admin page.")
        }
        return feed
    }

    /// `/xmltv/TOKEN.m3u`: the feed's channels that have a stream, in its order, each named by the id, number and name
    /// its XMLTV gives it, with tvguide's cached logo; the source playlist's groups, catch-up and options as it gave them.
    private func playlist(token: String, _ request: Request, _ context: some GuideContext) async throws -> Response {
        let feed = try await feed(token)
        let base = settings.publicAddress(for: request, local: context.local)
        let items = try await streams(of: feed).map { channel, entry in
            M3UWriter.Item(guideID: channel.id.rawValue, number: channel.number, name: channel.name,
                           logo: ChannelLogos.address(of: channel).map { base + $0 }, entry: entry)
        }
        let text = M3UWriter().playlist(items, guide: base + SitePath.lineupFeed("\(token).xml"))
        return CompressibleBody.response(Array(text.utf8), for: request,
                                         headers: [.contentType: "audio/x-mpegurl; charset=utf-8", .cacheControl: "no-cache"])
    }

    /// An answer of the feed's HDHomeRun tuner (``HDHomeRunDevice``), at `/hdhomerun/TOKEN/` for Jellyfin, Emby and
    /// Channels, and at the root of the feed's own tuner port for Plex (``TunerPorts``).
    func tuner(_ device: HDHomeRunDevice, of feed: LineupFeed, file: String, _ request: Request) async throws -> Response {
        let json: any Encodable
        switch file {
        case "discover.json": json = device.discovery
        case "lineup_status.json": json = HDHomeRunDevice.LineupStatus()
        case "lineup.json":
            json = HDHomeRunDevice.lineup(try await streams(of: feed).map { channel, entry in
                (number: channel.number ?? entry.number, name: channel.name, stream: entry.stream)
            })
        case "device.xml":
            return Response(status: .ok, headers: [.contentType: "application/xml; charset=utf-8", .cacheControl: "no-cache"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: device.deviceDescription)))
        default: throw HTTPError(.notFound)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return CompressibleBody.response(Array(try encoder.encode(json)), for: request,
                                         headers: [.contentType: "application/json", .cacheControl: "no-cache"])
    }

    /// The feed's channels that have a stream from a playlist source, in its order, each with its playlist entry.
    func streams(of feed: LineupFeed) async throws -> [(Channel, PlaylistEntry)] {
        let snapshot = try await directory.snapshot()
        return try await channels(of: feed, in: snapshot).compactMap { channel in snapshot.playlist[channel.id].map { (channel, $0) } }
    }

    /// The feed's file for the listings as they are now, written unless it exists.
    /// `?lang=de,en`: the languages whose titles and descriptions come first in the feed, for a media server that
    /// shows the first (8 at most; anything else in it is left out).
    static func languages(_ request: Request) -> [String] {
        (QueryParameters(request: request).string("lang") ?? "").split(separator: ",").prefix(8)
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter(LocalizedText.isLanguageTag)
    }

    func build(_ feed: LineupFeed, compressed: Bool, base: String, languages: [String] = []) async throws -> Built {
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
        let shape = feed.shape == .mediaServer ? MediaServerShape { channel in ChannelLogos.address(of: channel).map { base + $0 } } : nil
        let store = self.store
        let path = try await cache.file(kind: "feed\(feed.id)", version: version, variant: ImageCache.name(for: base),
                                        ending: compressed ? "xml.gz" : "xml") { path in
            try await GuideExport(store: store, artwork: ProgrammeArtworkImages.address(at: base))
                .write(to: path, compressed: compressed, channels: channels, window: window, shape: shape, languages: languages)
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        // The tag names the file served (its variant too: the same listings with logos under another address differ).
        let served = URL(fileURLWithPath: path).lastPathComponent.split(separator: ".").first.map(String.init) ?? version
        return Built(path: path, tag: "\"\(served)\(compressed ? "-gz" : "")\"", channels: channels.count, bytes: bytes)
    }

    /// The feed's days: from the start of today's broadcast day (the server's zone and day start).
    func window(of feed: LineupFeed) -> (today: BroadcastDay, window: TimeWindow) {
        let clock = ViewerClock(zone: settings.timeZone, dayStartHour: settings.dayStartHour)
        let today = clock.day(containing: settings.now())
        return (today, TimeWindow(start: today.window.start, end: today.adding(days: feed.days).window.start))
    }

    /// What a media server would read in the feed now, as a hash: its channels and every programme's id, start and
    /// end. Another import that changes none of them leaves it the same.
    func fingerprint(of feed: LineupFeed) async throws -> String {
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
    func channels(of feed: LineupFeed, in snapshot: ChannelDirectory.Snapshot) async throws -> [Channel] {
        switch feed.channels {
        case .lineup(let profile):
            let chosen = try await store.lineup(of: profile).compactMap(snapshot.channel)
            return chosen.isEmpty ? snapshot.listed : chosen
        case .favourites(let profile):
            let favourites = Set(try await store.favourites(of: profile))
            return snapshot.listed.filter { favourites.contains($0.id) }
        case .group(let name):
            return GroupFilter.members(of: name, among: snapshot.listed, in: snapshot)
        }
    }
}
