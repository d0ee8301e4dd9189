import Foundation
import GuideCore
import GuideStore
import Hummingbird
import TVMaze

extension ViewerClock {
    /// "Tue 25 Jun 2013".
    func civil(_ day: CivilDate) -> String {
        "\(Self.weekdays[day.weekday]) \(day.day) \(Self.months[day.month - 1]) \(day.year)"
    }

    /// When something airs, for the viewer: "Tue 25 Jun 2013, 03:00", "Fri 1 Mar 2024, all day", "no date announced".
    func airs(_ time: AirTime) -> String {
        switch time {
        case .instant(let instant): "\(civil(CivilDate(instant, in: zone))), \(self.time(instant))"
        case .day(let day): "\(civil(day)), all day"
        case .unknown: "no date announced"
        }
    }

    /// When the viewer watched an episode: "Watched Sun 1 Dec 2013", or "Watched" when the time is not known.
    func watched(_ mark: WatchedEpisode) -> String {
        mark.watchedAt.map { "Watched \(date($0))" } ?? "Watched"
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

    init(id: Int, code: String, name: String?, time: AirTime, show: (id: Int, name: String), clock: ViewerClock, now: Date,
         isPremiere: Bool) {
        self.id = id
        self.code = code
        self.name = name ?? "Episode \(id)"
        airs = clock.airs(time)
        showID = show.id
        showName = show.name
        isPast = !time.isUpcoming(after: now, in: clock.zone) && time != .unknown
        self.isPremiere = isPremiere
        hasTime = time.instant != nil
    }

    init(_ airing: Airing, clock: ViewerClock, now: Date) {
        self.init(id: airing.episode.id, code: airing.episode.code, name: airing.episode.name, time: airing.time,
                  show: (airing.show.id, airing.show.name), clock: clock, now: now, isPremiere: airing.episode.isPremiere)
        time = airing.time.instant.map(clock.time) ?? "all day"
    }

    /// The time alone ("03:00", "all day"), for calendar days.
    var time = ""
    /// Whether the viewer watched it, and when ("Watched 3 May"), where a page says.
    var isWatched = false
    var watchedOn: String?
}
