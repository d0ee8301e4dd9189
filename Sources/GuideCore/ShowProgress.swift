import Foundation

/// How far a profile is through a show: what a tracker's "up next" shows. Regular episodes and specials are counted
/// apart; specials never come up next.
public struct ShowProgress: Hashable, Sendable {
    public var show: Show
    /// Regular episodes aired by now, and how many of them are watched.
    public var aired: Int
    public var watched: Int
    public var specialsAired: Int
    public var specialsWatched: Int
    /// The first aired regular episode not watched after the last watched one in air order (the first aired one when
    /// none is watched); nil when there is none: up to date, or nothing aired.
    public var next: Episode?
    /// When the profile last watched one of its episodes, when known.
    public var lastWatched: Date?
    /// Regular episodes aired since then that are not watched (all unwatched aired ones when nothing is watched).
    public var newSinceLastWatched: Int

    /// The progress through `show` (its `episodes` in air order) of a profile that watched `marks`, at `now`.
    public init(show: Show, episodes: [Episode], marks: [WatchedEpisode], now: Date) {
        self.show = show
        let zone = show.timeZone ?? .gmt
        let watched = Set(marks.map(\.episodeID))
        let aired = episodes.filter { $0.hasAired(by: now, zone: zone) }
        let regular = aired.filter { !$0.isSpecial }
        let specials = aired.filter(\.isSpecial)
        self.aired = regular.count
        self.watched = regular.filter { watched.contains($0.id) }.count
        specialsAired = specials.count
        specialsWatched = specials.filter { watched.contains($0.id) }.count
        lastWatched = marks.compactMap(\.watchedAt).max()
        let lastIndex = regular.lastIndex { watched.contains($0.id) }
        next = regular[(lastIndex.map { $0 + 1 } ?? 0)...].first { !watched.contains($0.id) }
        let since = lastWatched
        newSinceLastWatched = regular.filter { episode in
            guard !watched.contains(episode.id) else { return false }
            guard let since else { return true }
            return episode.airTime(zone: zone).sortKey(in: zone) > since
        }.count
    }

    /// Whether there is something to watch next.
    public var isWatching: Bool { next != nil && watched > 0 }

    /// "Continue watching" order: shows under way (last watched first), then ones not started (the next episode's air
    /// order), then those with nothing to watch, by name.
    public static func continueWatching(_ first: ShowProgress, _ second: ShowProgress) -> Bool {
        func group(_ progress: ShowProgress) -> Int { progress.isWatching ? 0 : progress.next != nil ? 1 : 2 }
        if group(first) != group(second) { return group(first) < group(second) }
        if let one = first.lastWatched, let other = second.lastWatched, one != other { return one > other }
        if (first.lastWatched == nil) != (second.lastWatched == nil) { return first.lastWatched != nil }
        return first.show.name.localizedStandardCompare(second.show.name) == .orderedAscending
    }
}
