import Foundation
import GuideCore

/// Values the builder reads from attributes and text, that need nothing of its state.
extension XMLTVBuilder {
    /// An `<icon>`: its `src`, and its size when given as whole numbers in range.
    func icon(_ attributes: Attributes) -> Icon? {
        var ignored = EntityIssues()
        guard let src = attributes.string("src", issues: &ignored), !src.isEmpty else { return nil }
        return Icon(src: src, width: attributes.string("width", issues: &ignored).flatMap { Bounded.integer($0, in: Icon.sizeRange) },
                    height: attributes.string("height", issues: &ignored).flatMap { Bounded.integer($0, in: Icon.sizeRange) })
    }

    /// XMLTV's `yes` and `no`, in any case; nil for anything else.
    static func yesNo(_ value: String) -> Bool? {
        switch value.lowercased() {
        case "yes": true
        case "no": false
        default: nil
        }
    }
}

/// The last `<programme>`'s channel attribute, as written and as read: a guide lists a channel's programmes one after
/// another, and reading the same bytes again made a string of them for each (allocated past 15 bytes).
struct LastChannel {
    private var written: [UInt8] = []
    private var id = ""

    /// A `<programme>`'s channel (``XMLTVAttribute/programmeChannel(_:)``), the last one's when written alike. One
    /// whose reading counted an issue (an unknown entity, bytes not UTF-8) is read each time, to be counted each time.
    mutating func read(_ raw: Slice<UnsafeBufferPointer<UInt8>>, issues: inout EntityIssues) -> String {
        let count = raw.count
        let same = count == written.count && written.withUnsafeBytes { kept in
            guard let mine = kept.baseAddress, let base = raw.base.baseAddress else { return true }   // Both empty.
            return memcmp(base + raw.startIndex, mine, count) == 0
        }
        if same { return id }
        let counted = (issues.unknownCount, issues.invalidUTF8)
        let read = XMLTVAttribute.programmeChannel(raw, issues: &issues)
        if counted == (issues.unknownCount, issues.invalidUTF8) {
            written.removeAll(keepingCapacity: true)
            written.append(contentsOf: raw)
            id = read
        }
        return read
    }
}
