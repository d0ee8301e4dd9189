import CStringSearch
import Foundation

/// The byte-level reading the layout scan does: spaces, dates, newlines, tags and their attributes, searches.
extension ListingLayoutScanner {
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The date a start is written with (its first eight digits, `YYYYMMDD`, as a number): the provider's own day.
    /// Read a byte at a time by index: through `drop`, `prefix` and `reduce` on the slice it was 3% of a survey.
    static func date(_ start: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        var index = start.startIndex
        while index < start.endIndex, start.base[index] == 0x20 { index += 1 }
        guard start.endIndex - index >= 8 else { return nil }
        var value: Int64 = 0
        for at in index..<(index + 8) {
            let digit = start.base[at] &- 0x30
            guard digit <= 9 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }

    /// The newlines in `bytes`, 32 bytes at a time: a vector compare gives each newline's lane all ones (255, so
    /// subtracting it adds one), counted in bytes for up to 255 blocks, then added up. Seven times as fast as eight
    /// bytes at a time in a word, which was a sixth of the scan's time (a `memchr` a line cost more than the rest).
    static func newlines(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int {
        guard let base = bytes.base.baseAddress else { return 0 }
        let newline = SIMD32<UInt8>(repeating: 0x0A)
        var count = 0
        var index = bytes.startIndex
        while index + 32 <= bytes.endIndex {
            var lanes = SIMD32<UInt8>()
            for _ in 0..<min(255, (bytes.endIndex - index) / 32) {
                let block = UnsafeRawPointer(base + index).loadUnaligned(as: SIMD32<UInt8>.self)
                lanes &-= unsafeBitCast(block .== newline, to: SIMD32<UInt8>.self)
                index += 32
            }
            count &+= Int(SIMD32<UInt16>(truncatingIfNeeded: lanes).wrappedSum())
        }
        while index < bytes.endIndex {
            count &+= base[index] == 0x0A ? 1 : 0
            index += 1
        }
        return count
    }

    static func index(of byte: UInt8, _ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < p.count, let base = p.baseAddress, let found = memchr(base + start, Int32(byte), p.count - start)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Where `text` first starts in `p` at or after `start` (`memmem`: a programme's children's `<`, one `memchr`
    /// each, were most of the scan).
    static func index(of text: StaticString, _ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < p.count, let base = p.baseAddress,
              let found = memmem(base + start, p.count - start, text.utf8Start, text.utf8CodeUnitCount)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether `a` holds the bytes of `b`.
    static func equal(_ a: Slice<UnsafeBufferPointer<UInt8>>, _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard let base = a.base.baseAddress, !b.isEmpty else { return true }
        return b.withUnsafeBufferPointer { kept in
            kept.baseAddress.map { memcmp(base + a.startIndex, $0, b.count) == 0 } ?? false
        }
    }

    /// Whether `a` holds the bytes of `b`.
    static func equal(_ a: Slice<UnsafeBufferPointer<UInt8>>, _ b: StaticString) -> Bool {
        guard a.count == b.utf8CodeUnitCount, let base = a.base.baseAddress else { return false }
        return memcmp(base + a.startIndex, b.utf8Start, a.count) == 0
    }

    static func has(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard start + count <= p.count else { return false }
        for offset in 0..<count where p[start + offset] != text.utf8Start[offset] { return false }
        return true
    }

    /// Whether `<name` starts at `open`, followed by a space, `>` or `/`.
    static func isTag(_ p: UnsafeBufferPointer<UInt8>, _ open: Int, _ name: StaticString) -> Bool {
        let after = open + 1 + name.utf8CodeUnitCount
        guard after < p.count, p[open] == 0x3C else { return false }
        for offset in 0..<name.utf8CodeUnitCount where p[open + 1 + offset] != name.utf8Start[offset] { return false }
        return isSpace(p[after]) || p[after] == 0x3E || p[after] == 0x2F
    }

    /// The `>` ending the start tag at `open`, past quoted values; nil when not here yet.
    static func tagEnd(_ p: UnsafeBufferPointer<UInt8>, from open: Int) -> Int? {
        var quote: UInt8?
        var index = open + 1
        while index < p.count {
            let byte = p[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == 0x22 || byte == 0x27 {
                quote = byte
            } else if byte == 0x3E {
                return index
            }
            index += 1
        }
        return nil
    }

    typealias Attributes = (channel: Slice<UnsafeBufferPointer<UInt8>>?, start: Slice<UnsafeBufferPointer<UInt8>>?,
                            stop: Slice<UnsafeBufferPointer<UInt8>>?)

    /// The `>` ending the start tag at `open` and its `channel`, `start` and `stop`, read in one pass when every
    /// attribute is `name="value"` (spaces around `=` allowed), each value found with `memchr`: ``tagEnd(_:from:)``
    /// and then ``attributes(_:)`` went over each tag twice a byte at a time, a fifth of the scan. Nil for a tag not
    /// all here or of another form, which those two read.
    static func usualStartTag(_ p: UnsafeBufferPointer<UInt8>, from open: Int) -> (end: Int, attributes: Attributes)? {
        guard let base = p.baseAddress else { return nil }
        var found: Attributes = (nil, nil, nil)
        var index = open + 10
        while index < p.count {
            let byte = p[index]
            if isSpace(byte) || byte == 0x2F {
                index += 1
                continue
            }
            if byte == 0x3E { return (index, found) }
            let nameStart = index
            while index < p.count, p[index] != 0x3D, !isSpace(p[index]) {
                guard p[index] != 0x3E, p[index] != 0x22, p[index] != 0x27 else { return nil }
                index += 1
            }
            let name = p[nameStart..<index]
            while index < p.count, isSpace(p[index]) { index += 1 }
            guard index < p.count, p[index] == 0x3D else { return nil }
            index += 1
            while index < p.count, isSpace(p[index]) { index += 1 }
            guard index < p.count, p[index] == 0x22 || p[index] == 0x27,
                  let close = memchr(base + index + 1, Int32(p[index]), p.count - index - 1) else { return nil }
            let valueEnd = base.distance(to: close.assumingMemoryBound(to: UInt8.self))
            let value = p[(index + 1)..<valueEnd]
            index = valueEnd + 1
            take(name, value, into: &found)
        }
        return nil
    }

    /// Keeps `value` when `name` is one of the three attributes the scan reads (the last of each, as a reader does).
    private static func take(_ name: Slice<UnsafeBufferPointer<UInt8>>, _ value: Slice<UnsafeBufferPointer<UInt8>>,
                             into found: inout Attributes) {
        if equal(name, "channel") {
            found.channel = value
        } else if equal(name, "start") {
            found.start = value
        } else if equal(name, "stop") {
            found.stop = value
        }
    }

    /// What the bytes after a programme's start tag hold first: its `</programme`, a `<!` (a comment or CDATA, which
    /// the scan refuses inside a programme), or neither yet.
    enum Closing: Equatable {
        case at(Int)
        case markup
        case notHere
    }

    /// Where `</programme` first starts in `p` at or after `start`, unless `<!` comes first: 32 bytes at a time, each
    /// compared for `<` followed by `/p` or by `!`; only a block with one is looked at closely (`memmem` was a tenth
    /// of the scan, and a `memchr` for `!` over the same bytes after it another 6%).
    static func closingTag(_ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Closing {
        guard let base = p.baseAddress else { return .notHere }
        let open = SIMD32<UInt8>(repeating: 0x3C), slash = SIMD32<UInt8>(repeating: 0x2F)
        let letter = SIMD32<UInt8>(repeating: 0x70), bang = SIMD32<UInt8>(repeating: 0x21)
        var index = start
        while index + 34 <= p.count {
            let here = UnsafeRawPointer(base + index)
            let next = here.loadUnaligned(fromByteOffset: 1, as: SIMD32<UInt8>.self)
            let closes = (next .== slash) .& (here.loadUnaligned(fromByteOffset: 2, as: SIMD32<UInt8>.self) .== letter)
            let candidates = (here.loadUnaligned(as: SIMD32<UInt8>.self) .== open) .& (closes .| (next .== bang))
            // A true lane is all ones: the mask's 32 bytes as four words, any of them not zero (`any` was a call).
            let words = unsafeBitCast(candidates, to: SIMD4<UInt64>.self)
            if words[0] | words[1] | words[2] | words[3] != 0, let found = closing(p, from: index, before: index + 32) {
                return found
            }
            index += 32
        }
        return closing(p, from: index, before: p.count) ?? .notHere
    }

    /// What the `<` in `p[start..<end]` open, a byte at a time: the first `<!` or `</programme`, or `.notHere` for a
    /// `<` too near the end of `p` to tell; nil when none of them is there.
    private static func closing(_ p: UnsafeBufferPointer<UInt8>, from start: Int, before end: Int) -> Closing? {
        for at in start..<end where p[at] == 0x3C {
            guard at + 11 <= p.count else { return at + 1 < p.count && p[at + 1] == 0x21 ? .markup : .notHere }
            if p[at + 1] == 0x21 { return .markup }
            if has(p, at, "</programme") { return .at(at) }
        }
        return nil
    }

    /// The `channel`, `start` and `stop` values of a start tag's attributes.
    static func attributes(_ tag: Slice<UnsafeBufferPointer<UInt8>>) -> Attributes {
        var found: Attributes = (nil, nil, nil)
        var index = tag.startIndex
        let end = tag.endIndex
        while index < end {
            while index < end, isSpace(tag[index]) || tag[index] == 0x2F { index += 1 }
            let nameStart = index
            while index < end, tag[index] != 0x3D, !isSpace(tag[index]) { index += 1 }
            let name = tag[nameStart..<index]
            while index < end, isSpace(tag[index]) { index += 1 }
            guard index < end, tag[index] == 0x3D else { break }
            index += 1
            while index < end, isSpace(tag[index]) { index += 1 }
            guard index < end, tag[index] == 0x22 || tag[index] == 0x27 else { break }
            let quote = tag[index]
            index += 1
            let valueStart = index
            while index < end, tag[index] != quote { index += 1 }
            let value = tag[valueStart..<index]
            index += 1
            take(name, value, into: &found)
        }
        return found
    }
}
