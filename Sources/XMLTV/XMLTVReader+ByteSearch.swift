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
}
