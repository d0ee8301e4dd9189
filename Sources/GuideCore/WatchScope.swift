import Foundation

/// What one "watched" action names of a show: one episode, a season, everything up to an episode, or every aired
/// episode. Seasons, "up to" and "every aired" take the regular episodes that have aired; specials are marked one by
/// one (they are counted apart).
public enum WatchScope: Hashable, Sendable {
    case episode(Int)
    case season(Int)
    case upTo(Int)
    case allAired

    /// The episodes of `episodes` (a show's, in air order) this names at `now`; empty when it names none.
    public func episodes(of episodes: [Episode], now: Date, zone: TimeZone) -> [Episode] {
        let aired = episodes.filter { !$0.isSpecial && $0.hasAired(by: now, zone: zone) }
        switch self {
        case .episode(let id):
            return episodes.filter { $0.id == id }
        case .season(let number):
            return aired.filter { $0.season == number }
        case .upTo(let id):
            guard let last = aired.firstIndex(where: { $0.id == id }) else { return episodes.filter { $0.id == id } }
            return Array(aired[...last])
        case .allAired:
            return aired
        }
    }
}
