import Foundation
import GuideCore
import GuideStore
import Hummingbird
import TVMaze

/// The profile's TVmaze account in the JSON API: `GET /api/tvmaze` says how it syncs, `PUT` connects one (checked
/// with TVmaze; a sync starts in the background), `POST /api/tvmaze/sync` starts a sync, `DELETE` forgets it.
struct TVMazeAccountRoutes: Sendable {
    let pages: TVMazeAccountPages

    struct AccountDocument: ResponseEncodable {
        var connected: Bool
        var username: String?
        var premium: Bool?
        var syncing: Bool?
        var syncedAt: String?
        var outcome: String?
        var succeeded: Bool?
    }

    struct ConnectRequest: Decodable {
        var username: String
        var key: String
    }

    func register(on routes: RouteGroups) {
        let reads = routes.api(ProfileReads.self), changes = routes.api(ProfileChanges.self)
        reads.get(.apiTVMaze) { _, context in try await document(of: context.profile.id) }
        changes.put(.apiTVMaze) { request, context in
            let body = try await context.decodeBody(ConnectRequest.self, of: request)
            let username = body.username.trimmingCharacters(in: .whitespaces), key = body.key.trimmingCharacters(in: .whitespaces)
            guard (1...200).contains(username.count), (1...200).contains(key.count) else {
                throw HTTPError(.badRequest, message: "username and key (from your TVmaze dashboard, under API) are 1 to 200 characters")
            }
            try await pages.series.tvmaze { try await pages.sync.connect(.init(username: username, apiKey: key), profile: context.profile.id) }
            await pages.runner.start(context.profile.id)
            return try await document(of: context.profile.id)
        }
        changes.post(.apiTVMazeSync) { _, context in
            guard try await pages.sync.accounts.tvmazeAccount(of: context.profile.id) != nil else {
                throw HTTPError(.notFound, message: "no TVmaze account: PUT /api/tvmaze connects one")
            }
            guard await pages.runner.start(context.profile.id) else {
                throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "60"], message: "other profiles' syncs are running; try again in a minute")
            }
            return try await document(of: context.profile.id)
        }
        changes.delete(.apiTVMaze) { _, context in
            try await pages.sync.disconnect(profile: context.profile.id)
            return AccountDocument(connected: false)
        }
    }

    private func document(of profile: ProfileID) async throws -> AccountDocument {
        guard let account = try await pages.sync.accounts.tvmazeAccount(of: profile) else { return AccountDocument(connected: false) }
        return AccountDocument(connected: true, username: account.username, premium: account.premium > 0, syncing: await pages.runner.isRunning(profile),
                               syncedAt: account.syncedAt.map(CivilTime.iso8601), outcome: account.outcome.map { TVMazeSync.Report.outcome($0).description }, succeeded: account.succeeded)
    }
}
