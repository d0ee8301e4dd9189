import Foundation
import GuideCore
import GuideStore
import Hummingbird
import TVMaze

/// The API's watched episodes, the signed-in (or token's) profile's own: its progress through the shows it follows,
/// its marks of a show, and marking (or unmarking) an episode, a season, everything up to an episode or every aired
/// episode. Reading needs a token of any scope or a session; marking needs a token with scope admin, as the
/// reminders do.
struct WatchedRoutes: Sendable {
    let watched: WatchHistory
    /// TVmaze's answers as HTTP errors, for a show not kept yet.
    let series: SeriesServices

    struct ProgressListDocument: ResponseEncodable {
        var shows: [ShowProgressDocument]
    }

    struct MarkDocument: ResponseEncodable {
        var episode: Int
        var season: Int?
        var number: Int?
        var watchedAt: String?
        var plays: Int
    }

    struct MarksDocument: ResponseEncodable {
        var show: Int
        var episodes: [MarkDocument]
    }

    struct MarkRequest: Decodable {
        var scope: String
        var episode: Int?
        var season: Int?
        var watched: Bool?
        var watchedAt: String?
    }

    struct ChangedDocument: ResponseEncodable {
        var changed: Int
    }

    func register(on routes: RouteGroups) {
        let reads = routes.api(ProfileReads.self), changes = routes.api(ProfileChanges.self)
        reads.get(.apiProgress) { _, context in
            ProgressListDocument(shows: try await watched.progress(of: context.profile.id).map(ShowProgressDocument.init))
        }
        reads.get(.apiHistory) { _, context in
            try await HistoryExport(store: watched.store).document(of: context.profile.id, at: watched.now())
        }
        reads.get(SitePath.apiWatched) { _, context, show in
            let id = show.rawValue
            let marks = try await watched.marks(of: id, by: context.profile.id).values.sorted { ($0.season ?? -1, $0.number ?? -1) < ($1.season ?? -1, $1.number ?? -1) }
            return MarksDocument(show: id, episodes: marks.map { mark in
                MarkDocument(episode: mark.episodeID, season: mark.season, number: mark.number, watchedAt: mark.watchedAt.map(CivilTime.iso8601),
                             plays: mark.plays)
            })
        }
        changes.post(SitePath.apiWatched) { request, context, show in
            let id = show.rawValue
            let body = try await context.decodeBody(MarkRequest.self, of: request)
            let scope = try Self.scope(body)
            var instant: Date?
            if let text = body.watchedAt {
                guard let parsed = CivilTime.parseISO8601(text), WatchedEpisode.timeRange.contains(parsed.timeIntervalSince1970) else {
                    throw HTTPError(.badRequest, message: "watchedAt is an ISO 8601 time from 1928 to 2100, like 2026-11-27T20:00:00Z")
                }
                instant = parsed
            }
            let changed = try await series.tvmaze {
                try await watched.mark(scope, show: id, watched: body.watched ?? true, by: context.profile.id, at: instant)
            }
            return ChangedDocument(changed: changed)
        }
    }

    /// What a request names: `scope` is episode, season, upto or all, with the episode or season it needs.
    static func scope(_ body: MarkRequest) throws -> WatchScope {
        let episode = body.episode.flatMap { (1...Int(Int32.max)).contains($0) ? $0 : nil }
        switch body.scope {
        case "episode", "upto":
            guard let episode else { throw HTTPError(.badRequest, message: "scope \(body.scope) takes episode, a TVmaze episode id") }
            return body.scope == "episode" ? .episode(episode) : .upTo(episode)
        case "season":
            guard let season = body.season, Episode.numberRange.contains(season) else {
                throw HTTPError(.badRequest, message: "scope season takes season, a number from 0 to 99999")
            }
            return .season(season)
        case "all":
            return .allAired
        default:
            throw HTTPError(.badRequest, message: "scope is episode, season, upto or all")
        }
    }
}

extension HistoryExport.Document: ResponseEncodable {}
