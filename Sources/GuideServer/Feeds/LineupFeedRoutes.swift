import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideHTTPServing
import GuideStore
import GuideWebFormats
import Hummingbird
import XMLTV

/// `/xmltv/TOKEN.xml` and `/xmltv/TOKEN.xml.gz`: a feed an admin cut for one media server (``LineupFeed``): its
/// channels from today's broadcast day for its days, written plainly or for Plex and Jellyfin (``MediaServerShape``).
/// The token in the address only reads this feed. Written to a file once per version of the listings, day and
/// definition, and served from it with `ETag` and `Last-Modified`. `/xmltv/TOKEN.m3u` is the same channels as an M3U
/// playlist for IPTV players (``M3UWriter``): those with a stream from a playlist source, naming the feed as their guide.
struct LineupFeedRoutes: Sendable {
    let feeds: LineupFeeds
    var store: any GuideDatabase { feeds.store }
    var settings: ServerSettings { feeds.settings }

    func register(on routes: RouteGroups) {
        routes.open.get(SitePath.lineupFeed) { request, context, file in try await serve(file, request, context) }
        routes.open.get(SitePath.tuner) { request, context, token, file in
            let feed = try await feed(token.rawValue)
            // The device's base: the path with an empty file, its closing slash left out.
            let base = settings.publicAddress(for: request, local: context.local) + SitePath.tuner(token, PathText("")).dropLast()
            return try await tuner(HDHomeRunDevice(feed: feed, base: base), of: feed, file: file.rawValue, request)
        }
    }

    private func serve(_ file: FeedFile, _ request: Request, _ context: some GuideContext) async throws -> Response {
        if file.kind == .playlist { return try await playlist(token: file.token, request, context) }
        let compressed = file.kind == .compressed
        let feed = try await feed(file.token)
        let version = try await store.version()
        let built = try await feeds.build(feed, compressed: compressed, base: settings.publicAddress(for: request, local: context.local),
                                    languages: XMLTVFeed.languages(request))
        var headers: HTTPFields = [.eTag: built.tag, .cacheControl: "no-cache",
                                   .contentType: compressed ? "application/gzip" : "application/xml; charset=utf-8"]
        if let updated = version.updated { headers[.lastModified] = HTTPDate.format(updated) }
        if XMLTVFeed.isUnchanged(request, tag: built.tag, updated: nil) { return Response(status: .notModified, headers: headers) }
        if compressed { headers[.contentDisposition] = "attachment; filename=\"tvguide.xml.gz\"" }
        return Response(status: .ok, headers: headers, body: try await FileIO().loadFile(path: built.path, context: context))
    }

    private func feed(_ token: String) async throws -> LineupFeed { try await feeds.feed(token) }

    /// `/xmltv/TOKEN.m3u`: the feed's channels that have a stream, in its order, each named by the id, number and name
    /// its XMLTV gives it, with tvguide's cached logo; the source playlist's groups, catch-up and options as it gave them.
    private func playlist(token: String, _ request: Request, _ context: some GuideContext) async throws -> Response {
        let feed = try await feed(token)
        let base = settings.publicAddress(for: request, local: context.local)
        let items = try await feeds.streams(of: feed).map { channel, entry in
            M3UWriter.Item(guideID: channel.id.rawValue, number: channel.number, name: channel.name,
                           logo: ChannelLogos.address(of: channel).map { base + $0 }, entry: entry)
        }
        let text = M3UWriter().playlist(items, guide: base + SitePath.lineupFeed(FeedFile(token, .xmltv)))
        return CompressibleBody.response(Array(text.utf8), for: request,
                                         headers: [.contentType: "audio/x-mpegurl; charset=utf-8", .cacheControl: "no-cache"])
    }

    /// An answer of the feed's HDHomeRun tuner (``HDHomeRunDevice/answer(_:of:from:)``) at `/hdhomerun/TOKEN/`, for
    /// Jellyfin, Emby and Channels; the devices door serves the same at the root of the feed's own tuner port, for Plex.
    func tuner(_ device: HDHomeRunDevice, of feed: LineupFeed, file: String, _ request: Request) async throws -> Response {
        guard let answer = try await device.answer(file, of: feed, from: feeds) else { throw HTTPError(.notFound) }
        return answer.response(for: request)
    }


}
