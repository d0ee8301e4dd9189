import Foundation
import GuideApplication
import GuideCore
import GuideIngest
import GuideStore
import Hummingbird

/// The API's source routes, for admins: the configured sources, health, and refreshing now. Reading takes an admin's
/// session or token; starting a refresh takes an admin's `Authorization: Bearer` token, like every API change.
struct SourceRoutes: Sendable {
    let store: any SourceStore
    let settings: ServerSettings
    /// Refreshes the configured sources on demand.
    let scheduler: RefreshScheduler

    struct HealthDocument: ResponseEncodable {
        var sources: [SourceStatus]
        var channels: [ChannelHealth]
    }

    struct RefreshRequest: Decodable {
        var sources: [String]?
    }

    struct StartedDocument: ResponseEncodable {
        /// The sources this request started; those already being refreshed are left to that refresh.
        var started: [String]
        var progress: ProgressDocument
    }

    func register(on routes: RouteGroups) {
        let reads = routes.api(AdminReads.self)
        reads.get(.apiSources) { _, _ in try await store.sources() }
        reads.get(.apiHealth) { _, _ in
                let instant = settings.now()
            return HealthDocument(sources: try await store.sources(), channels: try await store.channelHealth(at: instant))
        }
        reads.get(.apiRefresh) { _, _ in ProgressDocument(scheduler.latest) }
        routes.api(Refreshes.self).post(.apiRefresh) { request, context in try await refresh(request, context) }
    }

    func refresh(_ request: Request, _ context: APIRequestContext<Refreshes>) async throws -> Response {
        // No body: every source.
        let names = try await context.decodeBodyIfPresent(RefreshRequest.self, of: request)?.sources.map { $0.map { SourceName($0) } }
        let started: [SourceName]
        do {
            started = try await scheduler.start(names)
        } catch let error as StoreError {
            throw HTTPError(.notFound, message: "\(error.message): GET /api/sources lists them")
        }
        let document = StartedDocument(started: started.map(\.rawValue), progress: ProgressDocument(scheduler.latest))
        var response = try document.response(from: request, context: context)
        response.status = .accepted
        return response
    }
}
