import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import Hummingbird

/// `/logo?c=CHANNEL&v=VERSION`: a channel's logo through tvguide's own ``ImageCache``. Pages, the API and feeds name
/// this address, never the provider's, so a logo whose host goes away or forbids hotlinking still shows once fetched.
///
/// A guest names a channel, never an address: only the logo the listings (or an admin) give a channel is fetched. The
/// version is a hash of that logo's address, so a logo a source or admin changes has a new address and browsers and
/// media servers fetch it again; an address with the current version is kept by them for a year.
struct ChannelLogos: Sendable {
    let cache: ImageCache
    let directory: ChannelDirectory
    /// Logos a guest may make the server fetch: 300 new ones a minute per client address (a first grid of a few
    /// hundred channels; cached ones are free).
    let fetches: ClientQuota
    let clientAddress: ClientAddress

    init(cache: ImageCache, directory: ChannelDirectory, clientAddress: ClientAddress, now: @escaping @Sendable () -> Date) {
        (self.cache, self.directory, self.clientAddress) = (cache, directory, clientAddress)
        fetches = ClientQuota(limit: 300, per: 60, now: now)
    }

    /// The logo's address on this server for `channel`, or nil when it has none that can be fetched (an http or https
    /// address; a `javascript:` or `data:` one from a feed never reaches a page).
    static func address(of channel: Channel) -> String? {
        guard let source = channel.icons.first?.src, isWeb(source) else { return nil }
        return SitePath.logo(query: "c=" + SitePath.encoded(channel.id.rawValue))
            + "&v=" + ImageCache.name(for: source)
    }

    static func isWeb(_ address: String) -> Bool {
        let lower = address.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://")
    }

    func register(on routes: RouteGroups) {
        routes.open.get(.logo) { request, context in try await logo(request, context) }
    }

    private func logo(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let parameters = request.uri.queryParameters
        guard let id = parameters.get("c").map({ String($0) }), id.utf8.count <= 512,
              let channel = try await directory.snapshot().channel(ChannelID(id)),
              let source = channel.icons.first?.src, let url = cache.canonical(source) else {
            throw Refusal(.notFound, saying: "This channel has no logo.")
        }
        if try await !cache.isCached(url), !fetches.take(clientAddress.of(request, peer: context.peer)) {
            throw Refusal(.tooManyRequests, headers: [.retryAfter: String(fetches.retryAfter())],
                          saying: "Too many new logos at once; try again shortly.")
        }
        let stored: ImageCache.Stored?
        do {
            stored = try await cache.file(for: url)
        } catch is ImageCacheBusy {
            throw Refusal(.serviceUnavailable, headers: [.retryAfter: "5"], saying: "Busy keeping logos; try again shortly.")
        } catch {
            stored = nil  // The logo's host did not answer: the page shows the channel's name instead.
        }
        guard let stored else { throw Refusal(.notFound, saying: "This channel's logo could not be fetched.") }
        let isCurrent = parameters.get("v").map { String($0) } == ImageCache.name(for: source)
        return try await stored.response(context, cacheControl: isCurrent ? "public, max-age=31536000, immutable" : "public, max-age=300")
    }
}

extension ImageCache.Stored {
    /// What an image answer may do when opened on its own, as a document: nothing (no script, no request anywhere,
    /// a sandbox), its own inline styles drawn.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    /// The image read without blocking (Hummingbird's file I/O), with its checked type, shown in place and never able
    /// to act as a page of this site.
    func response(_ context: some GuideContext, cacheControl: String) async throws -> Response {
        let body = try await FileIO().loadFile(path: path, context: context)
        return Response(status: .ok, headers: [.contentType: contentType, .cacheControl: cacheControl, .contentDisposition: "inline",
                                               .contentSecurityPolicy: Self.contentSecurityPolicy], body: body)
    }
}
