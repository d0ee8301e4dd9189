import Foundation

/// An episode a profile has watched: TVmaze's episode, its show, season and number (kept with the mark, so the mark
/// outlives the show's refreshes and the show itself), when it was first watched (nil when not known: a bulk mark, a
/// backup without times) and how many times.
public struct WatchedEpisode: Hashable, Sendable {
    public var episodeID: Int
    public var showID: Int
    public var season: Int?
    public var number: Int?
    public var watchedAt: Date?
    public var plays: Int

    public init(episodeID: Int, showID: Int, season: Int?, number: Int?, watchedAt: Date?, plays: Int = 1) {
        (self.episodeID, self.showID, self.season, self.number, self.watchedAt, self.plays) = (episodeID, showID, season, number, watchedAt, plays)
    }

    /// A mark of `episode` of `show`, watched at `instant`.
    public init(_ episode: Episode, show: Int, at instant: Date?) {
        self.init(episodeID: episode.id, showID: show, season: episode.season, number: episode.number, watchedAt: instant)
    }

    /// Plays kept, at most (a count from a file is held to it).
    public static let playsRange = 1...10_000
    /// When a watch can have been, in seconds since 1970: television from 1928 to 2100 (a time outside is read as unknown).
    public static let timeRange: ClosedRange<TimeInterval> = -1_325_462_400...4_102_444_800

    /// The mark `self` and `other` (of the same episode) make together: watched first at the earlier known time, the
    /// more plays. Marking again what is marked, or importing a file twice, changes nothing.
    public func merged(with other: WatchedEpisode) -> WatchedEpisode {
        var merged = self
        merged.watchedAt = [watchedAt, other.watchedAt].compactMap { $0 }.min()
        merged.plays = max(plays, other.plays)
        return merged
    }
}

extension Episode {
    /// Whether it has aired by `instant`: a known time passed, or an all-day release's day begun in `zone`.
    public func hasAired(by instant: Date, zone: TimeZone) -> Bool {
        switch airTime(zone: zone) {
        case .instant(let date): date <= instant
        case .day(let day): day.start(in: zone) <= instant
        case .unknown: false
        }
    }
}
