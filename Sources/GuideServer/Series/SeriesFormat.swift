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
}

extension Site {
    /// Asks TVmaze through `body`; a failure with nothing cached becomes a 502 page saying so.
    func tvmaze<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as TVMazeError {
            if case .notFound = error { throw HTTPError(.notFound, message: error.description) }
            if case .busy(let seconds) = error {
                throw HTTPError(.serviceUnavailable, headers: [.retryAfter: String(seconds)],
                                message: "Busy: \(error.description). Pages you have opened before still show from the cache.")
            }
            throw HTTPError(.badGateway, message: "\(error.description). Pages you have opened before still show from the cache.")
        }
    }

    /// The ids of the shows the viewer follows; empty when signed out.
    func followedIDs(_ context: some GuideContext) async throws -> Set<Int> {
        guard let profile = context.viewer?.profile else { return [] }
        return await Set(try store.following(profile.id).map(\.show.id))
    }
}
