import Foundation
import GuideCore

/// The texts the pages' scripts write (the refresh view, the offline banner and glance, "Notify this browser"), in
/// the page's language: written once per language into `<body data-words>`, where `say` and `sayCount` (installed.js)
/// read them by their English. A text here is in the catalogs like any other; a text a script says that is not here
/// stays English, which the catalog tests catch.
enum ScriptWords {
    /// A text as a script says it: one form, or a plural's forms in the order of the language's categories.
    struct Text {
        let forms: [String]
        let isPlural: Bool

        static func one(_ text: String) -> Text { Text(forms: [text], isPlural: false) }
        static func forms(_ forms: [String]) -> Text { Text(forms: forms, isPlural: true) }

        /// Its English: the text, or a plural's singular, which `sayCount` names it by.
        var key: String { forms.first ?? "" }
        var json: Any { isPlural ? forms : key }
    }

    /// Every text, in `words`' language.
    static func texts(_ words: Localizer) -> [Text] {
        [
            .one(words("No refresh has run since the server started.")),
            .forms(plural(words) {
                words.plural("Refreshing: {done} of {count} download done", "Refreshing: {done} of {count} downloads done",
                             count: $0, ["count": "{count}", "done": "{done}"])
            }),
            .forms(plural(words) {
                words.plural("Last refresh: {done} of {count} download done", "Last refresh: {done} of {count} downloads done",
                             count: $0, ["count": "{count}", "done": "{done}"])
            }),
            .one(words("Downloads done")),
            .one(words("{percent}% of {size}")),
            .forms(plural(words) {
                words.plural("{size}, {count} programme", "{size}, {count} programmes", count: $0, ["count": "{count}", "size": "{size}"])
            }),
            .one(words("(try {attempt})")),
            .one(words("(try {attempt}: {reason})")),
            .one(words("{size} MB")),
            .one(words("Offline - listings as of {time}")),
            .one(words("The listings kept on this device do not cover now.")),
            .one(words("Nothing listed now")),
            .one(words("Next: {title}")),
            .forms(plural(words) { words.plural("{count} min left", "{count} min left", count: $0, ["count": "{count}"]) }),
            .one(words("{elapsed} of {length} minutes")),
            .one(words("Asking this browser…")),
            .one(words("This browser cannot be notified: {reason}.")),
            .one(words("notifications are blocked for this site in the browser's settings")),
            .one(words("the server has no push key")),
            .one(words("the server said {status}")),
        ]
    }

    /// The texts as `<body data-words>` holds them: a JSON object from each English text to the language's (a plural,
    /// to its forms in the order of `@plurals`, the language's CLDR categories), escaped for an attribute, its braces
    /// as character references so no template reads them.
    static func attribute(_ words: Localizer) -> String {
        var object: [String: Any] = ["@plurals": words.language.pluralCategories.map(\.rawValue)]
        for (english, text) in zip(texts(.english), texts(words)) {
            object[english.key] = text.json
        }
        let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return json.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "{", with: "&#123;").replacingOccurrences(of: "}", with: "&#125;")
    }

    /// A plural's forms in `words`' language, one for each of its categories, its values left as placeholders.
    private static func plural(_ words: Localizer, _ form: (Int) -> String) -> [String] {
        words.language.pluralCategories.map { category in
            form([1, 2, 0, 3, 5, 1_000_000].first { words.language.pluralCategory($0) == category } ?? 5)
        }
    }
}
