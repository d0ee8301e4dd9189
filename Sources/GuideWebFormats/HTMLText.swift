import Foundation
import GuideCore

/// Summary HTML as plain text, for listings, pages and the terminal.
public enum HTMLText {
    /// Paragraphs of plain text from summary HTML (TVmaze writes `<p><b>Title</b> is ...</p>`): tags go, paragraph
    /// and line breaks split, the common entities are read. A page escapes what is left.
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

    /// One line: the paragraphs joined, whitespace collapsed.
    public static func plain(_ html: String) -> String {
        paragraphs(html).joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
