import GuideCore

/// Reads an M3U (IPTV) playlist as it arrives, chunk by chunk, handing over each channel as soon as its stream's line
/// ends: memory stays flat whatever the playlist's length (one line of at most ``longestLine`` bytes, one entry).
///
/// What it accepts, as players and guide tools do: a UTF-8 byte order mark; CRLF or LF; `#EXTM3U` with `x-tvg-url` /
/// `url-tvg`; `#EXTINF:<duration> key="value" ...,<name>` with quoted or bare values, and quotes inside a quoted value
/// (a value ends at the quote that is followed by the next attribute, the title's comma, or the line's end);
/// `#EXTGRP:` and `#EXTVLCOPT:` lines before the stream. Repairs, counted in ``Repairs``: a playlist without
/// `#EXTM3U` is read when it has `#EXTINF` entries; a line over ``longestLine`` bytes is skipped; a stream without
/// `#EXTINF` is skipped (nothing names it); numbers outside their ranges are left out; control characters in a
/// name or value are left out.
public struct M3UReader: Sendable {
    /// The longest line kept, in bytes; longer ones are skipped (an `#EXTINF` with a data-URL logo can reach a few KB).
    public static let longestLine = 64 * 1024

    public struct Repairs: Hashable, Sendable {
        public var missingHeader = false
        public var overlongLines = 0
        public var streamsWithoutInfo = 0
        public var entriesWithoutStream = 0
        /// Attributes whose number (`tvg-chno`, `tvg-shift`, `catchup-days`) was not one in range.
        public var numbersLeftOut = 0

        /// How many repairs in all (a missing header counts one).
        public var total: Int {
            (missingHeader ? 1 : 0) + overlongLines + streamsWithoutInfo + entriesWithoutStream + numbersLeftOut
        }

        public init() {}
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notAPlaylist

        public var description: String {
            "this is not an M3U playlist: it does not start with #EXTM3U and has no #EXTINF entries"
        }
    }

    public private(set) var header: PlaylistHeader?
    public private(set) var repairs = Repairs()
    /// Entries handed over so far.
    public private(set) var count = 0

    private var line: [UInt8] = []
    private var isSkippingLine = false
    private var isFirstLine = true
    private var pending: PlaylistEntry?
    private var pendingGroups: [String] = []
    private var pendingOptions: [String: String] = [:]

    public init() {}

    /// Reads `bytes`, the playlist's next chunk, calling `entry` for each channel completed in it.
    public mutating func read(_ bytes: some Sequence<UInt8>, entry: (PlaylistEntry) throws -> Void) rethrows {
        if let done: Void = try bytes.withContiguousStorageIfAvailable({ try read(buffer: $0, entry) }) { return done }
        try Array(bytes).withUnsafeBufferPointer { try read(buffer: $0, entry) }
    }

    private mutating func read(buffer: UnsafeBufferPointer<UInt8>, _ entry: (PlaylistEntry) throws -> Void) rethrows {
        var start = 0
        while start < buffer.count {
            let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? buffer.count
            if !isSkippingLine {
                if line.count + (end - start) > Self.longestLine {
                    repairs.overlongLines += 1
                    isSkippingLine = true
                    line.removeAll(keepingCapacity: true)
                } else {
                    line.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<end]))
                }
            }
            guard newline != nil else { return }
            if isSkippingLine {
                isSkippingLine = false
            } else {
                try endLine(entry)
            }
            line.removeAll(keepingCapacity: true)
            start = end + 1
        }
    }

    /// The end of the playlist: its last line (with no newline after it), then whether it was a playlist at all.
    public mutating func finish(entry: (PlaylistEntry) throws -> Void) throws {
        if !isSkippingLine, !line.isEmpty { try endLine(entry) }
        line = []
        if pending != nil { repairs.entriesWithoutStream += 1 }
        pending = nil
        if header == nil {
            guard count > 0 else { throw Failure.notAPlaylist }
            repairs.missingHeader = true
        }
    }

    /// A whole playlist in memory (tests, small files): its header and entries.
    public static func read(_ bytes: some Sequence<UInt8>) throws -> (header: PlaylistHeader?, entries: [PlaylistEntry], repairs: Repairs) {
        var reader = M3UReader()
        var entries: [PlaylistEntry] = []
        reader.read(bytes) { entries.append($0) }
        try reader.finish { entries.append($0) }
        return (reader.header, entries, reader.repairs)
    }

    private mutating func endLine(_ entry: (PlaylistEntry) throws -> Void) rethrows {
        var bytes = line[...]
        if isFirstLine {
            isFirstLine = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        bytes = Self.trimmed(bytes)
        guard let first = bytes.first else { return }
        if first == UInt8(ascii: "#") {
            tag(bytes)
            return
        }
        guard var found = pending else {
            repairs.streamsWithoutInfo += 1
            return
        }
        pending = nil
        found.stream = String(decoding: bytes, as: UTF8.self)
        for group in pendingGroups where !found.groups.contains(group) { found.groups.append(group) }
        found.playerOptions.merge(pendingOptions) { first, _ in first }
        pendingGroups = []
        pendingOptions = [:]
        count += 1
        try entry(found)
    }

    /// `bytes` without the spaces, tabs and carriage returns around them.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[first...last]
    }

    /// The text of `bytes`, trimmed, without control characters (NUL, escape, bell...: no name or address has them,
    /// and a NUL would end the text in a database).
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        let kept = trimmed(bytes)
        let isControl = { (byte: UInt8) in byte < 0x20 || byte == 0x7F }
        guard kept.contains(where: isControl) else { return String(decoding: kept, as: UTF8.self) }
        return String(decoding: kept.filter { !isControl($0) }, as: UTF8.self)
    }

    private mutating func tag(_ bytes: ArraySlice<UInt8>) {
        func after(_ prefix: String) -> ArraySlice<UInt8>? {
            bytes.starts(with: prefix.utf8) ? bytes.dropFirst(prefix.utf8.count) : nil
        }
        if let rest = after("#EXTM3U") {
            guard header == nil else { return }
            var header = PlaylistHeader()
            for (key, value) in Self.attributes(in: rest).attributes {
                if key.lowercased() == "x-tvg-url" || key.lowercased() == "url-tvg" {
                    header.guideURLs += value.split(separator: ",").map { Self.text(ArraySlice($0.utf8)) }.filter { !$0.isEmpty }
                } else {
                    header.attributes[key] = value
                }
            }
            self.header = header
        } else if let rest = after("#EXTINF:") {
            if pending != nil { repairs.entriesWithoutStream += 1 }
            pending = entry(info: rest)
        } else if let rest = after("#EXTGRP:") {
            let group = Self.text(rest)
            if !group.isEmpty, !pendingGroups.contains(group) { pendingGroups.append(group) }
        } else if let rest = after("#EXTVLCOPT:"), let equals = rest.firstIndex(of: UInt8(ascii: "=")) {
            let key = Self.text(rest[..<equals])
            if !key.isEmpty { pendingOptions[key] = String(decoding: rest[(equals + 1)...], as: UTF8.self) }
        }
        // Other tags (#PLAYLIST, #EXT-X-..., comments) say nothing about a channel.
    }

    /// The entry an `#EXTINF:` line (after the colon) describes, without its stream yet.
    private mutating func entry(info: ArraySlice<UInt8>) -> PlaylistEntry {
        // The duration (-1 for live) comes first; nothing uses it.
        let afterDuration = info.drop { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: "\t") }
        let (attributes, title) = Self.attributes(in: afterDuration)
        var found = PlaylistEntry(name: title, stream: "")
        var catchup: (kind: String?, days: Int?, source: String?) = (nil, nil, nil)
        for (key, value) in attributes {
            switch key.lowercased() {
            case "tvg-id": found.guideID = value.isEmpty ? nil : value
            case "tvg-name": found.guideName = value.isEmpty ? nil : value
            case "tvg-logo": found.logo = value.isEmpty ? nil : value
            case "tvg-chno":
                if Self.isChannelNumber(value) { found.number = value } else if !value.isEmpty { repairs.numbersLeftOut += 1 }
            case "group-title":
                for group in value.split(separator: ";").map({ Self.text(ArraySlice($0.utf8)) }) where !group.isEmpty {
                    if !found.groups.contains(group) { found.groups.append(group) }
                }
            case "tvg-shift":
                if let hours = Bounded.decimal(value, in: PlaylistEntry.shiftRange) { found.shiftHours = hours } else if !value.isEmpty { repairs.numbersLeftOut += 1 }
            case "catchup", "catchup-type": catchup.kind = value.isEmpty ? nil : value
            case "catchup-days":
                if let days = Bounded.integer(value, in: PlaylistEntry.catchupDaysRange) { catchup.days = days } else if !value.isEmpty { repairs.numbersLeftOut += 1 }
            case "catchup-source": catchup.source = value.isEmpty ? nil : value
            default: found.attributes[key] = value
            }
        }
        if catchup.kind != nil || catchup.source != nil || catchup.days != nil {
            found.catchup = PlaylistEntry.Catchup(kind: catchup.kind ?? "default", days: catchup.days, source: catchup.source)
        }
        if found.name.isEmpty { found.name = found.guideName ?? found.guideID ?? "" }
        return found
    }

    /// A channel number as players show it: "101", "4.1", and in Japan "CS363" or "D081"; 1 to 16 characters with
    /// a digit among them and no control characters. Placeholders ("-", "#") are not numbers.
    static func isChannelNumber(_ text: String) -> Bool {
        (1...16).contains(text.count) && text.contains(where: \.isNumber) && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The `key="value"` and `key=value` pairs at the start of `text` (values trimmed), in order, and what follows the
    /// comma that ends them (the title, trimmed; empty when there is none).
    static func attributes(in text: ArraySlice<UInt8>) -> (attributes: [(String, String)], rest: String) {
        let bytes = Array(text)
        var found: [(String, String)] = []
        var index = 0
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let endsKey = { (byte: UInt8) in isSpace(byte) || byte == UInt8(ascii: "=") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") }
        func rest(from position: Int) -> String { position < bytes.count ? Self.text(bytes[position...]) : "" }
        while true {
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count else { return (found, "") }
            if bytes[index] == UInt8(ascii: ",") { return (found, rest(from: index + 1)) }
            let keyStart = index
            while index < bytes.count, !endsKey(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "="), index > keyStart else {
                // Not an attribute: the title starts at the next comma, if any.
                while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
                return (found, rest(from: index + 1))
            }
            let key = String(decoding: bytes[keyStart..<index], as: UTF8.self)
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                let close = closingQuote(in: bytes, after: index)
                found.append((key, Self.text(bytes[(index + 1)..<close])))
                index = min(bytes.count, close + 1)
            } else {
                let valueStart = index
                while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ",") { index += 1 }
                found.append((key, String(decoding: bytes[valueStart..<index], as: UTF8.self)))
            }
        }
    }

    /// The quote ending the value opened at `open`: the first one followed (after spaces) by another attribute
    /// (`name=`), the title's comma or the end of the line; else the first quote; else the line's end.
    static func closingQuote(in bytes: [UInt8], after open: Int) -> Int {
        let quote = UInt8(ascii: "\"")
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var first: Int?
        var index = open + 1
        while let found = bytes[index...].firstIndex(of: quote) {
            if first == nil { first = found }
            var next = found + 1
            while next < bytes.count, isSpace(bytes[next]) { next += 1 }
            if next == bytes.count || bytes[next] == UInt8(ascii: ",") { return found }
            if next > found + 1 {
                var name = next
                while name < bytes.count, !isSpace(bytes[name]), bytes[name] != UInt8(ascii: "="), bytes[name] != UInt8(ascii: ","),
                      bytes[name] != quote { name += 1 }
                if name > next, name < bytes.count, bytes[name] == UInt8(ascii: "=") { return found }
            }
            index = found + 1
        }
        return first ?? bytes.count
    }
}
