import Foundation
import GuideCore

/// What a reader asks of the contents handed on before (``XMLTVReader/contents``): a guide repeats an airing's content
/// (every byte between its `<programme>` and `</programme>`) on its repeats and its channel's regional and +1 copies,
/// 20-60% of the programmes of the real guides in `../shared/data/xmltv/real`. The reader hands each programme it
/// read whole with its content's key (``XMLTVItem/remembered(_:line:content:)``), and one whose key is known without
/// reading its content (``XMLTVItem/repeated(_:)``).
public protocol ProgrammeContents: AnyObject {
    /// Whether a programme of this content was handed on before and is remembered: asked as a programme starts, just
    /// before it is handed on, on the reader's thread.
    func knows(_ content: Int64) -> Bool
}

/// A programme whose content was handed on before (``XMLTVItem/repeated(_:)``): its own channel, times and line, and
/// the key of the content it shares.
public struct ProgrammeRepeat: Sendable {
    public var channel: ChannelID
    public var start: Date
    public var stop: Date?
    public let line: Int
    public let content: Int64
}

extension XMLTVBuilder {
    /// The largest content a reader looks for among those handed on: real ones are a few kilobytes.
    static let largestRemembered = 32 << 10

    /// What reading has counted as issues so far: a programme whose reading counted none is handed on to be remembered.
    var issueCount: Int {
        issues.total + entityIssues.unknownCount + entityIssues.invalidUTF8
    }

    /// The programme just started (``openedProgramme``) as a repeat, its element closed, when ``contents`` knows its
    /// content (`content` of `p`: every byte between its start and end tags, with its clump index). Nil when it does
    /// not: then the content is read, and handed on with its key at the end if reading it counted no issue.
    mutating func knownContent(_ p: UnsafeBufferPointer<UInt8>, _ content: Range<Int>) -> XMLTVItem? {
        openedProgramme = false
        guard let started = programme, let contents, content.count <= Self.largestRemembered else { return nil }
        var hasher = XXH64()
        hasher.update(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: p[content])))
        if var clump = started.clumpIndex {
            // An attribute, but the programme keeps it.
            withUnsafeBytes(of: UInt8(0)) { hasher.update($0) }
            clump.withUTF8 { hasher.update(UnsafeRawBufferPointer($0)) }
        }
        let key = Int64(bitPattern: hasher.finalize())
        // A stop before the start is repaired, and the repair reported with the title: such a programme is read.
        guard contents.knows(key), started.stop.map({ $0 >= started.start }) ?? true else {
            reading = (key, issueCount, content.upperBound)
            return nil
        }
        stack.removeLast()
        programme = nil
        handedOn = started
        return .repeated(ProgrammeRepeat(channel: started.channel, start: started.start, stop: started.stop,
                                         line: programmeLine, content: key))
    }
}

/// Contents remembered as the programmes handed on with them, to make a repeat whole again: for a taker that wants
/// every programme whole (a check that a reader given contents reads what one without reads). An import remembers
/// what it made of each instead (GuideIngest's `PreparedContents`).
public final class RememberedProgrammes: ProgrammeContents {
    private var programmes: [Int64: Programme] = [:]

    public init() {}

    public func knows(_ content: Int64) -> Bool { programmes[content] != nil }

    /// The programme `item` hands on, made whole; remembers one handed on with its content's key.
    public func programme(_ item: XMLTVItem) -> Programme? {
        switch item {
        case .channel: return nil
        case .programme(let programme, _): return programme
        case .remembered(let programme, _, let content):
            programmes[content] = programme
            return programme
        case .repeated(let repeated):
            guard var programme = programmes[repeated.content] else { return nil }
            (programme.channel, programme.start, programme.stop) = (repeated.channel, repeated.start, repeated.stop)
            return programme
        }
    }
}
