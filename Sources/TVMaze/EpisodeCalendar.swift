import Foundation
import GuideCore
import GuideStore

/// Followed episodes as an iCalendar feed (RFC 5545) any calendar app can subscribe to: one VEVENT per episode with
/// a UID that stays the same across fetches (so apps update events, not duplicate them), UTC times, and a VALARM
/// the profile's lead time before airing for shows with reminders on. Episodes with no air time are all-day events
/// whose reminder fires at 09:00 on the day.
public enum EpisodeCalendar {
    /// The feed for `airings`, stamped `now`.
    public static func feed(_ airings: [Airing], calendarName: String, leadMinutes: Int, now: Date) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tvguide//Followed shows//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
            "X-WR-CALNAME:" + text(calendarName), "REFRESH-INTERVAL;VALUE=DURATION:PT6H", "X-PUBLISHED-TTL:PT6H",
        ]
        let stamp = utc(now)
        for airing in airings {
            let summary = summary(of: airing)
            var event = ["BEGIN:VEVENT", "UID:tvmaze-episode-\(airing.episode.id)@tvguide", "DTSTAMP:" + stamp]
            switch airing.time {
            case .instant(let start):
                event += ["DTSTART:" + utc(start), "DTEND:" + utc(airing.end ?? start)]
            case .day(let day):
                event += ["DTSTART;VALUE=DATE:" + date(day), "DTEND;VALUE=DATE:" + date(day.adding(days: 1)), "TRANSP:TRANSPARENT"]
            case .unknown:
                continue
            }
            event.append("SUMMARY:" + text(summary))
            let link = airing.episode.url ?? airing.show.url
            let description = [airing.show.channel?.name, airing.episode.name.map { "“\($0)”" }, link].compactMap { $0 }
            if !description.isEmpty { event.append("DESCRIPTION:" + text(description.joined(separator: "\n"))) }
            if let link = link.flatMap(uri) { event.append("URL:" + link) }
            if airing.reminders {
                let trigger = airing.time.instant == nil ? "PT9H" : "-PT\(leadMinutes)M"
                let when = airing.time.instant == nil ? "today" : leadMinutes == 0 ? "now" : "in \(leadMinutes) minutes"
                event += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + text("\(summary) starts \(when)"),
                          "TRIGGER:" + trigger, "END:VALARM"]
            }
            event.append("END:VEVENT")
            lines += event
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// "Under the Dome S01E01 Pilot".
    public static func summary(of airing: Airing) -> String {
        [airing.show.name, airing.episode.code, airing.episode.name].compactMap { $0 }.joined(separator: " ")
    }

    /// TEXT values escape backslashes, semicolons, commas and line breaks (RFC 5545 3.3.11); other control
    /// characters, which TEXT may not hold, are left out.
    static func text(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case ";": escaped += "\\;"
            case ",": escaped += "\\,"
            case "\n", "\r\n", "\r": escaped += "\\n"
            case _ where character != "\t" && character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }):
                continue
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A URI value: an http(s) address with nothing a line could break on (a TVmaze link is data from outside); nil
    /// for anything else.
    static func uri(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              url.host?.isEmpty == false,
              !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            return nil
        }
        return text
    }

    /// Lines longer than 75 octets continue on lines starting with a space, never splitting a character (3.1).
    static func fold(_ line: String) -> String {
        guard line.utf8.count > 75 else { return line }
        var folded = "", width = 0
        for character in line {
            let size = String(character).utf8.count
            if width + size > 75 {
                folded += "\r\n "
                width = 1
            }
            folded.append(character)
            width += size
        }
        return folded
    }

    static func utc(_ instant: Date) -> String {
        let parts = CivilTime.components(instant.unixSeconds)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second)
    }

    static func date(_ day: CivilDate) -> String { String(format: "%04d%02d%02d", day.year, day.month, day.day) }
}
