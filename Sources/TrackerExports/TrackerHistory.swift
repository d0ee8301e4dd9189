import Foundation
import GuideCore

/// What a tracker's export says a viewer watched and followed, read from its files before anything is matched to
/// TVmaze: each show with the ids the tracker knew it by, and its watched episodes.
public struct TrackerHistory: Sendable, Equatable {
    /// Which tracker's export it was.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case tvTime = "TV Time"
        case trakt = "Trakt"
        case seriesGuide = "SeriesGuide"
        case imdb = "IMDb"
        case plain = "CSV"
    }

    /// A show as the tracker knew it.
    public struct Show: Sendable, Equatable {
        public var title: String
        public var year: Int?
        public var tvdb: Int?
        /// `tt` and digits.
        public var imdb: String?
        public var tvrage: Int?
        /// TVmaze's own id, where the file says (tvguide's own export).
        public var tvmaze: Int?
        /// Followed (or on the watch list) in the tracker.
        public var isFollowed = false
        public var episodes: [Episode] = []

        public init(title: String, year: Int? = nil, tvdb: Int? = nil, imdb: String? = nil, tvrage: Int? = nil) {
            (self.title, self.year, self.tvdb, self.imdb, self.tvrage) = (title, year, tvdb, imdb, tvrage)
        }

        /// What identifies it across a file's rows: its TVDB id, else its IMDb id, else its title and year.
        var key: String {
            if let tvmaze { return "tvmaze:\(tvmaze)" }
            if let tvdb { return "tvdb:\(tvdb)" }
            if let imdb { return "imdb:\(imdb)" }
            return "title:\(SearchText.fold(title)):\(year.map(String.init) ?? "")"
        }
    }

    /// A watched episode as the tracker numbered it.
    public struct Episode: Sendable, Equatable {
        public var season: Int?
        public var number: Int?
        /// When it first aired, where the tracker says (to match by air date when the numbers differ).
        public var airdate: CivilDate?
        public var title: String?
        /// When it was first watched, in UTC; nil when the tracker kept no time.
        public var watchedAt: Date?
        public var plays: Int

        public init(season: Int?, number: Int?, airdate: CivilDate? = nil, title: String? = nil, watchedAt: Date?, plays: Int = 1) {
            (self.season, self.number, self.airdate, self.title, self.watchedAt, self.plays) = (season, number, airdate, title, watchedAt, plays)
        }
    }

    public var kind: Kind
    public var shows: [Show]
    /// Rows and entries left out, each with why ("line 12: no season or episode"), at most ``mostProblems``.
    public var problems: [Sentence]

    public static let mostProblems = 200

    /// The watched episodes in all.
    public var episodeCount: Int { shows.reduce(0) { $0 + $1.episodes.count } }
}

/// Builds a ``TrackerHistory`` row by row: one show per identity, one episode per season and number (the earliest
/// time, the plays added up), problems counted past the ones kept.
struct HistoryBuilder {
    let kind: TrackerHistory.Kind
    private var shows: [String: TrackerHistory.Show] = [:]
    private var order: [String] = []
    private var problems: [Sentence] = []
    private var moreProblems = 0

    init(_ kind: TrackerHistory.Kind) {
        self.kind = kind
    }

    /// The show, added if new; its ids and title filled in where this row knows more.
    mutating func show(_ show: TrackerHistory.Show, followed: Bool = false) -> String {
        let key = show.key
        if var kept = shows[key] {
            kept.tvdb = kept.tvdb ?? show.tvdb
            kept.tvmaze = kept.tvmaze ?? show.tvmaze
            kept.imdb = kept.imdb ?? show.imdb
            kept.year = kept.year ?? show.year
            if kept.title.isEmpty { kept.title = show.title }
            kept.isFollowed = kept.isFollowed || followed
            shows[key] = kept
        } else {
            var show = show
            show.isFollowed = followed
            shows[key] = show
            order.append(key)
        }
        return key
    }

    /// A watched episode of the show `key` names; the same season and number again is one episode.
    mutating func watched(_ episode: TrackerHistory.Episode, of key: String) {
        guard var show = shows[key] else { return }
        if let index = show.episodes.firstIndex(where: { $0.season == episode.season && $0.number == episode.number
            && ($0.number != nil || $0.airdate == episode.airdate && $0.title == episode.title) }) {
            var kept = show.episodes[index]
            kept.watchedAt = [kept.watchedAt, episode.watchedAt].compactMap { $0 }.min()
            kept.plays = min(WatchedEpisode.playsRange.upperBound, kept.plays + episode.plays)
            kept.airdate = kept.airdate ?? episode.airdate
            kept.title = kept.title ?? episode.title
            show.episodes[index] = kept
        } else {
            show.episodes.append(episode)
        }
        shows[key] = show
    }

    mutating func problem(_ text: Sentence) {
        if problems.count < TrackerHistory.mostProblems { problems.append(text) } else { moreProblems += 1 }
    }

    var history: TrackerHistory {
        var problems = self.problems
        if moreProblems > 0 { problems.append(Sentence(saying: "and {count} more", plural: "and {count} more", count: moreProblems)) }
        return TrackerHistory(kind: kind, shows: order.compactMap { shows[$0] }, problems: problems)
    }
}

/// The times trackers write, all read as UTC: ISO 8601 (`2025-05-13T00:37:58Z`, with milliseconds), TV Time's
/// `2019-10-04 03:43:42` (no zone: UTC, not the server's local time) and Go's `2017-05-02 21:24:51 +0000 UTC`, a date
/// alone (noon UTC, so no zone moves it to another day), and epoch seconds. A time outside 1928-2100 is no time.
enum TrackerTime {
    static func parse(_ text: String?) -> Date? {
        guard var text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty, text.utf8.count <= 40 else { return nil }
        if text.hasSuffix(" +0000 UTC") { text = String(text.dropLast(" +0000 UTC".count)) + "Z" }
        var instant: Date?
        if text.utf8.count == 10, let day = CivilDate(text) {
            instant = day.start(in: .gmt).addingTimeInterval(12 * 3600)
        } else if let seconds = Int64(text), text.utf8.count <= 12 {
            instant = Date(timeIntervalSince1970: TimeInterval(seconds))
        } else {
            if text.utf8.count >= 19, Array(text.utf8)[10] == UInt8(ascii: " ") {
                text = String(text.prefix(10)) + "T" + String(text.dropFirst(11))
            }
            let hasZone = text.hasSuffix("Z") || text.hasSuffix("z") || text.dropFirst(19).contains("+") || text.dropFirst(19).contains("-")
            instant = CivilTime.parseISO8601(hasZone ? text : text + "Z")
        }
        guard let instant, WatchedEpisode.timeRange.contains(instant.timeIntervalSince1970) else { return nil }
        return instant
    }
}
