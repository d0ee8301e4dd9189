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
        var text = text
        return text.withUTF8(fold(utf8:)) ?? text
    }

    /// The folded form of valid UTF-8, or nil when it is already folded (ASCII without capitals). ASCII runs are
    /// copied whole and lowered in place; only other characters are decoded, one by one, for the cache. The state is
    /// passed by hand rather than captured by a local function: that function's captures were checked at run time, 17
    /// times a text (5% of an import's reading thread in `GuideBench prepare` on a guide of new descriptions).
    private static func fold(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let first = bytes.firstIndex(where: { $0 >= 0x80 || isCapital($0) }) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<first]))
        guard bytes[first...].contains(where: { $0 >= 0x80 }) else {
            _ = copyASCII(bytes, at: first, to: &output)
            return String(decoding: output, as: UTF8.self)
        }
        // One lock per text, not per character.
        cache.withLock { cache in
            var index = first
            while index < bytes.count {
                let lead = bytes[index]
                if lead < 0x80 {
                    index = copyASCII(bytes, at: index, to: &output)
                    continue
                }
                // Valid UTF-8 (a String's): the lead byte says how many continuation bytes follow.
                let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                for offset in 1..<length where index + offset < bytes.count {
                    value = value << 6 | UInt32(bytes[index + offset] & 0x3F)
                }
                cache.append(Unicode.Scalar(value) ?? "\u{FFFD}", to: &output)
                index += length
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func isCapital(_ byte: UInt8) -> Bool { byte &- 0x41 < 26 }

    /// Copies the run of ASCII that starts at `index` to `output`, capitals lowered; where the run ends.
    private static func copyASCII(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, to output: inout [UInt8]) -> Int {
        var end = index
        while end < bytes.count && bytes[end] < 0x80 { end += 1 }
        let from = output.count
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
        output.withUnsafeMutableBufferPointer { copied in
            for position in from..<copied.count where isCapital(copied[position]) { copied[position] += 32 }
        }
        return end
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
    public static func problem(withText text: String) -> Sentence? {
        if text.count > longestText {
            return Sentence(saying: "A search has at most {most} characters; this one has {count}.", ["most": "\(longestText)", "count": "\(text.count)"])
        }
        let words = text.split(whereSeparator: \.isWhitespace).count
        if words > mostTerms { return Sentence(saying: "A search has at most {most} words; this one has {count}.", ["most": "\(mostTerms)", "count": "\(words)"]) }
        return nil
    }

    /// The folded terms, without empty ones or repeats.
    public let terms: [String]
    public var scope: Scope
    public var limit: Int
    /// Only programmes that end after this instant (nil: the past too), so "from now on" is one query.
    public var endingAfter: Date?

    /// Splits each argument on whitespace, so `["doctor who"]` and `["doctor", "who"]` mean the same. Control
    /// characters separate words too: stored text holds none (a NUL was read as U+FFFD), and the title index's query
    /// language cannot take them (a NUL there was a 500, found by schemathesis).
    public init(_ arguments: [String], scope: Scope = .title, limit: Int = 100, endingAfter: Date? = nil) {
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
        self.endingAfter = endingAfter
    }

    /// Whether folded `text` holds every term.
    public func matches(folded text: String) -> Bool {
        terms.allSatisfy { text.contains($0) }
    }
}
