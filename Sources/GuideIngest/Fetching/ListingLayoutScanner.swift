import CStringSearch
import Foundation
import XMLTV

/// Finds a feed's ``ListingLayout`` as its bytes arrive, without parsing it: a search for `<` and a look at each
/// programme's start tag. Its memory is the element in hand and a few dozen bytes a group; it gives up (the feed is
/// then read whole) at the first thing that makes the file other than plain, or past ``mostGroups``.
struct ListingLayoutScanner {
    /// The most groups a layout holds (10,000 channels x 50 days).
    static let mostGroups = 500_000
    /// The longest programme element followed.
    static let longestElement = 4 << 20

    private enum Phase {
        /// Before the first programme: the root and the channels.
        case header
        case programmes
        /// After `</tv>`.
        case ended
    }

    private var phase = Phase.header
    private var pending: [UInt8] = []
    /// File offset of `pending[0]`, and the line there.
    private var base: Int64 = 0
    private var line = 1
    /// Within the bytes being scanned: an offset whose line is known, so each line is counted once.
    private var countedTo = 0
    private var countedLine = 1
    private var hasRoot = false
    private var headerEnd: Int64 = 0
    private var runs: [ListingLayout.Run] = []
    private var channels: Set<String> = []
    private var hasher = XXH64()
    /// The group being scanned, until the next day's or channel's programme (or the end) closes it.
    private var group: ListingLayout.Group?
    private var recentTime = XMLTVTimestamp.Recent()
    private var groups = 0
    /// Programmes scanned so far.
    private(set) var programmes = 0
    private var isAtFileStart = true
    private var lastStart = Int64.min
    /// The `channel` attribute's bytes of the run in hand.
    private var channelInHand: [UInt8] = []
    /// Why the file is not plain, once it is known not to be.
    private(set) var refusal: String?
    let localZone: TimeZone?

    init(localZone: TimeZone?) {
        self.localZone = localZone
    }

    /// The layout, once the whole file has been fed; nil when it is not plain.
    mutating func finish() -> ListingLayout? {
        if refusal == nil, phase != .ended { refuse("the file ends before </tv>") }
        guard refusal == nil else { return nil }
        closeGroup()
        var layout = ListingLayout(headerEnd: headerEnd, runs: runs, programmes: programmes)
        layout.settleDigests()
        return layout
    }

    mutating func feed(_ raw: UnsafeRawBufferPointer) {
        guard refusal == nil, phase != .ended else { return }
        pending.append(contentsOf: raw)
        (countedTo, countedLine) = (0, line)
        let used = pending.withUnsafeBufferPointer { scan($0) }
        guard refusal == nil else { pending = []; return }
        if used > 0 {
            line = pending.withUnsafeBufferPointer { lineAt(used, $0) }
            pending.removeSubrange(..<used)
            base += Int64(used)
        }
        if pending.count > Self.longestElement { refuse("an element longer than \(Self.longestElement) bytes") }
    }

    private mutating func refuse(_ reason: String) {
        if refusal == nil { refusal = reason }
    }

    /// Scans whole elements in `p`; returns how many bytes it is done with.
    private mutating func scan(_ p: UnsafeBufferPointer<UInt8>) -> Int {
        var done = 0
        var cursor = 0
        while refusal == nil {
            switch phase {
            case .ended:
                return p.count
            case .header:
                if isAtFileStart {
                    // A BOM and blank lines, then `<`: anything else (gzip, a playlist, Radio Times) is read whole.
                    guard let first = p[cursor...].firstIndex(where: { !Self.isSpace($0) && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF })
                    else { return p.count }
                    guard p[first] == 0x3C else { refuse("not XML"); return 0 }
                    isAtFileStart = false
                }
                guard let open = Self.index(of: 0x3C, p, from: cursor) else { return p.count }
                if Self.has(p, open, "<?xml") {
                    guard let close = Self.index(of: "?>", p, from: open) else { return open }
                    let declaration = String(decoding: p[open..<close], as: UTF8.self).lowercased()
                    if let range = declaration.range(of: "encoding") {
                        let value = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
                            .prefix { $0 != "\"" && $0 != "'" && $0 != " " }
                        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(String(value)) else { refuse("encoded as \(value)"); return 0 }
                    }
                    cursor = close + 2
                } else if Self.has(p, open, "<!--") || Self.has(p, open, "<![CDATA[") {
                    let close: StaticString = Self.has(p, open, "<!--") ? "-->" : "]]>"
                    guard let end = Self.index(of: close, p, from: open + 4) else { return open }
                    cursor = end + close.utf8CodeUnitCount
                } else if Self.isTag(p, open, "programme") {
                    guard hasRoot else { refuse("a programme outside <tv>"); return open }
                    headerEnd = base + Int64(open)
                    phase = .programmes
                    cursor = open
                    done = open
                } else if Self.isTag(p, open, "tv") {
                    hasRoot = true
                    cursor = open + 1
                } else if p.count - open < 12 {
                    return open   // Too few bytes yet to tell what it opens.
                } else {
                    cursor = open + 1
                }
            case .programmes:
                var index = cursor
                while index < p.count, Self.isSpace(p[index]) { index += 1 }
                guard index < p.count else { return done }
                if Self.has(p, index, "</tv") {
                    phase = .ended
                    return p.count
                }
                guard Self.isTag(p, index, "programme") else {
                    if p.count - index < 12 { return done }
                    refuse("something other than a programme after the first programme")
                    return done
                }
                guard let end = programme(p, at: index) else { return done }
                cursor = end
                done = end
            }
        }
        return done
    }

    /// Takes the programme element at `open`; returns the offset after it, or nil when it is not all here yet.
    private mutating func programme(_ p: UnsafeBufferPointer<UInt8>, at open: Int) -> Int? {
        guard let tagEnd = Self.tagEnd(p, from: open) else { return nil }
        var end = tagEnd + 1
        if p[tagEnd - 1] != 0x2F {   // Not `<programme .../>`: find `</programme>`, refusing `<!` inside.
            guard let close = Self.index(of: "</programme", p, from: end),
                  let closeEnd = Self.index(of: 0x3E, p, from: close) else { return nil }
            if Self.hasMarkup(p, from: end, before: close) {
                refuse("a comment or CDATA inside a programme")
                return nil
            }
            end = closeEnd + 1
        }
        let attributes = Self.attributes(p[(open + 10)..<tagEnd])
        guard let channelBytes = attributes.channel, let startBytes = attributes.start,
              let start = recentTime.parse(startBytes, localZone: localZone) else {
            refuse("a programme without a channel or start the scan can read")
            return nil
        }
        // Most programmes are on the channel before: its bytes are compared, not made into text again.
        let isSameChannel = !runs.isEmpty && Self.equal(channelBytes, channelInHand)
        if !isSameChannel {
            // Named as the reader names it (references read, spaces trimmed); none, and the reader skips it.
            let channel = XMLTVAttribute.programmeChannel(channelBytes)
            guard !channel.isEmpty else { refuse("a programme without a channel"); return nil }
            channelInHand = Array(channelBytes)
            closeGroup()
            guard channels.insert(channel).inserted else { refuse("channel \(channel)'s programmes are not together"); return nil }
            runs.append(ListingLayout.Run(channel: channel, groups: []))
            lastStart = .min
        }
        // A start's stop is most often the next one's start: it is kept, not read again.
        let stop = attributes.stop.flatMap { recentTime.parse($0, localZone: localZone) }
        guard let day = Self.date(startBytes) else { refuse("a start without its date"); return nil }
        if isSameChannel, group?.day != day {
            // Days apart in time: a slot never spans two.
            guard start > lastStart else { refuse("channel \(channelName)'s days overlap"); return nil }
            closeGroup()
        }
        guard start >= lastStart else {
            refuse("channel \(channelName)'s programmes are not in start order")
            return nil
        }
        lastStart = start
        let finish = stop.map { $0 > start ? $0 : start + 1 } ?? start + 1
        if var current = group {
            current.bytes = current.bytes.lowerBound..<(base + Int64(end))
            current.end = max(current.end, finish)
            current.programmes += 1
            group = current
        } else {
            groups += 1
            guard groups <= Self.mostGroups else { refuse("more than \(Self.mostGroups) channel days"); return nil }
            group = ListingLayout.Group(day: day, bytes: (base + Int64(open))..<(base + Int64(end)),
                                        line: lineAt(open, p), first: start, end: finish, isFirstInstant: stop == start,
                                        programmes: 1, content: [])
        }
        hasher.update(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: p[open..<end])))
        programmes += 1
        return end
    }

    /// The line of `offset`, counting on from the last one asked about (offsets only grow).
    private mutating func lineAt(_ offset: Int, _ p: UnsafeBufferPointer<UInt8>) -> Int {
        countedLine += Self.newlines(p[countedTo..<offset])
        countedTo = offset
        return countedLine
    }

    /// The channel of the programmes in hand, for what a refusal says.
    private var channelName: String { runs.last?.channel ?? "" }

    /// Ends the group in hand: its content digest, and it joins its run.
    private mutating func closeGroup() {
        guard var current = group, !runs.isEmpty else { return }
        current.content = withUnsafeBytes(of: hasher.finalize().littleEndian) { Array($0) }
        runs[runs.count - 1].groups.append(current)
        group = nil
        hasher = XXH64()
    }
}

extension ListingLayoutScanner {
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The date a start is written with (its first eight digits, `YYYYMMDD`, as a number): the provider's own day.
    static func date(_ start: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        let digits = start.drop { $0 == 0x20 }.prefix(8)
        guard digits.count == 8, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
    }

    /// The newlines in `bytes`, eight bytes at a time: each byte that is a newline becomes zero, and the exact
    /// zero-byte test marks it with its top bit (a `memchr` a line cost more than the rest of the scan).
    static func newlines(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int {
        guard let base = bytes.base.baseAddress else { return 0 }
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F, newlines: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
        var count = 0
        var index = bytes.startIndex
        while index + 8 <= bytes.endIndex {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) ^ newlines
            count &+= (~(((word & low) &+ low) | word | low)).nonzeroBitCount
            index += 8
        }
        while index < bytes.endIndex {
            count &+= base[index] == 0x0A ? 1 : 0
            index += 1
        }
        return count
    }

    static func index(of byte: UInt8, _ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < p.count, let base = p.baseAddress, let found = memchr(base + start, Int32(byte), p.count - start) else { return nil }
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

    /// Whether `<!` (a comment or CDATA) is in `p[start..<end]`: a search for the rarer `!`.
    static func hasMarkup(_ p: UnsafeBufferPointer<UInt8>, from start: Int, before end: Int) -> Bool {
        guard let base = p.baseAddress else { return false }
        var index = start
        while index < end, let found = memchr(base + index, 0x21, end - index) {
            let bang = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            if bang > start, p[bang - 1] == 0x3C { return true }
            index = bang + 1
        }
        return false
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

    /// The `channel`, `start` and `stop` values of a start tag's attributes.
    static func attributes(_ tag: Slice<UnsafeBufferPointer<UInt8>>) -> (channel: Slice<UnsafeBufferPointer<UInt8>>?,
                                                                          start: Slice<UnsafeBufferPointer<UInt8>>?,
                                                                          stop: Slice<UnsafeBufferPointer<UInt8>>?) {
        var channel: Slice<UnsafeBufferPointer<UInt8>>?
        var start: Slice<UnsafeBufferPointer<UInt8>>?
        var stop: Slice<UnsafeBufferPointer<UInt8>>?
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
            if Self.equal(name, "channel") {
                channel = value
            } else if Self.equal(name, "start") {
                start = value
            } else if Self.equal(name, "stop") {
                stop = value
            }
        }
        return (channel, start, stop)
    }
}
