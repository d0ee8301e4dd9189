import Foundation

/// Another title a show goes by, where (TVmaze's `/shows/:id/akas`): "A búra alatt" in Hungary for "Under the Dome".
public struct AlsoKnownAs: Hashable, Sendable, Codable {
    public var name: String
    /// ISO 3166-1 alpha-2 ("HU"); nil for the show's own country.
    public var country: String?

    public init(name: String, country: String?) {
        (self.name, self.country) = (name, country)
    }

    /// At most this many are kept per show, each at most ``longestName`` characters.
    public static let mostKept = 100
    public static let longestName = 200

    /// The titles among `akas` a viewer reading `languages` (tags: "hu", "de-AT") would find in their listings: those of
    /// the countries the tags name ("de-AT": Austria) or where their languages are spoken, and those of the show's own
    /// country; at most 50.
    public static func titles(_ akas: [AlsoKnownAs], readIn languages: [String]) -> [String] {
        var countries: Set<String> = []
        for tag in languages.prefix(32) {
            let parts = tag.split(whereSeparator: { $0 == "-" || $0 == "_" })
            guard let primary = parts.first?.lowercased() else { continue }
            countries.formUnion(spokenIn[primary] ?? [])
            if let region = parts.dropFirst().first(where: { $0.count == 2 && $0.allSatisfy(\.isLetter) }) {
                countries.insert(region.uppercased())
            }
        }
        return Array(akas.filter { aka in aka.country.map { countries.contains($0.uppercased()) } ?? true }.map(\.name).prefix(50))
    }

    /// Where a language is the first of the listings (ISO 639-1 to ISO 3166-1), for the languages listings come in most.
    static let spokenIn: [String: [String]] = [
        "en": ["GB", "US", "IE", "CA", "AU", "NZ", "ZA"], "de": ["DE", "AT", "CH", "LI", "LU"], "fr": ["FR", "BE", "CH", "CA", "LU", "MC"],
        "es": ["ES", "MX", "AR", "CO", "CL", "PE", "VE", "UY", "EC", "US"], "hu": ["HU"], "he": ["IL"], "iw": ["IL"],
        "it": ["IT", "CH", "SM"], "nl": ["NL", "BE"], "pt": ["PT", "BR"], "pl": ["PL"], "cs": ["CZ"], "sk": ["SK"], "sv": ["SE", "FI"],
        "da": ["DK"], "nb": ["NO"], "no": ["NO"], "nn": ["NO"], "fi": ["FI"], "ru": ["RU", "BY", "KZ"], "uk": ["UA"], "ro": ["RO", "MD"],
        "el": ["GR", "CY"], "tr": ["TR"], "ja": ["JP"], "ko": ["KR"], "zh": ["CN", "TW", "HK"], "ar": ["EG", "SA", "AE", "MA"],
        "hr": ["HR"], "sr": ["RS"], "sl": ["SI"], "bg": ["BG"], "et": ["EE"], "lv": ["LV"], "lt": ["LT"], "is": ["IS"],
    ]
}
