import Foundation

/// TVmaze's text as plain text, for pages and the terminal.
public enum TVMazeText {
    /// A summary's paragraphs as plain text: TVmaze writes HTML (`<p><b>Title</b> is ...</p>`); tags go, entities are
    /// read; a page escapes what is left.
    public static func paragraphs(_ html: String?) -> [String] {
        guard let html, !html.isEmpty else { return [] }
        var text = "", inTag = false, tag = ""
        for character in html {
            if inTag {
                if character == ">" {
                    inTag = false
                    let name = tag.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
                    if name.hasPrefix("p") || name.hasPrefix("br") || name.hasPrefix("li") { text += "\n" }
                } else {
                    tag.append(character)
                }
            } else if character == "<" {
                inTag = true
                tag = ""
            } else {
                text.append(character)
            }
        }
        for (entity, value) in [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&apos;", "'"), ("&nbsp;", " ")] {
            text = text.replacingOccurrences(of: entity, with: value)
        }
        return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The year of a `YYYY-MM-DD` date.
    public static func year(_ date: String?) -> String? {
        guard let date, date.count >= 4 else { return nil }
        return String(date.prefix(4))
    }
}
