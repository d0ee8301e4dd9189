#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A start tag's attributes as byte ranges into the scanner's buffer, read only when a builder asks.
struct Attributes {
    var bytes: UnsafeBufferPointer<UInt8>
    var ranges: [(name: Range<Int>, value: Range<Int>)]

    /// The raw bytes of attribute `name`, before entity decoding (enough for timestamps and numbers). Names are
    /// compared by memcmp: a byte at a time, looking up `start`, `stop` and `channel` was 2% of the reading thread.
    func raw(_ name: StaticString) -> Slice<UnsafeBufferPointer<UInt8>>? {
        let count = name.utf8CodeUnitCount
        guard let base = bytes.baseAddress else { return nil }
        for range in ranges where range.name.count == count {
            if memcmp(base + range.name.lowerBound, name.utf8Start, count) == 0 { return bytes[range.value] }
        }
        return nil
    }

    /// The decoded text of attribute `name`.
    func string(_ name: StaticString, issues: inout EntityIssues) -> String? {
        raw(name).map { XMLTVAttribute.value($0, issues: &issues) }
    }
}

/// Attribute values as the reader reads them, for a scan that must name things as the reader does (a refresh's
/// layout of a feed, which finds channels without parsing).
public enum XMLTVAttribute {
    /// A `<programme>`'s `channel`: references read, spaces (Unicode ones too) trimmed; empty when it names none.
    public static func programmeChannel(_ raw: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        var issues = EntityIssues()
        return programmeChannel(raw, issues: &issues)
    }

    static func programmeChannel(_ raw: Slice<UnsafeBufferPointer<UInt8>>, issues: inout EntityIssues) -> String {
        XMLText.trimmingSpace(value(raw, issues: &issues))
    }

    /// The value's text with its references read (an unknown entity kept as written, and counted).
    static func value(_ raw: Slice<UnsafeBufferPointer<UInt8>>, issues: inout EntityIssues) -> String {
        if !raw.contains(0x26) {
            // No entity: the common case, without a scratch buffer.
            return XMLText.decode(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: raw)), invalid: &issues.invalidUTF8)
        }
        var scratch: [UInt8] = []
        XMLText.appendDecoded(raw.base, raw.startIndex..<raw.endIndex, into: &scratch, issues: &issues)
        return XMLText.string(scratch, trimming: false, invalid: &issues.invalidUTF8)
    }
}
