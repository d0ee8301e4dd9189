import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideStore
import Hummingbird
import Synchronization
import SchedulesDirect

/// `/artwork?p=SERIES`: Schedules Direct's artwork for a series (``ProgrammeArtwork``), fetched the first time a
/// viewer opens one of its programmes and kept in tvguide's image cache; SD's addresses are used once, never kept or
/// shown. Off unless an admin chose it on the Schedules Direct page. SD's image calls are a paid, daily budget (2,000),
/// and each new image is two of them, so only a series a programme of the guide carries is asked for (another is 404
/// without a call), guests together start at most 30 a minute and 250 a day (a quarter of the day's calls, from any
/// number of addresses), each signed-in profile 30 a minute of its own; at most 16 wait at once and 2 run (the client
/// keeps SD's daily limits and locks whatever is asked).
final class ProgrammeArtworkImages: Sendable {
    let cache: ImageCache
    let store: any ChannelSettingsStore & ResponseCache & SDDocumentStore
    /// Nil where this tvguide has no way to SD: there is no artwork.
    let connection: SDConnection?
    let now: @Sendable () -> Date
    let fetches: CallerShares
    let running = Slots(2)
    let waiting = Mutex(0)
    static let mostWaiting = 16

    init(cache: ImageCache, store: any ChannelSettingsStore & ResponseCache & SDDocumentStore, connection: SDConnection?,
         now: @escaping @Sendable () -> Date) {
        (self.cache, self.store, self.connection, self.now) = (cache, store, connection, now)
        fetches = CallerShares(guestsPerMinute: 30, guestsPerDay: 250, perProfilePerMinute: 30, now: now)
    }

    /// The page address of the artwork `icons` name, if they name SD's.
    static func address(of icons: [Icon]) -> String? {
        icons.lazy.compactMap(ProgrammeArtwork.seriesID).first.map { SitePath.artwork(query: "p=" + $0) }
    }

    /// Where feeds name a series' artwork: its address under `base` (the server's public address).
    static func address(at base: String) -> @Sendable (String) -> String {
        GuideServer.links.artwork(at: base)
    }

    func register(on routes: RouteGroups) {
        routes.open.get(.artwork) { request, context in try await self.artwork(request, context) }
    }

    private func artwork(_ request: Request, _ context: some GuideContext) async throws -> Response {
        guard let series = request.uri.queryParameters.get("p").map({ String($0) }), ProgrammeArtwork.isSeriesID(series),
              let connection, try await SDConnection.isArtworkChosen(in: store) else {
            throw Refusal(.notFound, saying: "There is no artwork for this programme.")
        }
        let name = "schedulesdirect/" + series
        let isNew = try await !cache.isCached(named: name)
        if isNew {
            // Only what the guide names: a programme of this series came from SD (its document is kept).
            guard try await store.hasSDDocuments(under: "program/" + series) else {
                throw Refusal(.notFound, saying: "There is no artwork for this programme.")
            }
            let caller = context.viewer.map { String($0.profile.id.rawValue) }
            guard fetches.take(profile: caller) else {
                throw Refusal(.tooManyRequests, headers: [.retryAfter: String(fetches.retryAfter(profile: caller))],
                              saying: "Too many new images at once; try again shortly.")
            }
            guard waiting.withLock({ count in
                guard count < Self.mostWaiting else { return false }
                count += 1
                return true
            }) else {
                throw Refusal(.serviceUnavailable, headers: [.retryAfter: "5"], saying: "Busy fetching artwork; try again shortly.")
            }
        }
        defer { if isNew { waiting.withLock { $0 -= 1 } } }
        let stored: ImageCache.Stored?
        do {
            stored = try await cache.file(named: name) { [store, now, running] in
                try await running.run {
                    guard let client = try await connection.client(store: store, now: now) else { return nil }
                    do {
                        return try await client.artwork(seriesID: series)
                    } catch is SDFailure {
                        return nil  // A lock or a limit: the client has kept it; the page shows no image.
                    }
                }
            }
        } catch is ImageCacheBusy {
            throw Refusal(.serviceUnavailable, headers: [.retryAfter: "5"], saying: "Busy keeping images; try again shortly.")
        } catch {
            stored = nil  // SD did not answer: the page shows the programme without its image.
        }
        guard let stored else { throw Refusal(.notFound, saying: "There is no artwork for this programme.") }
        return try await stored.response(context, cacheControl: "public, max-age=604800")
    }
}
