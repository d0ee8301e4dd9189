import Foundation

/// The folded form that search compares: lower case, without diacritics, so "Café" finds "cafe".
///
/// Stored search text and query terms go through the same folding, which keeps matching a plain substring test
/// and works for scripts written without spaces.
public enum SearchText {
    /// Folds case and strips combining marks; ASCII takes a fast path since most listings are ASCII.
    public static func fold(_ text: String) -> String {
        var isASCII = true
        var hasUpper = false
        for byte in text.utf8 {
            if byte >= 0x80 { isASCII = false; break }
            if byte >= 0x41 && byte <= 0x5A { hasUpper = true }
        }
        if isASCII {
            guard hasUpper else { return text }
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
        }
        let decomposed = text.decomposedStringWithCanonicalMapping
        var scalars = String.UnicodeScalarView()
        for scalar in decomposed.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: continue
            default: scalars.append(scalar)
            }
        }
        return String(scalars).lowercased()
    }
}

/// What a viewer searches for: every term must appear, as a substring, in the chosen fields.
public struct SearchQuery: Hashable, Sendable {
    /// Which text a search looks in.
    public enum Scope: String, Sendable, CaseIterable, Codable {
        /// Titles only.
        case title
        /// Titles, sub-titles and descriptions.
        case all
    }

    /// The folded terms, without empty ones or repeats.
    public let terms: [String]
    public var scope: Scope
    public var limit: Int

    /// Splits each argument on whitespace, so `["doctor who"]` and `["doctor", "who"]` mean the same.
    public init(_ arguments: [String], scope: Scope = .title, limit: Int = 100) {
        var terms: [String] = []
        for argument in arguments {
            for word in argument.split(whereSeparator: \.isWhitespace) {
                let folded = SearchText.fold(String(word))
                if !terms.contains(folded) { terms.append(folded) }
            }
        }
        self.terms = terms
        self.scope = scope
        self.limit = limit
    }

    /// Whether folded `text` holds every term.
    public func matches(folded text: String) -> Bool {
        terms.allSatisfy { text.contains($0) }
    }
}
