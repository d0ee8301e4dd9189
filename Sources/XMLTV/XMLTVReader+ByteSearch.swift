/// Finding bytes in the scanner's buffer: memchr for single bytes, which is where most of the scan's time goes.
extension XMLTVReader {
    @inline(__always)
    func firstIndex(of byte: UInt8, _ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        XMLText.firstIndex(of: byte, in: p, from: start, to: p.count)
    }

    func firstIndex(of needle: [UInt8], _ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while let candidate = firstIndex(of: needle[0], p, from: index) {
            guard candidate + needle.count <= p.count else { return nil }
            var matches = true
            for offset in 1..<needle.count where p[candidate + offset] != needle[offset] { matches = false; break }
            if matches { return candidate }
            index = candidate + 1
        }
        return nil
    }

    func hasPrefix(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard start + count <= p.count else { return false }
        for offset in 0..<count where p[start + offset] != text.utf8Start[offset] { return false }
        return true
    }

    /// The content of the `<programme>` starting at `start`, up to its end tag, and the index after that tag: when
    /// it is all in `p`, within ``XMLTVBuilder/largestRemembered``, and holds nothing but elements and text (no
    /// comment, CDATA section or nested programme), so that the first `</programme>` found ends it. Nil otherwise:
    /// it is read.
    func contentEnd(_ p: UnsafeBufferPointer<UInt8>, from start: Int) -> (range: Range<Int>, next: Int)? {
        let end = min(p.count, start + XMLTVBuilder.largestRemembered + 16)
        var index = start
        while let open = XMLText.firstIndex(of: 0x3C, in: p, from: index, to: end), open + 1 < end {
            switch p[open + 1] {
            case 0x21:  // '<!'
                return nil
            case 0x2F where hasPrefix(p, open, "</programme"):
                var close = open + 11
                while close < end, XMLText.isSpace(p[close]) { close += 1 }
                return close < end && p[close] == 0x3E ? (start..<open, close + 1) : nil
            case 0x70 where hasPrefix(p, open, "<programme"):
                return nil
            default:
                index = open + 1
            }
        }
        return nil
    }
}
