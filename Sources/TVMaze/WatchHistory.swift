import Foundation
import GuideCore
import GuideStore

/// What each profile has watched, and how far it is through the shows it follows: the marks the pages, the API and the
/// CLI make, each through ``WatchScope``, and the progress "Up next" shows.
public struct WatchHistory: Sendable {
    public let store: any SeriesStore & WatchedStore
    /// Fetches a show nobody keeps yet.
    public let tracker: SeriesTracker
    public let now: @Sendable () -> Date

    public init(store: any SeriesStore & WatchedStore, tracker: SeriesTracker, now: @escaping @Sendable () -> Date) {
        (self.store, self.tracker, self.now) = (store, tracker, now)
    }

    /// Marks what `scope` names of show `id` watched by `profile` (at `instant`, else now), or unmarks it; the number
    /// of marks changed. A show nobody keeps is fetched and kept first: its history names it. `StoreError.notFound`
    /// when the scope names no episode of the show.
    @discardableResult
    public func mark(_ scope: WatchScope, show id: Int, watched: Bool, by profile: ProfileID, at instant: Date? = nil) async throws -> Int {
        let show = try await kept(id)
        let chosen = scope.episodes(of: try await store.episodes(ofShow: id), now: now(), zone: show.timeZone ?? .gmt)
        guard !chosen.isEmpty else { throw StoreError(.notFound, saying: "{show} has no such episode that has aired", ["show": show.name]) }
        if watched {
            return try await store.markWatched(chosen.map { WatchedEpisode($0, show: id, at: instant ?? now()) }, by: profile, at: now())
        }
        return try await store.unmarkWatched(episodes: chosen.map(\.id), by: profile, at: now())
    }

    /// The show as kept, fetched from TVmaze (with its episodes) when it is not.
    public func kept(_ id: Int) async throws -> Show {
        if let kept = try await store.trackedShow(id) { return kept.show }
        return try await tracker.fetch(show: id)
    }

    /// The progress through each show `profile` follows, in "continue watching" order.
    public func progress(of profile: ProfileID) async throws -> [ShowProgress] {
        let marks = Dictionary(grouping: try await store.watched(by: profile, show: nil), by: \.showID)
        let instant = now()
        let following = try await store.following(profile)
        let episodes = try await store.episodes(ofShows: following.map(\.show.id))
        return following.map { followed in
            ShowProgress(show: followed.show, episodes: episodes[followed.show.id] ?? [], marks: marks[followed.show.id] ?? [], now: instant)
        }.sorted(by: ShowProgress.continueWatching)
    }

    /// The progress through show `id` of `profile`, when the show is kept; nil when it is not.
    public func progress(through id: Int, of profile: ProfileID) async throws -> ShowProgress? {
        guard let show = try await store.trackedShow(id)?.show else { return nil }
        return ShowProgress(show: show, episodes: try await store.episodes(ofShow: id), marks: try await store.watched(by: profile, show: id),
                            now: now())
    }

    /// The profile's marks of show `id`, by episode.
    public func marks(of id: Int, by profile: ProfileID) async throws -> [Int: WatchedEpisode] {
        Dictionary(try await store.watched(by: profile, show: id).map { ($0.episodeID, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
