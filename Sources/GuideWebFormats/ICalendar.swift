import Foundation
import GuideCore

/// iCalendar's text rules (RFC 5545), for the followed-shows feed and a programme's "Add to calendar": escaped TEXT
/// values, safe URIs, UTC and date values, folded lines, CRLF.
public enum ICalendar {
    /// The lines of a calendar: each folded at 75 octets, each ending in CRLF.
    public static func document(_ lines: [String]) -> String {
        lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// TEXT values escape backslashes, semicolons, commas and line breaks (3.3.11); other control characters, which
    /// TEXT may not hold, are left out.
    public static func text(_ value: String) -> String {
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

    /// A URI value: an http(s) address with nothing a line could break on (links are data from outside); nil for
    /// anything else.
    public static func uri(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              url.host?.isEmpty == false,
              !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            return nil
        }
        return text
    }

    /// Lines longer than 75 octets continue on lines starting with a space, never splitting a character (3.1).
    public static func fold(_ line: String) -> String {
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

    /// A UTC DATE-TIME: `20130625T020000Z`.
    public static func utc(_ instant: Date) -> String {
        let parts = CivilTime.components(instant.unixSeconds)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second)
    }

    /// A DATE: `20130625`.
    public static func date(_ day: CivilDate) -> String { String(format: "%04d%02d%02d", day.year, day.month, day.day) }
}
