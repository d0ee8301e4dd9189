import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Entity decoding and string making for the scanner's text and attribute values.
enum XMLText {
    /// Appends `range` to `output`, replacing the five predefined entities and character references.
    /// Anything else that looks like an entity (`&nbsp;`) is kept as written and counted.
    @inline(__always)
    static func appendDecoded(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into output: inout [UInt8],
                              issues: inout EntityIssues) {
        var index = range.lowerBound
        let end = range.upperBound
        var runStart = index
        // Found by memchr, not a byte at a time: this was the builder's costliest step (5% of the reading thread).
        while let ampersand = firstIndex(of: 0x26, in: bytes, from: index, to: end) {
            index = ampersand
            output.append(contentsOf: bytes[runStart..<index])
            var semicolon = index + 1
            while semicolon < end, semicolon - index <= 12, bytes[semicolon] != 0x3B { semicolon += 1 }
            if semicolon < end, bytes[semicolon] == 0x3B, let scalar = entity(bytes, (index + 1)..<semicolon) {
                appendUTF8(scalar, into: &output)
                index = semicolon + 1
            } else {
                issues.unknownCount += 1
                if issues.firstUnknown == nil {
                    let stop = semicolon < end ? semicolon + 1 : min(end, index + 12)
                    issues.firstUnknown = String(decoding: bytes[index..<stop], as: UTF8.self)
                }
                output.append(0x26)
                index += 1
            }
            runStart = index
        }
        output.append(contentsOf: bytes[runStart..<end])
    }

    /// Where `byte` first is in `bytes[start..<end]`, by memchr: the scanner's and the entity decoding's search.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = bytes.baseAddress,
              let found = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    static func entity(_ bytes: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> UInt32? {
        let count = name.count
        guard count > 0 else { return nil }
        let first = bytes[name.lowerBound]
        if first == 0x23 {  // '#'
            var index = name.lowerBound + 1
            var radix: UInt32 = 10
            if index < name.upperBound, bytes[index] == 0x78 || bytes[index] == 0x58 { radix = 16; index += 1 }
            guard index < name.upperBound else { return nil }
            var value: UInt32 = 0
            while index < name.upperBound {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x61...0x66 where radix == 16: digit = UInt32(byte - 0x61 + 10)
                case 0x41...0x46 where radix == 16: digit = UInt32(byte - 0x41 + 10)
                default: return nil
                }
                value = value * radix + digit
                if value > 0x10FFFF { return nil }
                index += 1
            }
            guard value != 0, Unicode.Scalar(value) != nil else { return nil }
            return value
        }
        func equals(_ text: StaticString) -> Bool {
            guard text.utf8CodeUnitCount == count else { return false }
            for offset in 0..<count where bytes[name.lowerBound + offset] != text.utf8Start[offset] { return false }
            return true
        }
        switch count {
        case 2: return equals("lt") ? 0x3C : equals("gt") ? 0x3E : nil
        case 3: return equals("amp") ? 0x26 : nil
        case 4: return equals("quot") ? 0x22 : equals("apos") ? 0x27 : nil
        default: return nil
        }
    }

    @inline(__always)
    static func appendUTF8(_ value: UInt32, into output: inout [UInt8]) {
        switch value {
        case ..<0x80: output.append(UInt8(value))
        case ..<0x800:
            output.append(UInt8(0xC0 | (value >> 6)))
            output.append(UInt8(0x80 | (value & 0x3F)))
        case ..<0x10000:
            output.append(UInt8(0xE0 | (value >> 12)))
            output.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            output.append(UInt8(0x80 | (value & 0x3F)))
        default:
            output.append(UInt8(0xF0 | (value >> 18)))
            output.append(UInt8(0x80 | ((value >> 12) & 0x3F)))
            output.append(UInt8(0x80 | ((value >> 6) & 0x3F)))
            output.append(UInt8(0x80 | (value & 0x3F)))
        }
    }

    @inline(__always)
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
    }

    /// The text of `bytes`, with surrounding whitespace trimmed; invalid UTF-8 becomes U+FFFD.
    static func string(_ bytes: [UInt8], trimming: Bool = true, invalid: inout Int) -> String {
        var lower = 0
        var upper = bytes.count
        if trimming {
            while lower < upper, isSpace(bytes[lower]) { lower += 1 }
            while upper > lower, isSpace(bytes[upper - 1]) { upper -= 1 }
        }
        let text = bytes.withUnsafeBufferPointer { decode(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0[lower..<upper])), invalid: &invalid) }
        // Non-breaking and other Unicode spaces at the ends are padding too (seen in real Brazilian listings).
        if trimming, lower < upper, bytes[lower] >= 0x80 || bytes[upper - 1] >= 0x80 {
            return trimmingUnicodeSpace(text)
        }
        return text
    }

    /// Makes a String from UTF-8, counting it in `invalid` when bytes had to be replaced with U+FFFD.
    /// `String(validating:)` would say so directly, but it is not specialised and showed up in profiles;
    /// decoding (which repairs) and comparing the bytes costs less.
    /// NUL, which XML does not allow (and PostgreSQL's text cannot hold), counts as invalid and becomes U+FFFD too.
    @inline(__always)
    static func decode(_ bytes: UnsafeRawBufferPointer, invalid: inout Int) -> String {
        if let base = bytes.baseAddress, memchr(base, 0, bytes.count) != nil {
            invalid += 1
            return String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
        }
        var text = String(decoding: bytes, as: UTF8.self)
        let same = text.withUTF8 { utf8 in
            guard utf8.count == bytes.count else { return false }
            guard let decoded = utf8.baseAddress, let original = bytes.baseAddress else { return true }  // both empty
            return memcmp(decoded, original, bytes.count) == 0
        }
        if !same { invalid += 1 }
        return text
    }

    /// `text` without surrounding ASCII or Unicode spaces; returns the same string when there are none.
    static func trimmingSpace(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last else { return text }
        if !isSpace(first) && !isSpace(last) && first < 0x80 && last < 0x80 { return text }
        return trimmingUnicodeSpace(text)
    }

    static func trimmingUnicodeSpace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace { end = scalars.index(before: end) }
        if start == scalars.startIndex && end == scalars.endIndex { return text }
        return String(scalars[start..<end])
    }
}

/// Counts entity references the reader kept as written, for the import report.
struct EntityIssues {
    var unknownCount = 0
    var firstUnknown: String?
    /// Texts holding bytes that are not UTF-8, repaired with U+FFFD.
    var invalidUTF8 = 0
}
