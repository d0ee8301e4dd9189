import Foundation
import GuideCore

/// Writes JSON bytes directly, for the routes that answer with thousands of programmes (/api/guide, /api/now):
/// Foundation's JSONEncoder managed about 25 MB/s there, a third of the 50 ms budget for a 1,000-channel window.
/// Keys are written in sorted order, as the encoder's `.sortedKeys` writes them elsewhere in the API.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next value at this depth follows one; the outer depths' answers wait in `outer`.
    private var needsComma = false
    private var outer: [Bool] = []

    init(capacity: Int = 1 << 16) {
        bytes.reserveCapacity(capacity)
    }

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        outer.append(needsComma)
        needsComma = false
        body(&self)
        needsComma = outer.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func array(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        outer.append(needsComma)
        needsComma = false
        body(&self)
        needsComma = outer.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Starts the member `name`; its value follows.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func string(_ text: String?) {
        separate()
        guard var text else { return appendNull() }
        bytes.append(UInt8(ascii: "\""))
        text.withUTF8 { utf8 in
            // Most text needs no escapes: copy it whole.
            guard utf8.contains(where: { $0 < 0x20 || $0 == 34 || $0 == 92 }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 { appendEscaped(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [92, 34])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [92, 92])
        case 0x0A: bytes.append(contentsOf: [92, UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [92, UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [92, UInt8(ascii: "t")])
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
        default: bytes.append(byte)
        }
    }

    /// An instant as ``CivilTime/iso8601(_:)`` writes it (`"2026-11-21T18:30:00Z"`), without making a string of
    /// it: through strings it was a fifth of a 1,000-channel guide window's time.
    mutating func instant(_ date: Date) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        CivilTime.appendISO8601(date, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func integer(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                                                             0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// Appends `value`, a whole value another writer wrote, as the next one.
    mutating func written(_ value: ArraySlice<UInt8>) {
        separate()
        bytes.append(contentsOf: value)
    }

    /// The value written since `count` was `start` (the comma before it left out), for ``written(_:)`` elsewhere.
    func value(since start: Int) -> ArraySlice<UInt8> {
        let value = bytes[start...]
        return value.first == UInt8(ascii: ",") ? value.dropFirst() : value
    }

    var count: Int { bytes.count }

    mutating func boolean(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }

    mutating func null() {
        separate()
        appendNull()
    }

    private mutating func appendNull() {
        bytes.append(contentsOf: Self.nullBytes)
    }

    private static let nullBytes: [UInt8] = Array("null".utf8)
    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }
}

/// A programme as the guide window and now/next give it: what a grid or a "now" list shows. Everything else the
/// listings said is one `GET /api/programmes/ID` away.
enum ProgrammeSummary {
    /// `stored`, or null.
    static func write(_ stored: borrowing StoredProgramme?, into json: inout JSONWriter) {
        switch stored {
        case .some(let programme): write(programme, into: &json)
        case .none: json.null()
        }
    }

    static func write(_ stored: borrowing StoredProgramme, into json: inout JSONWriter) {
        json.object { json in
            let programme = stored.programme
            if !programme.categories.isEmpty {
                json.key("categories")
                json.array { json in for category in programme.categories { json.string(category.text) } }
            }
            json.key("channel"); json.string(programme.channel.rawValue)
            if let episode = programme.episodeLabel {
                json.key("episode"); json.string(episode)
            }
            json.key("id"); json.integer(stored.id.rawValue)
            if programme.isNew { json.key("isNew"); json.boolean(true) }
            if programme.isPremiere { json.key("isPremiere"); json.boolean(true) }
            if programme.isRepeat { json.key("isRepeat"); json.boolean(true) }
            json.key("start"); json.instant(programme.start)
            json.key("stop"); json.instant(stored.end)
            if let subTitle = programme.subTitle { json.key("subTitle"); json.string(subTitle) }
            json.key("title"); json.string(programme.title)
        }
    }
}

extension ChannelDocument {
    func write(into json: inout JSONWriter) {
        json.object { json in
            if let icon { json.key("icon"); json.string(icon) }
            json.key("id"); json.string(id)
            if let logo { json.key("logo"); json.string(logo) }
            json.key("name"); json.string(name)
            if let number { json.key("number"); json.string(number) }
        }
    }
}
