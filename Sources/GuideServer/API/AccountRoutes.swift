import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideHTTP
import GuideIngest
import Hummingbird

/// The API's changing routes: a program's channel lineup and imports. Each needs `Authorization: Bearer` with a
/// token an admin created on /admin; a browser's cookie is not enough, so no other site can make one change data.
struct AccountRoutes: Sendable {
    let store: any ImportStore & AccountStore
    let directory: ChannelDirectory
    /// Fetches what an admin imports by URL.
    let feeds: any HTTPTransport
    /// How an import by URL waits between tries, and what time it is.
    let clock: GuideClock

    struct LineupDocument: ResponseCodable {
        var channels: [String]
    }

    struct ImportRequest: Decodable {
        var location: String
    }

    struct ImportDocument: ResponseEncodable {
        var source: String
        var channels: Int
        var programmes: Int
        var replaced: Int
        var repairs: Int
    }

    func register(on routes: RouteGroups) {
        routes.api(ProfileReads.self).get(.apiLineup) { _, context in try await lineup(context.profile) }
        routes.api(ProfileChanges.self).put(.apiLineup) { request, context in try await setLineup(request, context) }
        routes.api(Imports.self).post(.apiImports) { request, context in try await importListings(request, context) }
    }

    func lineup(_ profile: Profile) async throws -> LineupDocument {
        return LineupDocument(channels: try await store.lineup(of: profile.id).map(\.rawValue))
    }

    func setLineup(_ request: Request, _ context: APIRequestContext<ProfileChanges>) async throws -> LineupDocument {
        let profile = context.profile
        let document = try await context.decodeBody(LineupDocument.self, of: request)
        let known = try await directory.snapshot()
        if let unknown = document.channels.first(where: { known.channel(ChannelID($0)) == nil }) {
            throw HTTPError(.notFound, message: "no channel \(unknown): GET /api/channels lists them")
        }
        try await store.setLineup(document.channels.map { ChannelID($0) }, of: profile.id)
        return LineupDocument(channels: try await store.lineup(of: profile.id).map(\.rawValue))
    }

    func importListings(_ request: Request, _ context: APIRequestContext<Imports>) async throws -> ImportDocument {
        let body = try await context.decodeBody(ImportRequest.self, of: request)
        do {
            let summary = try await ListingImporter(store: store).importLocation(body.location, transport: feeds, clock: clock)
            return ImportDocument(source: summary.source.rawValue, channels: summary.channels, programmes: summary.programmes,
                                  replaced: summary.replaced, repairs: summary.issues.total)
        } catch {
            throw HTTPError(.unprocessableContent, message: "cannot import \(body.location): \(error); the guide is unchanged")
        }
    }
}
