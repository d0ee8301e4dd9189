import Foundation
import GuideCore
import GuideStore
import GuideThreads
import XMLTV

/// How many items the reading thread hands the writer at once (GuideBench's `prepare` lets go of them as often).
package let importBatchSize = 512

/// What an input gives its import next.
enum ImportChunk {
    /// Raw (possibly gzip) bytes.
    case bytes(Data)
    /// The next bytes are on this line of the file: an input reading only parts of one (``RefreshPlan``).
    case line(Int)
    /// Items for the store, after the programmes read so far.
    case items([ImportItem])
}

/// One input of an import: chunk by chunk, nil at the end.
struct ImportInput {
    /// Names the input in messages; a Radio Times file's name gives its channel.
    var name: String
    var next: () throws -> ImportChunk?
    /// Lets go of what `next` reads from (a file).
    var close: () -> Void
}

/// What the reading thread makes of what it reads: each item through the transform, each programme prepared for the
/// store (``PreparedProgramme``, its texts folded through one ``TextFolding``), gathered into batches of
/// ``importBatchSize`` items. GuideBench's `prepare` reads through it too, so that it times what an import's reader
/// does. Held in one value rather than in variables a closure captures: each use of those was checked at run time
/// (a mutable capture of a closure kept in a variable is), three or four a programme.
package struct ImportBatching {
    private let transform: ListingTransform
    private var folding = TextFolding()
    /// The programmes prepared, by their content's key: for the XMLTV reader to ask (``ImportBatching/contents``).
    package let contents = PreparedContents()
    /// The items gathered since the last ``take()``.
    private var items: [ImportItem] = []
    /// The programmes gathered in all.
    package private(set) var programmes = 0

    /// Gathers the items as read, with no transform: GuideBench's.
    package init() {
        self.init(transform: ListingTransform())
    }

    init(transform: ListingTransform) {
        self.transform = transform
        items.reserveCapacity(importBatchSize)
    }

    var isEmpty: Bool { items.isEmpty }

    /// Gathers what `item` becomes; true when a batch is full, to be taken.
    package mutating func add(_ item: XMLTVItem) throws -> Bool {
        switch transform.apply(item) {
        case .channel(let channel)?: items.append(.channel(channel))
        case .programme(let programme, let line)?:
            items.append(.programme(PreparedProgramme(programme, line: line, folding: &folding)))
            programmes += 1
        case .remembered(let programme, let line, let content)?:
            let made = PreparedProgramme(programme, line: line, folding: &folding)
            contents.remember(made, for: content)
            items.append(.programme(made))
            programmes += 1
        case .repeated(let repeated)?:
            // The reader asked ``contents`` just now, on this thread: it still holds the content.
            guard let earlier = contents[repeated.content] else { throw ImportBatchingError.repeatOfUnknownContent }
            let (channel, start, stop) = (repeated.channel, repeated.start, repeated.stop)
            items.append(.programme(PreparedProgramme(channel: channel, start: start, stop: stop, line: repeated.line,
                                                      sameAs: earlier)))
            programmes += 1
        case nil: return false
        }
        return items.count >= importBatchSize
    }

    /// Gathers items made already (a refresh's plan); true when a batch is full.
    mutating func add(contentsOf made: [ImportItem]) -> Bool {
        items.append(contentsOf: made)
        return items.count >= importBatchSize
    }

    /// The items gathered, handed over; the next batch starts empty.
    package mutating func take() -> [ImportItem] {
        defer { items.removeAll(keepingCapacity: true) }
        return items
    }
}

/// The programmes an import's reader prepared, by their content's key (``XMLTVItem/remembered(_:line:content:)``), as
/// its XMLTV reader asks (``ProgrammeContents``): a repeat is prepared from the first, its content not read, its texts
/// not folded nor its details encoded again. At most 4,096, and 4 MB of their details and bodies; past either, all
/// are forgotten at once. A guide repeats a content close by (a repeat the same day, a +1 channel listed
/// next): of the 0.1 M benchmark guide's programmes, 55.1% repeat one of the last 2,000 contents and 56.1% one of the
/// last 40,000; of two real guides', 49.9 and 59.8% against 50.8 and 60.3%.
package final class PreparedContents: ProgrammeContents {
    private var programmes = ForgetfulMap<PreparedProgramme>(limit: 4_096, mostBytes: 4 << 20)

    package func knows(_ content: Int64) -> Bool { programmes[content] != nil }

    subscript(content: Int64) -> PreparedProgramme? { programmes[content] }

    func remember(_ programme: PreparedProgramme, for content: Int64) {
        programmes.remember(programme, bytes: programme.details.count + programme.bodyTexts.count, for: content)
    }
}

/// A repeat named a content the import did not hold: a fault of tvguide's, not of the guide.
struct ImportBatchingError: Error, CustomStringConvertible {
    static let repeatOfUnknownContent = ImportBatchingError()
    var description: String { "the reader handed on a repeat of a programme content the import did not hold" }
}

/// The reading side of an import, on a thread of ``BlockingWork``: reads each input to its end (gunzipping and picking the
/// format), passes what it reads through `transform`, prepares programmes in batches for `handoff`, ends with
/// `.finished` or `.failed`, and closes it. Stops early, quietly, when the writer cancelled. `progress` gets bytes
/// and programmes read so far after each chunk.
func readBatches(from inputs: [ImportInput], transform: ListingTransform, into handoff: ImportFeed,
                 progress: (_ bytesRead: Int64, _ programmes: Int) -> Void) {
    defer { handoff.close() }
    var batching = ImportBatching(transform: transform)
    var bytesRead: Int64 = 0
    var issues = IssueLog()
    func send() throws {
        guard !batching.isEmpty else { return }
        guard handoff.put(.items(batching.take())) else { throw CancellationError() }
    }
    do {
        // A configured source's plan names every channel it keeps; the rest of what it said before goes.
        if !transform.plan.keepsUnlisted {
            _ = batching.add(contentsOf: [.retire(allBut: Set(transform.plan.kept.values))])
        }
        for input in inputs {
            var decoder = ListingStreamDecoder(radioTimesChannel: ListingImporter.radioTimesChannel(for: input.name),
                                               localZone: transform.localZone, contents: batching.contents)
            while let chunk = try input.next() {
                switch chunk {
                case .bytes(let bytes):
                    try bytes.withUnsafeBytes { raw in
                        try decoder.feed(raw) { if try batching.add($0) { try send() } }
                    }
                    bytesRead += Int64(bytes.count)
                    progress(bytesRead, batching.programmes)
                case .line(let line):
                    decoder.continueAt(line: line)
                case .items(let items):
                    if batching.add(contentsOf: items) { try send() }
                }
            }
            try decoder.finish { if try batching.add($0) { try send() } }
            issues.merge(decoder.issues)
        }
        try send()
        _ = handoff.put(.finished(issues))
    } catch is CancellationError {
        return
    } catch {
        _ = handoff.put(.failed(error))
    }
}
