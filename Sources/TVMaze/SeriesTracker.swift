import Foundation
import GuideCore
import GuideStore

/// Following shows: fetches a show with its episodes into the store when someone follows it, and keeps followed
/// shows current with one `/updates/shows` request, refetching only those TVmaze says changed. Ended shows are
/// not polled.
public struct SeriesTracker: Sendable {
    public let client: TVMazeClient
    public let store: any SeriesStore
    public let now: @Sendable () -> Date

    public init(client: TVMazeClient, store: any SeriesStore, now: @escaping @Sendable () -> Date) {
        self.client = client
        self.store = store
        self.now = now
    }

    /// Follows a show, fetching it with its episodes unless it is already kept.
    @discardableResult
    public func follow(show id: Int, by profile: ProfileID) async throws -> Show {
        let show: Show
        if let kept = try await store.trackedShow(id) { show = kept.show } else { show = try await fetch(show: id) }
        try await store.follow(show: id, by: profile, at: now())
        return show
    }

    public func unfollow(show id: Int, by profile: ProfileID) async throws {
        try await store.unfollow(show: id, by: profile)
    }

    /// Fetches a show, its episodes, specials included (they are watched and counted apart), and its other titles (to
    /// find it in listings) from TVmaze and keeps them; `TVMazeError.notFound` when there is no such show. Separate
    /// requests (`/shows/:id`, `/shows/:id/episodes?specials=1`, `/shows/:id/akas`) rather than one with embeds: the
    /// cache serves them to the pages, and `forget(show:)` drops them all when the show changes.
    @discardableResult
    public func fetch(show id: Int) async throws -> Show {
        guard var show = try await client.show(id) else { throw TVMazeError.notFound(path: "/shows/\(id)") }
        show.episodes = try await client.episodes(ofShow: id, specials: true)
        show.akas = try await client.akas(ofShow: id)
        try await store.saveShow(show, checked: now())
        return show
    }

    /// What a refresh did.
    public struct Report: Sendable, Equatable {
        /// Shows TVmaze said changed, fetched again.
        public var refetched: [Int] = []
        /// Shows asked about that had not changed.
        public var unchanged: [Int] = []
        /// Ended shows, not asked about.
        public var ended: [Int] = []
        /// Shows that could not be fetched, with why (their kept copy stays).
        public var failed: [Int: String] = [:]
    }

    /// Brings every followed show that has not ended up to date: one `/updates/shows` request (since a day, a week
    /// or a month, by the oldest copy), then a fetch for each show changed since its copy.
    public func refresh() async throws -> Report {
        var report = Report()
        let shows = try await store.trackedShows()
        report.ended = shows.filter(\.show.hasEnded).map(\.show.id)
        let polled = shows.filter { !$0.show.hasEnded }
        guard let oldest = polled.map(\.checked).min() else { return report }
        let age = now().timeIntervalSince(oldest)
        let since: TVMazeClient.UpdatesSince? = age < 86_400 ? .day : age < 7 * 86_400 ? .week : age < 30 * 86_400 ? .month : nil
        let updates = try await client.showUpdates(since: since)
        for show in polled.map(\.show) {
            guard let changed = updates[show.id], changed > (show.updated ?? 0) else {
                try await store.markChecked(show: show.id, at: now())
                report.unchanged.append(show.id)
                continue
            }
            do {
                try await client.forget(show: show.id)
                try await fetch(show: show.id)
                report.refetched.append(show.id)
            } catch {
                report.failed[show.id] = String(describing: error)
            }
        }
        return report
    }
}
