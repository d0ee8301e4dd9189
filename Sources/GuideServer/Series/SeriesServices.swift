import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import Hummingbird
import TVMaze

/// TVmaze for the pages: one client (so one rate limiter) caching in the store, the tracker that follows shows,
/// and the image cache.
struct SeriesServices: Sendable {
    let client: TVMazeClient
    let tracker: SeriesTracker
    let images: ImageCache
    /// Images a guest may make the server fetch: 60 new ones a minute per client address (cached ones are free).
    let imageFetches: ClientQuota
    /// Who is asking, as the server counts clients (the pages' own).
    let clientAddress: ClientAddress

    init(store: any GuideDatabase, settings: ServerSettings, client: TVMazeClient, images: ImageCache, addresses: ClientAddress) {
        self.client = client
        tracker = SeriesTracker(client: client, store: store, now: settings.now)
        self.images = images
        imageFetches = ClientQuota(limit: 60, per: 60, now: settings.now)
        clientAddress = addresses
    }

    /// `/images?u=`: a TVmaze image through the cache, so the browser never asks TVmaze and each image is fetched
    /// once. Other hosts get 404.
    func register(on routes: RouteGroups) {
        routes.open.get(.images) { request, context -> Response in
            guard let url = request.uri.queryParameters.get("u").flatMap({ images.canonical(String($0)) }) else {
                throw Refusal(.notFound, saying: "No such image: only TVmaze's images are shown here.")
            }
            if try await !images.isCached(url), !imageFetches.take(clientAddress.of(request, peer: context.peer)) {
                throw Refusal(.tooManyRequests, headers: [.retryAfter: String(imageFetches.retryAfter())],
                              saying: "Too many new images at once; try again shortly.")
            }
            guard let stored = try? await images.file(for: url) else { throw Refusal(.notFound, saying: "No such image.") }
            return try await stored.response(context, cacheControl: "public, max-age=31536000, immutable")
        }
    }

    /// Asks TVmaze through `body`; a failure with nothing cached becomes a 502 page saying so.
    @discardableResult
    func tvmaze<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as TVMazeError {
            if case .notFound = error { throw Refusal(.notFound, error.sentence) }
            if case .unauthorized = error { throw Refusal(.badRequest, error.sentence) }
            if case .busy(let seconds) = error {
                throw Refusal(.serviceUnavailable, headers: [.retryAfter: String(seconds)], Sentence(
                    saying: "Busy: {error}. Pages you have opened before still show from the cache.", sentences: ["error": error.sentence]))
            }
            throw Refusal(.badGateway, Sentence(saying: "{error}. Pages you have opened before still show from the cache.",
                                                sentences: ["error": error.sentence]))
        }
    }

    /// The address of `url` through `/images`, or nil.
    static func image(_ url: String?) -> String? {
        guard let url, !url.isEmpty else { return nil }
        return SitePath.images(query: "u=" + (url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
    }
}
