import Foundation
import GuideCore
import GuideStore
import GuideWebFormats

/// Followed episodes as an iCalendar feed (RFC 5545) any calendar app can subscribe to: one VEVENT per episode with
/// a UID that stays the same across fetches (so apps update events, not duplicate them), UTC times, and a VALARM
/// the profile's lead time before airing for shows with reminders on. Episodes with no air time are all-day events
/// whose reminder fires at 09:00 on the day.
public enum EpisodeCalendar {
    /// The feed for `airings`, stamped `now`, its alarms in `words`' language.
    public static func feed(_ airings: [Airing], calendarName: String, leadMinutes: Int, now: Date, words: Localizer = .english) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tvguide//Followed shows//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
            "X-WR-CALNAME:" + ICalendar.text(calendarName), "REFRESH-INTERVAL;VALUE=DURATION:PT6H", "X-PUBLISHED-TTL:PT6H",
        ]
        let stamp = ICalendar.utc(now)
        for airing in airings {
            let summary = summary(of: airing)
            var event = ["BEGIN:VEVENT", "UID:tvmaze-episode-\(airing.episode.id)@tvguide", "DTSTAMP:" + stamp]
            switch airing.time {
            case .instant(let start):
                event += ["DTSTART:" + ICalendar.utc(start), "DTEND:" + ICalendar.utc(airing.end ?? start)]
            case .day(let day):
                event += ["DTSTART;VALUE=DATE:" + ICalendar.date(day), "DTEND;VALUE=DATE:" + ICalendar.date(day.adding(days: 1)), "TRANSP:TRANSPARENT"]
            case .unknown:
                continue
            }
            event.append("SUMMARY:" + ICalendar.text(summary))
            let link = airing.episode.url ?? airing.show.url
            let description = [airing.show.channel?.name, airing.episode.name.map { "“\($0)”" }, link].compactMap { $0 }
            if !description.isEmpty { event.append("DESCRIPTION:" + ICalendar.text(description.joined(separator: "\n"))) }
            if let link = link.flatMap(ICalendar.uri) { event.append("URL:" + link) }
            if airing.reminders {
                let trigger = airing.time.instant == nil ? "PT9H" : "-PT\(leadMinutes)M"
                let alarm = airing.time.instant == nil ? words("{episode} starts today", ["episode": summary])
                    : leadMinutes == 0 ? words("{episode} starts now", ["episode": summary])
                    : words.plural("{episode} starts in {count} minute", "{episode} starts in {count} minutes", count: leadMinutes, ["episode": summary])
                event += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + ICalendar.text(alarm),
                          "TRIGGER:" + trigger, "END:VALARM"]
            }
            event.append("END:VEVENT")
            lines += event
        }
        lines.append("END:VCALENDAR")
        return ICalendar.document(lines)
    }

    /// "Under the Dome S01E01 Pilot".
    public static func summary(of airing: Airing) -> String { summary(show: airing.show.name, episode: airing.episode) }

    public static func summary(show: String, episode: Episode) -> String {
        [show, episode.code, episode.name].compactMap { $0 }.joined(separator: " ")
    }
}
