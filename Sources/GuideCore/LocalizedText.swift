/// A piece of text with the language XMLTV tagged it with, as titles and descriptions come in several.
public struct LocalizedText: Hashable, Codable, Sendable {
    public var text: String
    public var language: String?

    public init(_ text: String, language: String? = nil) {
        self.text = text
        self.language = language
    }
}

extension Array where Element == LocalizedText {
    /// The text in the first of `languages` (language codes, "de" or "de-AT"; a region matches its language) that
    /// has one, else the first one given, as a guide shows one title.
    public func preferred(_ languages: [String] = []) -> String? {
        for language in languages {
            let wanted = LocalizedText.primary(language)
            if let match = first(where: { $0.language.map(LocalizedText.primary) == wanted }) { return match.text }
        }
        return first?.text
    }
}

extension Array where Element == LocalizedText {
    /// The texts with those in `languages` first, in that order, the rest as they were: a feed whose reader shows the
    /// first title shows the viewer's.
    public func ordered(_ languages: [String]) -> [LocalizedText] {
        guard !languages.isEmpty, count > 1 else { return self }
        let rank = { (text: LocalizedText) -> Int in
            text.language.flatMap { tag in languages.firstIndex { LocalizedText.primary($0) == LocalizedText.primary(tag) } } ?? languages.count
        }
        return enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
    }
}

extension LocalizedText {
    /// A language's code as a feed's address may name it (`?lang=de,en`): letters, and a region after a hyphen.
    public static func isLanguageTag(_ tag: String) -> Bool {
        (2...12).contains(tag.count) && tag.allSatisfy { ($0.isASCII && $0.isLetter) || $0 == "-" } && tag.first != "-"
    }

    /// The most languages a list (a profile's listings languages, a feed's `?lang=`, `--lang`) holds.
    public static let mostLanguages = 8

    /// A list of languages as a person or an address writes it ("de, en", "de,en"): each tag lower case, in order,
    /// once; nil when something in it is not a language tag (a list longer than ``mostLanguages`` is cut there).
    public static func languages(in text: String) -> [String]? {
        var languages: [String] = []
        for part in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
            let tag = part.lowercased()
            guard isLanguageTag(tag) else { return nil }
            // Every part is checked; only the first few different ones are kept (a list of thousands costs no more).
            if languages.count < mostLanguages, !languages.contains(tag) { languages.append(tag) }
        }
        return languages
    }

    /// A language tag's language, lower case: "de-AT" and "DE" are "de".
    static func primary(_ tag: String) -> Substring {
        Substring(tag.lowercased()).prefix { $0 != "-" && $0 != "_" }
    }

    /// The languages a viewer reads listings in, most preferred first: their profile's language, then each language
    /// their browser accepts, whether or not the pages have a catalog for it (listings in Thai for a viewer whose pages
    /// are in English).
    /// `chosen`, a profile's listings languages, come before all of them, whatever language its pages are in.
    public static func readingOrder(chosen: [String] = [], profile: String?, accepted: AcceptLanguage?) -> [String] {
        var languages = chosen.map { String(primary($0)) }
        if let profile, !languages.contains(String(primary(profile))) { languages.append(String(primary(profile))) }
        for tag in accepted?.tags ?? [] where !languages.contains(String(primary(tag))) {
            languages.append(String(primary(tag)))
        }
        return languages
    }
}
