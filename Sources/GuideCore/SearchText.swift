import Foundation
import Synchronization

/// The folded form that search compares: lower case, without diacritics, so "Café" finds "cafe".
///
/// Stored search text and query terms go through the same folding, which keeps matching a plain substring test
/// and works for scripts written without spaces.
public enum SearchText {
    /// Folds case and strips combining marks. ASCII takes a byte fast path; other characters are folded once each
    /// and remembered, since Unicode decomposition is slow and listings reuse a small alphabet.
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
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        // One lock per text, not per character.
        cache.withLock { cache in
            for scalar in text.unicodeScalars {
                let value = scalar.value
                if value < 0x80 {
                    output.append(value >= 0x41 && value <= 0x5A ? UInt8(value + 32) : UInt8(value))
                } else {
                    cache.append(scalar, to: &output)
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Folded characters seen so far: the scripts of most listings (Latin, Greek, Cyrillic, Hebrew, Arabic, Thai,
    /// ...) below U+3000 in a flat table, up to 7 UTF-8 bytes packed with their count in the top byte; the rest in
    /// a dictionary.
    struct FoldCache: ~Copyable {
        static let tableSize: UInt32 = 0x3000
        var table = [UInt64](repeating: 0, count: Int(tableSize))
        var others: [UInt32: [UInt8]] = [:]

        mutating func append(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
            let value = scalar.value
            if value < Self.tableSize {
                var packed = table[Int(value)]
                if packed == 0 {
                    let folded = Array(foldSlowly(scalar).utf8)
                    guard folded.count <= 7 else {
                        output.append(contentsOf: folded)
                        return
                    }
                    packed = UInt64(folded.count) << 56
                    for (index, byte) in folded.enumerated() { packed |= UInt64(byte) << (8 * index) }
                    table[Int(value)] = packed
                }
                for index in 0..<Int(packed >> 56) { output.append(UInt8(truncatingIfNeeded: packed >> (8 * index))) }
            } else if let folded = others[value] {
                output.append(contentsOf: folded)
            } else {
                let folded = Array(foldSlowly(scalar).utf8)
                others[value] = folded
                output.append(contentsOf: folded)
            }
        }
    }

    private static let cache = Mutex(FoldCache())

    static func foldSlowly(_ scalar: Unicode.Scalar) -> String {
        var scalars = String.UnicodeScalarView()
        for part in String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars {
            switch part.properties.generalCategory {
            case .nonspacingMark, .enclosingMark: continue
            default: scalars.append(part)
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

    /// The most characters a person's search may have (the page, the API and the CLI alike).
    public static let longestText = 200
    /// The most words a person's search may have: each is a scan of the titles.
    public static let mostTerms = 10

    /// Why `text`, typed by a person, is not a search to run; nil when it is.
    public static func problem(withText text: String) -> String? {
        if text.count > longestText { return "a search has at most \(longestText) characters; this one has \(text.count)" }
        let words = text.split(whereSeparator: \.isWhitespace).count
        if words > mostTerms { return "a search has at most \(mostTerms) words; this one has \(words)" }
        return nil
    }

    /// The folded terms, without empty ones or repeats.
    public let terms: [String]
    public var scope: Scope
    public var limit: Int

    /// Splits each argument on whitespace, so `["doctor who"]` and `["doctor", "who"]` mean the same. Control
    /// characters separate words too: stored text holds none (a NUL was read as U+FFFD), and the title index's query
    /// language cannot take them (a NUL there was a 500, found by schemathesis).
    public init(_ arguments: [String], scope: Scope = .title, limit: Int = 100) {
        var terms: [String] = []
        for argument in arguments {
            for word in argument.split(whereSeparator: { $0.isWhitespace || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) {
                let folded = SearchText.fold(String(word))
                // A word of combining marks folds to nothing: no term (found by scripts/fuzz).
                if !folded.isEmpty, !terms.contains(folded) { terms.append(folded) }
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
