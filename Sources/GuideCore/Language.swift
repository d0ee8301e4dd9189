import Foundation

/// A language the guide's pages and messages are written in: its code, its direction, and how it counts (CLDR's
/// plural categories for whole numbers, in the order of a PO file's `msgstr[N]`).
public struct Language: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The ISO 639-1 code: "en", "de", "he".
    public let code: String

    /// The languages with a complete catalog, English first (the fallback).
    public static let english = Language(code: "en")
    public static let supported: [Language] = ["en", "de", "fr", "es", "hu", "he"].map(Language.init(code:))

    private init(code: String) { self.code = code }

    /// The supported language `tag` names ("de", "de-AT", "HE_il"), or nil.
    public init?(tag: String) {
        let primary = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
        // "iw" is Hebrew's withdrawn code, still sent by some Android browsers.
        guard let found = Self.supported.first(where: { $0.code == (primary == "iw" ? "he" : primary) }) else { return nil }
        self = found
    }

    public var description: String { code }

    public init(from decoder: any Decoder) throws {
        let tag = try decoder.singleValueContainer().decode(String.self)
        guard let language = Language(tag: tag) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no catalog for the language \(tag)"))
        }
        self = language
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }

    /// The language's own name, as a picker shows it.
    public var nativeName: String {
        switch code {
        case "de": "Deutsch"
        case "fr": "Français"
        case "es": "Español"
        case "hu": "Magyar"
        case "he": "עברית"
        default: "English"
        }
    }

    /// Hebrew (and Arabic, Persian, Urdu, were they supported) are written right to left.
    public var isRightToLeft: Bool { Self.rightToLeft.contains(code) }
    static let rightToLeft: Set<String> = ["he", "ar", "fa", "ur"]

    /// The plural categories a count takes in this language, in `msgstr[N]` order.
    public var pluralCategories: [PluralCategory] {
        switch code {
        case "he": [.one, .two, .other]
        case "fr", "es": [.one, .many, .other]
        default: [.one, .other]
        }
    }

    /// CLDR's category for the whole number `count` (CLDR 46 rules, integers only: v = 0).
    public func pluralCategory(_ count: Int) -> PluralCategory {
        let magnitude = count.magnitude
        switch code {
        case "fr":
            // one: i = 0,1; many: e = 0 and i != 0 and i % 1000000 = 0
            if magnitude <= 1 { return .one }
            return magnitude % 1_000_000 == 0 ? .many : .other
        case "es":
            // one: n = 1; many: e = 0 and i != 0 and i % 1000000 = 0
            if magnitude == 1 { return .one }
            return magnitude != 0 && magnitude % 1_000_000 == 0 ? .many : .other
        case "he":
            // one: i = 1 and v = 0; two: i = 2 and v = 0
            return magnitude == 1 ? .one : magnitude == 2 ? .two : .other
        default:
            // en, de, hu: one: n = 1
            return magnitude == 1 ? .one : .other
        }
    }

    /// The language to speak to a browser that asks for `accepted`: the supported one it prefers most, else nil.
    public static func preferred(_ accepted: AcceptLanguage) -> Language? {
        accepted.tags.lazy.compactMap(Language.init(tag:)).first
    }

    /// The most specific locale `accepted` asks for in this language ("en-GB" for English when it leads), so dates
    /// and the clock follow the viewer's region; else the language alone, except English asked by no one (a feed
    /// reader, a script), which keeps the fixed forms (nil: "Sat 15 Feb", 24 hours).
    public func locale(_ accepted: AcceptLanguage?) -> Locale? {
        if let tag = accepted?.tags.first(where: { Language(tag: $0) == self }) {
            return Locale(identifier: tag.replacingOccurrences(of: "_", with: "-"))
        }
        return self == .english ? nil : Locale(identifier: code)
    }
}

/// CLDR's plural categories (https://cldr.unicode.org/index/cldr-spec/plural-rules).
public enum PluralCategory: String, Sendable, CaseIterable {
    case zero, one, two, few, many, other
}
