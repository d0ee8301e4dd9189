import Foundation
import GuideApplication
import GuideStore
import Hummingbird
import Metrics
import Prometheus
import Synchronization

/// `/metrics`: what the process recorded, in Prometheus' text format, read by Prometheus or any scraper. Requests by
/// route pattern, method and status with latency (Hummingbird's MetricsMiddleware: a route pattern, never a path, so
/// the series stay few), refreshes by source and outcome with their durations (``SourceRefresher``), reminder
/// deliveries by channel kind and outcome (``ReminderDispatcher``), the store's connections in use, its limit and the
/// waits for one (``StorePoolUse``), and, measured when scraped, the channels and programmes stored and each
/// configured source's programmes, last success and where its listings end.
///
/// Who may read it is `--metrics`: off (404), loopback (the connection's own address; 403 otherwise), or token (an
/// API token of any scope as `Authorization: Bearer`; 401 otherwise).
struct ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let store: any GuideDatabase
    let accounts: Accounts
    let access: ServerSettings.MetricsAccess
    let now: @Sendable () -> Date
    /// Each source's listings end as of a generation of the listings: worked out from every channel's health once an
    /// import, not at every scrape.
    private let ends = ListingsEnds()

    final class ListingsEnds: Sendable {
        let latest = Mutex<(generation: Int64, ends: [String: Date])?>(nil)
    }

    func register(on routes: RouteGroups) {
        routes.open.get(.metrics) { request, context in try await metrics(request, context) }
    }

    private func metrics(_ request: Request, _ context: GuideRequestContext) async throws -> Response {
        switch access {
        case .off:
            throw HTTPError(.notFound)
        case .loopback:
            let peer = context.peer?.ipAddress ?? ""
            guard peer == "127.0.0.1" || peer == "::1" || peer.hasPrefix("::ffff:127.") || peer.hasPrefix("127.") else {
                throw Refusal(.forbidden, saying: "Metrics are read from this machine only (serve --metrics).")
            }
        case .token:
            guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
                  try await accounts.profile(apiToken: String(header.dropFirst(7))) != nil else {
                throw Refusal(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], saying: "Metrics need an API token.")
            }
        }
        let counts = try await store.counts()
        Gauge(label: "tvguide_channels").record(counts.channels)
        Gauge(label: "tvguide_programmes").record(counts.programmes)
        let ends = try await listingsEnds()
        for status in try await store.sources() {
            let name = status.definition.name.rawValue
            let source = [("source", name)]
            Gauge(label: "tvguide_source_programmes", dimensions: source).record(status.programmes)
            if let success = status.lastSuccess {
                Gauge(label: "tvguide_source_last_success_seconds", dimensions: source).record(success.timeIntervalSince1970)
            }
            if let end = ends[name] {
                Gauge(label: "tvguide_source_listings_end_seconds", dimensions: source).record(end.timeIntervalSince1970)
            }
        }
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }

    /// Where each source's listings end: the latest end among the channels it lists.
    private func listingsEnds() async throws -> [String: Date] {
        let generation = try await store.version().generation
        if let cached = ends.latest.withLock({ $0 }), cached.generation == generation { return cached.ends }
        var found: [String: Date] = [:]
        for channel in try await store.channelHealth(at: now()) {
            guard let end = channel.listingsEnd else { continue }
            for source in channel.sources { found[source] = max(found[source] ?? end, end) }
        }
        ends.latest.withLock { $0 = (generation, found) }
        return found
    }
}
