/// The trigrams (three characters) within the words of a folded text, each once a text: what both stores' title and
/// body indexes hold, and what a search asks them for. Words end at whitespace and control characters
/// (``isSeparator(_:)``).
///
/// A search term holds no whitespace (``SearchQuery`` splits on it), so no search asks for a trigram that spans two
/// words: a description of the 0.1 M-programme guide has 220 trigrams with those and every repeat, and 101 distinct
/// trigrams within words. Nothing is folded here: the texts and the terms are folded already (``SearchText``), and a
/// search checks every text an index gives it. Both stores' indexes hold them as the codes of ``codes(of:)``
/// (``TrigramPostings``).
package enum WordTrigrams {
    /// The trigrams of `term` that every text holding it holds: those within each of its words, each once, in order.
    package static func trigrams(of term: String) -> [String] {
        var term = term
        return term.withUTF8 { bytes in
            var found: [String] = []
            forEach(in: bytes) { range, _ in
                found.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
                return true
            }
            return found
        }
    }

    /// The codes of the trigrams of `text` (``code(of:)``), each once, in order: a text's entry in PostgreSQL's
    /// indexes, and what a term asks of them.
    package static func codes(of text: String) -> [Int32] {
        var text = text
        return text.withUTF8 { bytes in
            var codes: [Int32] = []
            forEach(in: bytes) { _, key in
                codes.append(code(of: key))
                return true
            }
            return codes
        }
    }

    /// A trigram's code in 32 bits: the top half of its key (three characters of 21 bits) times a 64-bit odd constant.
    /// Two trigrams may share a code; a search checks each text it finds anyway, so that only costs a text read.
    package static func code(of key: UInt64) -> Int32 {
        Int32(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    /// Calls `body` with the bytes of each trigram within a word of `bytes` (UTF-8) and its key (the three characters'
    /// values, 21 bits each), once each, in order, until it returns false; returns false if it did. A byte that does
    /// not begin a valid character ends a word, as a separator does.
    @discardableResult
    package static func forEach(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, UInt64) -> Bool) -> Bool {
        var seen = TrigramSet(texts: bytes.count)
        defer { seen.free() }
        // The key packs the word's last three characters (21 bits each); the starts are the first bytes of the two
        // before the one just read.
        var key: UInt64 = 0, twoBack = 0, oneBack = 0, inWord = 0, index = 0
        while index < bytes.count {
            let (value, length) = character(in: bytes, at: index)
            guard let value, !isSeparator(value) else {
                inWord = 0
                index += length
                continue
            }
            key = (key << 21 | UInt64(value)) & (1 << 63 - 1)
            inWord += 1
            let start = twoBack
            (twoBack, oneBack) = (oneBack, index)
            index += length
            // Every character of a word is at least 1 (0 is a control character), so no key of three is 0.
            if inWord >= 3, seen.insert(key), !body(start..<index, key) { return false }
        }
        return true
    }

    /// The character whose first byte is at `index` and its length in bytes; nil (and 1) where no valid one begins.
    private static func character(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32?, Int) {
        let lead = bytes[index]
        if lead < 0x80 { return (UInt32(lead), 1) }
        let length = lead >= 0xF5 ? 0 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0
        guard length > 0, index + length <= bytes.count else { return (nil, 1) }
        var value = UInt32(lead) & (0x7F >> length)
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return (nil, 1) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return (value, length)
    }

    /// Whether a character ends a word: Unicode's White_Space and the control characters (Cc), what ``SearchQuery``
    /// splits a search's words on.
    package static func isSeparator(_ value: UInt32) -> Bool {
        switch value {
        case 0...0x20, 0x7F...0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}

/// The trigram keys one text has yielded so far: open addressing in a table of at least twice the text's bytes, at
/// most 65,536 entries; past half of that (a text of more than 32,768 distinct trigrams) every trigram is yielded,
/// and both stores' indexes keep each once themselves.
private struct TrigramSet {
    private let slots: UnsafeMutableBufferPointer<UInt64>
    private let shift: UInt64
    private var count = 0

    init(texts bytes: Int) {
        var bits = 4
        while bits < 16 && 1 << bits < 2 * bytes { bits += 1 }
        slots = .allocate(capacity: 1 << bits)
        slots.initialize(repeating: 0)
        shift = UInt64(64 - bits)
    }

    /// Whether `key` (not 0) is new to this text; true too once the table is half full.
    mutating func insert(_ key: UInt64) -> Bool {
        guard count < slots.count / 2 else { return true }
        let mask = slots.count - 1
        var slot = Int((key &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while slots[slot] != 0 {
            if slots[slot] == key { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = key
        count += 1
        return true
    }

    func free() { slots.deallocate() }
}
