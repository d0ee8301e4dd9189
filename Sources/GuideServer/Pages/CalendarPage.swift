import Foundation
import GuideApplication
import GuideCore
import Hummingbird
import TVMaze

/// `/calendar?view=day|week|month&date=YYYY-MM-DD&premieres=1`: followed shows' episodes by the viewer's days
/// (weeks start on the locale's first day: Monday in most of Europe, Sunday in Israel); "premieres only" keeps each
/// season's first episode.
struct CalendarPage: Sendable {
    let pages: Pages
    let settings: ServerSettings
    let episodes: FollowedEpisodes

    enum View: String, CaseIterable {
        case day, week, month
    }

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var heading: String
        var views: [ViewLink]
        var isMonth: Bool
        var days: [Day]
        var weeks: [Week]
        var previous: String
        var next: String
        var today: String
        var premieres: Bool
        var premieresLink: String
        var count: String
        var weekHeads: [String]
        var view: String
        var date: String
    }

    struct ViewLink {
        var label: String
        var link: String
        var isCurrent: Bool
    }

    struct Week {
        var days: [Day]
    }

    struct Day {
        var date: String
        var label: String
        var number: Int
        var isToday: Bool
        var isOutside: Bool
        var episodes: [EpisodeLine]
    }

    func register(on routes: RouteGroups) {
        routes.profile.get(.calendar) { request, context in try await render(request, context) }
    }

    func render(_ request: Request, _ context: ProfileRequestContext) async throws -> HTMLPage {
        let profile = context.profile
        let query = QueryParameters(request: request)
        let view = query.string("view").flatMap(View.init) ?? .week
        let format = SeriesFormat(pages, settings, context)
        let (clock, words) = (format.clock, format.words)
        let now = settings.now()
        let today = CivilDate(now, in: clock.zone)
        let date = query.string("date").flatMap(CivilDate.init) ?? today
        let premieres = query.string("premieres") == "1"
        let (from, through, step) = Self.range(view, around: date, firstWeekday: clock.firstWeekday)
        let airings = try await episodes.schedule(profile, context).airings(from: from, through: through)
            .filter { !premieres || $0.episode.isPremiere }
        var byDay: [CivilDate: [EpisodeLine]] = [:]
        for airing in airings {
            guard let day = airing.time.day(in: clock.zone) else { continue }
            byDay[day, default: []].append(EpisodeLine(airing, format: format, now: now))
        }
        let days = (0...(through.dayNumber - from.dayNumber)).map { offset -> Day in
            let day = from.adding(days: offset)
            return Day(date: day.description, label: clock.civil(day), number: day.day, isToday: day == today,
                       isOutside: view == .month && day.month != date.month, episodes: byDay[day] ?? [])
        }
        let link = { (view: View, date: CivilDate, premieres: Bool) in
            SitePath.calendar(query: "view=\(view.rawValue)&date=\(date)" + (premieres ? "&premieres=1" : ""))
        }
        let heading = switch view {
        case .day: clock.civil(date)
        case .week: words("Week of {date}", ["date": clock.civil(from)])
        case .month: clock.month(date)
        }
        let labels: [View: String] = [.day: words("Day"), .week: words("Week"), .month: words("Month")]
        let model = await Model(
            chrome: pages.chrome(context, section: "upcoming"), title: words("Calendar: {heading}", ["heading": heading]), heading: heading,
            views: View.allCases.map { ViewLink(label: labels[$0] ?? $0.rawValue, link: link($0, date, premieres), isCurrent: $0 == view) },
            isMonth: view == .month, days: days,
            weeks: stride(from: 0, to: days.count, by: 7).map { Week(days: Array(days[$0..<min(days.count, $0 + 7)])) },
            previous: link(view, step(date, -1), premieres), next: link(view, step(date, 1), premieres), today: link(view, today, premieres),
            premieres: premieres, premieresLink: link(view, date, !premieres),
            count: words.plural("{count} episode", "{count} episodes", count: airings.count), weekHeads: clock.weekHeads, view: view.rawValue, date: date.description)
        return try pages.page("calendar", model)
    }

    /// The days a view shows around `date` (a month view runs from the week's first day, `firstWeekday` as
    /// `CivilDate.weekday` counts, on or before the 1st to the week's last day on or after the month's last), and how
    /// its previous and next links move.
    static func range(_ view: View, around date: CivilDate, firstWeekday: Int) -> (CivilDate, CivilDate, (CivilDate, Int) -> CivilDate) {
        let weekStart = { (day: CivilDate) in day.adding(days: -((day.weekday - firstWeekday + 7) % 7)) }
        switch view {
        case .day:
            return (date, date, { $0.adding(days: $1) })
        case .week:
            let start = weekStart(date)
            return (start, start.adding(days: 6), { $0.adding(days: 7 * $1) })
        case .month:
            let first = CivilDate(year: date.year, month: date.month, day: 1)
            let last = CivilDate(year: date.year, month: date.month, day: CivilTime.daysIn(month: date.month, year: date.year))
            let end = last.adding(days: (firstWeekday + 6 - last.weekday) % 7)
            return (weekStart(first), end, { day, by in
                let months = day.year * 12 + day.month - 1 + by
                return CivilDate(year: months / 12, month: months % 12 + 1, day: 1)
            })
        }
    }
}
