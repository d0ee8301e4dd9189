import CStringSearch
import Foundation
import GuideCore
import XMLTV

/// Finds a feed's ``ListingLayout`` as its bytes arrive, without parsing it: a search for `<` and a look at each
/// programme's start tag. Its memory is the element in hand and a few dozen bytes a group; it gives up (the feed is
/// then read whole) at the first thing that makes the file other than plain, or past ``mostGroups``.
package struct ListingLayoutScanner {
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
    package private(set) var programmes = 0
    private var isAtFileStart = true
    private var lastStart = Int64.min
    /// The `channel` attribute's bytes of the run in hand.
    private var channelInHand: [UInt8] = []
    /// Why the file is not plain, once it is known not to be.
    package private(set) var refusal: String?
    let localZone: TimeZone?

    package init(localZone: TimeZone?) {
        self.localZone = localZone
    }

    /// The layout, once the whole file has been fed; nil when it is not plain.
    package mutating func finish() -> ListingLayout? {
        if refusal == nil, phase != .ended { refuse("the file ends before </tv>") }
        guard refusal == nil else { return nil }
        closeGroup()
        var layout = ListingLayout(headerEnd: headerEnd, runs: runs, programmes: programmes)
        layout.settleDigests()
        return layout
    }

    package mutating func feed(_ raw: UnsafeRawBufferPointer) {
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        var taken = 0
        // An element cut by the last chunk's end: the next bytes join it a few KB at a time until it is whole, and
        // the rest is scanned where it lies (a copy of every chunk was a fifth of the scan's time).
        while !pending.isEmpty, taken < bytes.count, refusal == nil, phase != .ended {
            let held = pending.count
            let step = min(bytes.count - taken, max(held, 4096))
            pending.append(contentsOf: bytes[taken..<(taken + step)])
            taken += step
            let used = pending.withUnsafeBufferPointer { scanOnce($0) }
            if used >= held {
                // Past the element that was cut: what followed it is scanned in place.
                taken -= pending.count - used
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.removeSubrange(..<used)
                if pending.count > Self.longestElement { refuse("an element longer than \(Self.longestElement) bytes") }
            }
        }
        guard refusal == nil, phase != .ended, taken < bytes.count else {
            if refusal != nil { pending = [] }
            return
        }
        let rest = UnsafeBufferPointer(rebasing: bytes[taken...])
        let used = scanOnce(rest)
        guard refusal == nil else { pending = []; return }
        if phase != .ended { pending.append(contentsOf: rest[used...]) }
        if pending.count > Self.longestElement { refuse("an element longer than \(Self.longestElement) bytes") }
    }

    /// Scans the whole elements of `p`, the bytes from ``base`` on; moves ``base`` and ``line`` past them and returns
    /// how many bytes that was.
    private mutating func scanOnce(_ p: UnsafeBufferPointer<UInt8>) -> Int {
        (countedTo, countedLine) = (0, line)
        let used = scan(p)
        if refusal == nil, used > 0 {
            line = lineAt(used, p)
            base += Int64(used)
        }
        return used
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
        // The usual start tag read in one pass; anything else (or a tag not all here) as it always was.
        let tag = Self.usualStartTag(p, from: open)
            ?? Self.tagEnd(p, from: open).map { (end: $0, attributes: Self.attributes(p[(open + 10)..<$0])) }
        guard let (tagEnd, attributes) = tag else { return nil }
        var end = tagEnd + 1
        if p[tagEnd - 1] != 0x2F {   // Not `<programme .../>`: find `</programme>`, refusing `<!` inside.
            switch Self.closingTag(p, from: end) {
            case .markup:
                refuse("a comment or CDATA inside a programme")
                return nil
            case .notHere:
                return nil
            case .at(let close):
                guard let closeEnd = Self.index(of: 0x3E, p, from: close) else { return nil }
                end = closeEnd + 1
            }
        }
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
        if group != nil {
            // Changed where it is: a copy taken and put back retained and released its digest each programme.
            group?.take(through: base + Int64(end), finish: finish)
        } else {
            groups += 1
            guard groups <= Self.mostGroups else { refuse("more than \(Self.mostGroups) channel days"); return nil }
            group = ListingLayout.Group(day: day, bytes: (base + Int64(open))..<(base + Int64(end)),
                                        line: lineAt(open, p), first: start, end: finish, isFirstInstant: stop == start,
                                        programmes: 1, content: 0)
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

    /// Whether the scan is still in the header (before the first programme), and where the header ends once it is not.
    var headerEnds: Int64? { phase == .header ? nil : headerEnd }

    /// Calls `settled` with each group from `cursor` on whose digest is known (the group after it in its run begun,
    /// or its run ended), with its channel and digest, and moves `cursor` past them; `ended`: the file is finished
    /// (``finish()``), so every group is. Returns the first byte no group settled yet can hold: the first unsettled
    /// group's, the group in hand's, or the first byte not scanned yet.
    func settle(from cursor: inout (run: Int, group: Int), ended: Bool,
                _ settled: (String, ListingLayout.Group, UInt64) throws -> Void) rethrows -> Int64 {
        while cursor.run < runs.count {
            let run = runs[cursor.run], isLast = cursor.run == runs.count - 1
            while cursor.group < run.groups.count {
                let next: (first: Int64, isFirstInstant: Bool)?
                if cursor.group + 1 < run.groups.count {
                    next = (run.groups[cursor.group + 1].first, run.groups[cursor.group + 1].isFirstInstant)
                } else if isLast, !ended {
                    guard let inHand = group else { return run.groups[cursor.group].bytes.lowerBound }
                    next = (inHand.first, inHand.isFirstInstant)
                } else {
                    next = nil
                }
                let current = run.groups[cursor.group]
                try settled(run.channel, current, ListingLayout.digest(of: current, next: next))
                cursor.group += 1
            }
            guard !isLast else { break }
            cursor = (cursor.run + 1, 0)
        }
        return group?.bytes.lowerBound ?? base
    }

    /// The channel of the programmes in hand, for what a refusal says.
    private var channelName: String { runs.last?.channel ?? "" }

    /// Ends the group in hand: its content digest, and it joins its run.
    private mutating func closeGroup() {
        guard var current = group, !runs.isEmpty else { return }
        current.content = hasher.finalize()
        runs[runs.count - 1].groups.append(current)
        group = nil
        hasher = XXH64()
    }
}
