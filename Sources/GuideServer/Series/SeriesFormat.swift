import Foundation
import GuideApplication
import GuideCore
import GuideStore
import Hummingbird
import TVMaze

/// How the series pages and commands write what they show, in the viewer's words and clock.
public struct SeriesFormat: Sendable {
    public let clock: ViewerClock
    public let words: Localizer

    public init(clock: ViewerClock, words: Localizer) {
        (self.clock, self.words) = (clock, words)
    }

    init(_ pages: Pages, _ settings: ServerSettings, _ context: some GuideContext) {
        (clock, words) = (settings.clock(context), pages.words(context))
    }

    /// When something airs, for the viewer: "Tue 25 Jun 2013, 03:00", "Fri 1 Mar 2024, all day", "no date announced".
    public func airs(_ time: AirTime) -> String {
        switch time {
        case .instant(let instant): words("{date}, {time}", ["date": clock.civil(CivilDate(instant, in: clock.zone)), "time": clock.time(instant)])
        case .day(let day): words("{date}, all day", ["date": clock.civil(day)])
        case .unknown: words("no date announced")
        }
    }

    /// When the viewer watched an episode: "Watched Sun 1 Dec 2013", or "Watched" when the time is not known.
    public func watched(_ mark: WatchedEpisode) -> String {
        mark.watchedAt.map { words("Watched {date}", ["date": clock.date($0)]) } ?? words("Watched")
    }

    /// An episode without a name: "Episode 1234".
    public func unnamed(_ id: Int) -> String {
        words("Episode {id}", ["id": String(id)])
    }

    /// "7.5 / 10" as the locale writes the decimal.
    public func rating(_ rating: Double) -> String {
        words("{rating} / 10", ["rating": words.decimal(rating, digits: 1...1)])
    }

    /// "3 of 10 aired episodes watched".
    public func progress(_ progress: ShowProgress) -> String {
        words.plural("{watched} of {count} aired episode watched", "{watched} of {count} aired episodes watched", count: progress.aired,
                     ["watched": words.number(progress.watched)])
    }

    /// "60 minutes".
    public func minutes(_ minutes: Int) -> String {
        words.plural("{count} minute", "{count} minutes", count: minutes)
    }
}

extension Refusal {
    /// "TVmaze has no show 82.", for the show pages' 404.
    static func noShow(_ id: Int) -> Refusal {
        Refusal(.notFound, saying: "TVmaze has no show {id}.", ["id": String(id)])
    }
}

/// An episode on a page: a line linking to its page.
struct EpisodeLine: Sendable {
    var id: Int
    var code: String
    var name: String
    var airs: String
    var showID: Int
    var showName: String
    var isPast: Bool
    var isPremiere: Bool
    var hasTime: Bool

    init(id: Int, code: String, name: String?, time: AirTime, show: (id: Int, name: String), format: SeriesFormat, now: Date,
         isPremiere: Bool) {
        self.id = id
        self.code = code
        self.name = name ?? format.unnamed(id)
        airs = format.airs(time)
        showID = show.id
        showName = show.name
        isPast = !time.isUpcoming(after: now, in: format.clock.zone) && time != .unknown
        self.isPremiere = isPremiere
        hasTime = time.instant != nil
    }

    init(_ airing: Airing, format: SeriesFormat, now: Date) {
        self.init(id: airing.episode.id, code: airing.episode.code, name: airing.episode.name, time: airing.time,
                  show: (airing.show.id, airing.show.name), format: format, now: now, isPremiere: airing.episode.isPremiere)
        time = airing.time.instant.map(format.clock.time) ?? format.words("all day")
    }

    /// The time alone ("03:00", "all day"), for calendar days.
    var time = ""
    /// Whether the viewer watched it, and when ("Watched 3 May"), where a page says.
    var isWatched = false
    var watchedOn: String?
}
