import Foundation
import GuideCore
import GuideStore
import TrackerExports

/// A tracker's history brought into tvguide (FORMATS.md sections 1.5, 2.3, 9): each show matched to TVmaze by its
/// TVDB id, else its IMDb id (TVmaze's lookups), else its title (TVmaze's search, that very name, taken only when
/// the tracker's year agrees); each episode by season and number, else by air date, else by title; what matches nothing listed.
/// ``plan(_:choices:)`` asks TVmaze and changes nothing (the preview); ``apply(_:to:follow:)`` keeps the marks, so
/// importing the same file again changes nothing.
public struct HistoryImport: Sendable {
    public let client: TVMazeClient
    public let history: WatchHistory

    public init(client: TVMazeClient, history: WatchHistory) {
        (self.client, self.history) = (client, history)
    }

    /// A tracker's show and what it matched.
    public struct Match: Sendable {
        public var tracked: TrackerHistory.Show
        public var show: Show
        /// How it was found: "TVDB 264492", "IMDb tt1553656", "title", "chosen".
        public var how: String
        public var marks: [WatchedEpisode]
        /// The tracker's episodes TVmaze has no episode for.
        public var unmatched: [TrackerHistory.Episode]
    }

    public struct Plan: Sendable {
        public var kind: TrackerHistory.Kind
        public var matched: [Match]
        /// Shows TVmaze has none for (fix them by hand: ``plan(_:choices:)``'s choices).
        public var unmatched: [TrackerHistory.Show]
        public var problems: [Sentence]

        public var episodes: Int { matched.reduce(0) { $0 + $1.marks.count } }
        public var unmatchedEpisodes: Int { matched.reduce(0) { $0 + $1.unmatched.count } + unmatched.reduce(0) { $0 + $1.episodes.count } }
    }

    public struct Report: Sendable, Equatable {
        /// Marks added or changed (an episode already marked, with no earlier time, is not counted).
        public var marked: Int
        /// Shows newly followed.
        public var followed: Int
    }

    /// A show named by hand, as the CLI's `--choose` and the API's `choose` write it: its title as the file writes it,
    /// `=` and a TVmaze id (`The Office=526`); nil when it is not that.
    public static func choice(_ text: String) -> (title: String, id: Int)? {
        guard let equals = text.lastIndex(of: "="), let id = Bounded.integer(text[text.index(after: equals)...], in: TVMazeClient.idRange) else {
            return nil
        }
        return (String(text[..<equals]), id)
    }

    /// The plan for `tracked`: TVmaze asked about each show, nothing kept. `choices` fixes shows by hand: a show's
    /// title (as the tracker wrote it) to a TVmaze id. `progress` hears of each show done, of how many.
    public func plan(_ tracked: TrackerHistory, choices: [String: Int] = [:],
                     progress: @Sendable (_ done: Int, _ of: Int) async -> Void = { _, _ in }) async throws -> Plan {
        var plan = Plan(kind: tracked.kind, matched: [], unmatched: [], problems: tracked.problems)
        for (index, show) in tracked.shows.enumerated() {
            await progress(index, tracked.shows.count)
            guard let (found, how) = try await find(show, chosen: choices[show.title]) else {
                plan.unmatched.append(show)
                continue
            }
            // Specials included, as the show is kept (SeriesTracker.fetch): the cache then serves keeping it.
            let episodes = try await client.episodes(ofShow: found.id, specials: true)
            var match = Match(tracked: show, show: found, how: how, marks: [], unmatched: [])
            for episode in show.episodes {
                if let hit = Self.episode(episode, in: episodes) {
                    var mark = WatchedEpisode(hit, show: found.id, at: episode.watchedAt)
                    mark.plays = episode.plays
                    match.marks.append(mark)
                } else {
                    match.unmatched.append(episode)
                }
            }
            plan.matched.append(match)
        }
        return plan
    }

    /// Keeps `plan`'s marks for `profile`, each show kept with its episodes; follows the shows the tracker followed when
    /// `follow` says so.
    public func apply(_ plan: Plan, to profile: ProfileID, follow: Bool,
                      progress: @Sendable (_ done: Int, _ of: Int) async -> Void = { _, _ in }) async throws -> Report {
        var report = Report(marked: 0, followed: 0)
        var following = Set(try await history.store.following(profile).map(\.show.id))
        for (index, match) in plan.matched.enumerated() {
            await progress(index, plan.matched.count)
            _ = try await history.kept(match.show.id)
            report.marked += try await history.store.markWatched(match.marks, by: profile, at: history.now())
            if follow, match.tracked.isFollowed, !following.contains(match.show.id) {
                try await history.tracker.follow(show: match.show.id, by: profile)
                following.insert(match.show.id)
                report.followed += 1
            }
        }
        return report
    }

    /// The TVmaze show for `tracked`, and how it was found.
    func find(_ tracked: TrackerHistory.Show, chosen: Int?) async throws -> (Show, String)? {
        if let chosen, let show = try await nilWhenMissing({ try await client.show(chosen) }) { return (show, "chosen") }
        if let id = tracked.tvmaze, let show = try await nilWhenMissing({ try await client.show(id) }) { return (show, "TVmaze \(id)") }
        if let tvdb = tracked.tvdb, let show = try await nilWhenMissing({ try await client.show(thetvdb: tvdb) }) { return (show, "TVDB \(tvdb)") }
        if let imdb = tracked.imdb, let show = try await nilWhenMissing({ try await client.show(imdb: imdb) }) { return (show, "IMDb \(imdb)") }
        // A title alone: TVmaze's search, the first show of that very name (case and accents aside) whose year agrees
        // with the tracker's, where it gives one (a remake shares its name).
        let title = SearchText.fold(tracked.title)
        guard !title.isEmpty else { return nil }
        let show = try await client.searchShows(tracked.title).first { show in
            SearchText.fold(show.name) == title && (tracked.year.map { year in show.premiered.map { abs($0.year - year) <= 1 } ?? true } ?? true)
        }
        return show.map { ($0, "title") }
    }

    private func nilWhenMissing(_ body: () async throws -> Show?) async throws -> Show? {
        do {
            return try await body()
        } catch let error as TVMazeError {
            if case .notFound = error { return nil }
            throw error
        }
    }

    /// The TVmaze episode the tracker's is: by season and number (a special by air date, then title), else by air
    /// date, else by title.
    static func episode(_ tracked: TrackerHistory.Episode, in episodes: [Episode]) -> Episode? {
        if tracked.season != 0, let season = tracked.season, let number = tracked.number,
           let hit = episodes.first(where: { !$0.isSpecial && $0.season == season && $0.number == number }) {
            return hit
        }
        if let airdate = tracked.airdate?.description {
            let onDay = episodes.filter { $0.airdate == airdate && (tracked.season != 0 || $0.isSpecial) }
            if onDay.count == 1 { return onDay[0] }
        }
        if let title = tracked.title.map(SearchText.fold), !title.isEmpty {
            let named = episodes.filter { $0.name.map(SearchText.fold) == title }
            if named.count == 1 { return named[0] }
        }
        return nil
    }
}
