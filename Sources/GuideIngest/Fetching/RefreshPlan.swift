import Foundation
import GuideCore
import GuideStore

/// What a refresh reads of a feed that changed: the header (its channels), and of each channel only the days
/// (``ListingLayout``) whose digests differ from the ones stored at the last import; the rest of its listings stay
/// as they are stored. The store replaces what a full import would, less the stored rows of the days kept
/// (``ListingPart``), and repairs each run read as the whole file would (``ImportItem/runEnds(_:nextStart:cuts:)``),
/// so the guide holds the same programmes as after reading the whole file.
struct RefreshPlan: Sendable {
    struct Segment: Sendable {
        var bytes: Range<Int64>
        var line: Int
        /// Where the channel's run read ends (the programme after it is not read).
        var end: ImportItem
    }

    /// Bytes before the first programme: always read.
    var headerEnd: Int64
    var parts: [ListingPart]
    var segments: [Segment]
    /// Programmes read, and programmes of the feed whose stored rows stay.
    var programmes = 0
    var unchanged = 0

    /// The plan for `layout` against the groups stored at the last import (``ListingLayout/groups(in:context:)``);
    /// nil when reading the whole file is as good (more than half of it changed, when the whole file is at hand:
    /// `wholeAtHand`), or must be read (two of its channels go to one guide channel).
    init?(layout: ListingLayout, previous: [String: ListingLayout.Stored], transform: ListingTransform,
          wholeAtHand: Bool = true) {
        headerEnd = layout.headerEnd
        parts = []
        segments = []
        let shift = Int64(transform.timeShift)
        var targets: Set<ChannelID> = []
        for run in layout.runs {
            guard let first = run.groups.first,
                  let target = transform.plan.guideChannel(for: ChannelID(run.channel)) else { continue }
            guard targets.insert(target).inserted else { return nil }
            // A channel that went to another guide channel before is read whole.
            let stored = previous[run.channel].flatMap { $0.target == target.rawValue ? $0.days : nil } ?? [:]
            // A day gone from between two the feed still has changes the digest of the day before it (its next start),
            // so that channel is read in part, and its span, less the days kept, drops the day gone.
            let isChanged = run.groups.map { stored[$0.day] != $0.digest }
            guard isChanged.contains(true) else {
                unchanged += run.groups.reduce(0) { $0 + $1.programmes }
                continue
            }
            // A kept day's rows start from its first start until the next day's first (its last row's end for the
            // last day): a day stored between them would have changed the kept one's digest.
            let kept = run.groups.indices.filter { !isChanged[$0] }.map { index in
                let group = run.groups[index]
                let next = run.groups.indices.contains(index + 1) ? run.groups[index + 1].first : group.end
                return (group.first + shift)..<(max(next, group.first + 1) + shift)
            }
            parts.append(ListingPart(channel: target, first: first.first + shift, end: (run.groups.map(\.end).max() ?? first.end) + shift,
                                     kept: kept))
            var index = 0
            while index < run.groups.count {
                guard isChanged[index] else {
                    unchanged += run.groups[index].programmes
                    index += 1
                    continue
                }
                var through = index
                while through + 1 < run.groups.count, isChanged[through + 1] { through += 1 }
                let next = run.groups.indices.contains(through + 1) ? run.groups[through + 1] : nil
                segments.append(Segment(bytes: run.groups[index].bytes.lowerBound..<run.groups[through].bytes.upperBound,
                                        line: run.groups[index].line,
                                        end: .runEnds(target, nextStart: next.map { $0.first + shift }, cuts: next?.isFirstInstant != true)))
                programmes += run.groups[index...through].reduce(0) { $0 + $1.programmes }
                index = through + 1
            }
        }
        guard programmes <= unchanged || !wholeAtHand else { return nil }
    }

    /// Whether every byte the plan reads (the header, each segment) was written (``PartialDownload``).
    func isCovered(by written: WrittenRanges) -> Bool {
        written.covers(0..<headerEnd) && segments.allSatisfy { written.covers($0.bytes) }
    }

    /// What the stored layout's first line says its rows depend on besides the bytes and each channel's guide
    /// channel: the import that wrote them, and the source's time shift and zone. Any change to these reads the whole
    /// file.
    static func context(importedAt: Date, transform: ListingTransform) -> String {
        context(importedAt: importedAt, timeShift: transform.timeShift, localZone: transform.localZone)
    }

    static func context(importedAt: Date, timeShift: Int, localZone: TimeZone?) -> String {
        "at=\(importedAt.unixSeconds) shift=\(timeShift) zone=\(localZone?.identifier ?? "-")"
    }

    /// The import's input: the header, each segment at its line followed by where its run ends, and the root's end.
    func input(reading path: String, chunkSize: Int) throws -> ImportInput {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw IngestError(.unreadable, saying: "cannot read {file}: check its permissions", ["file": path])
        }
        var pieces: [(bytes: Range<Int64>, line: Int?, end: ImportItem?)] = [(0..<headerEnd, nil, nil)]
        pieces += segments.map { ($0.bytes, $0.line, $0.end) }
        var items: [ImportItem]? = parts.map { .part($0) }
        var piece = 0
        var offset: Int64 = 0
        var isAtStart = true
        var isClosed = false
        return ImportInput(name: path, next: {
            // The parts first, so the store knows what they replace before any row arrives.
            if let pending = items {
                items = nil
                return .items(pending)
            }
            while piece < pieces.count {
                let current = pieces[piece]
                if isAtStart {
                    isAtStart = false
                    offset = current.bytes.lowerBound
                    try handle.seek(toOffset: UInt64(offset))
                    if let line = current.line { return .line(line) }
                }
                if offset < current.bytes.upperBound {
                    let wanted = Int(min(Int64(chunkSize), current.bytes.upperBound - offset))
                    guard let data = try handle.read(upToCount: wanted), !data.isEmpty else {
                        throw IngestError(.unreadable, saying: "{file} changed while it was read", ["file": path])
                    }
                    offset += Int64(data.count)
                    return .bytes(data)
                }
                piece += 1
                isAtStart = true
                if let end = current.end { return .items([end]) }
            }
            guard !isClosed else { return nil }
            isClosed = true
            return .bytes(Data("\n</tv>\n".utf8))
        }, close: { try? handle.close() })
    }
}
