import Foundation
import GuideCore

/// The words of a template: `{{#t}}...{{/t}}` blocks, each an English text (its whitespace runs read as one space)
/// with `{name}` placeholders for the page's values.
enum TemplateText {
    static let open = "{{#t}}"
    static let close = "{{/t}}"

    /// `template` with every block replaced by `words`' translation, its `{name}`s made Mustache's `{{name}}`.
    static func translated(_ template: String, _ words: Localizer) -> String {
        var result = ""
        var rest = Substring(template)
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            result += rest[..<start.lowerBound]
            result += mustache(words(key(rest[start.upperBound..<end.lowerBound])))
            rest = rest[end.upperBound...]
        }
        return result + rest
    }

    /// Every text `template` asks to be translated, in order.
    static func keys(_ template: String) -> [String] {
        var keys: [String] = []
        var rest = Substring(template)
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            keys.append(key(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return keys
    }

    /// A block's text as the catalogs key it: whitespace runs (a block may span lines) as one space, trimmed.
    static func key(_ text: Substring) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `{name}` as `{{name}}`: a translation's placeholders become the template's values.
    static func mustache(_ text: String) -> String {
        guard text.contains("{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), !after[..<close].isEmpty,
               after[..<close].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." }) {
                result += "{{" + after[..<close] + "}}"
                rest = after[after.index(after: close)...]
            } else {
                result.append("{")
                rest = after
            }
        }
        return result + rest
    }

    /// Words a person reads that `template` leaves outside any block: text between tags, and the `title`, `alt`,
    /// `placeholder` and `aria-label` attributes, once Mustache's own tags are taken out. What the check in the
    /// tests reports as English left in a page.
    static func untranslated(_ template: String) -> [String] {
        var outside = ""
        var rest = Substring(template)
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            outside += rest[..<start.lowerBound] + " "
            rest = rest[end.upperBound...]
        }
        outside += rest
        let plain = outside.replacing(/\{\{\{?[^}]*\}?\}\}/, with: " ")
        var found: [String] = []
        // Attributes people read.
        for match in plain.matches(of: /(?:title|alt|placeholder|aria-label)="([^"]*)"/) {
            found.append(String(match.output.1))
        }
        // Text between tags, without scripts' and styles' insides.
        let text = plain.replacing(/<(script|style)[^>]*>.*?<\/\1>/.dotMatchesNewlines(), with: " ")
        for match in text.matches(of: />([^<]*)</) {
            found.append(String(match.output.1))
        }
        return found.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { text in
            // An example address ("https://ntfy.sh/my-tv-reminders") is the same in every language.
            !text.contains("://") && text.split(whereSeparator: { !$0.isLetter }).contains { !allowed.contains(String($0)) }
        }
    }

    /// Words that are the same in every language: the product's name, and the boxes' names headings give alone.
    static let allowed: Set<String> = ["tvguide", "Tvheadend", "HDHomeRun"]
}
