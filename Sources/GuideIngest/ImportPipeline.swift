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

/// The reading side of an import, on a thread of ``BlockingWork``: reads each input to its end (gunzipping and picking the
/// format), passes what it reads through `transform`, prepares programmes in batches for `handoff`, ends with
/// `.finished` or `.failed`, and closes it. Stops early, quietly, when the writer cancelled. `progress` gets bytes
/// and programmes read so far after each chunk.
func readBatches(from inputs: [ImportInput], transform: ListingTransform, into handoff: ImportFeed,
                 progress: (_ bytesRead: Int64, _ programmes: Int) -> Void) {
    defer { handoff.close() }
    var batch: [ImportItem] = []
    var bytesRead: Int64 = 0
    var programmes = 0
    var issues = IssueLog()
    var folding = TextFolding()
    func send() throws {
        guard !batch.isEmpty else { return }
        guard handoff.put(.items(batch)) else { throw CancellationError() }
        batch.removeAll(keepingCapacity: true)
    }
    do {
        // A configured source's plan names every channel it keeps; the rest of what it said before goes.
        if !transform.plan.keepsUnlisted { batch.append(.retire(allBut: Set(transform.plan.kept.values))) }
        let emit: (XMLTVItem) throws -> Void = { item in
            switch transform.apply(item) {
            case .channel(let channel)?: batch.append(.channel(channel))
            case .programme(let programme, let line)?:
                batch.append(.programme(PreparedProgramme(programme, line: line, folding: &folding)))
                programmes += 1
            case nil: return
            }
            if batch.count >= importBatchSize { try send() }
        }
        for input in inputs {
            var decoder = ListingStreamDecoder(radioTimesChannel: ListingImporter.radioTimesChannel(for: input.name),
                                               localZone: transform.localZone)
            while let chunk = try input.next() {
                switch chunk {
                case .bytes(let bytes):
                    try bytes.withUnsafeBytes { try decoder.feed($0, emit) }
                    bytesRead += Int64(bytes.count)
                    progress(bytesRead, programmes)
                case .line(let line):
                    decoder.continueAt(line: line)
                case .items(let items):
                    batch.append(contentsOf: items)
                    if batch.count >= importBatchSize { try send() }
                }
            }
            try decoder.finish(emit)
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
