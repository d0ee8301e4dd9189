import Foundation
import GuideCore
import GuideStore
import XMLTV

/// What the reading thread hands the writing thread.
enum ImportItem: Sendable {
    case channel(Channel)
    case programme(PreparedProgramme)
    /// Drop the source's earlier listings on every channel but these.
    case retire(allBut: Set<ChannelID>)
}

enum ImportBatch: Sendable {
    case items([ImportItem])
    /// The input was read to its end; the reader's issues go into the report.
    case finished(IssueLog)
    case failed(any Error)
}

/// The store's side of an import, on its own thread: one transaction that takes batches from `handoff` until the
/// reader closes it. A batch saying the reading failed fails the transaction, so nothing changes; a failing store
/// cancels `handoff`, which stops the reader.
final class ImportWriter: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    /// Written by the writing thread before it signals `finished`, read only after waiting for it.
    private var outcome: Result<ImportSummary, any Error> = .failure(CancellationError())

    init(store: any ListingStore, source: SourceName, handoff: Handoff<ImportBatch>) {
        let thread = Thread { [self] in
            outcome = Result { try store.importListings(from: source) { sink in try Self.drain(handoff, into: sink) } }
            if case .failure = outcome { handoff.cancel() }
            finished.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Waits for the transaction to end; its summary, or why it failed.
    func summary() throws -> ImportSummary {
        finished.wait()
        return try outcome.get()
    }

    private static func drain(_ handoff: Handoff<ImportBatch>, into sink: any ListingSink) throws {
        while let batch = handoff.take() {
            switch batch {
            case .items(let items):
                for item in items {
                    switch item {
                    case .channel(let channel): try sink.add(channel)
                    case .programme(let programme): try sink.add(programme)
                    case .retire(let kept): try sink.retire(allBut: kept)
                    }
                }
            case .finished(let issues):
                sink.record(issues)
            case .failed(let error):
                throw error
            }
        }
    }
}

private let batchSize = 512

/// One input of an import: raw (possibly gzip) bytes read chunk by chunk, empty data at the end.
struct ImportInput {
    /// Names the input in messages; a Radio Times file's name gives its channel.
    var name: String
    var next: () throws -> Data
}

/// The reading side of an import, on the calling thread: reads each input to its end (gunzipping and picking the
/// format), passes what it reads through `transform`, prepares programmes in batches for `handoff`, ends with
/// `.finished` or `.failed`, and closes it. Stops early, quietly, when the writer cancelled. `progress` gets bytes
/// and programmes read so far after each chunk.
func readBatches(from inputs: [ImportInput], transform: ListingTransform, into handoff: Handoff<ImportBatch>,
                 progress: (_ bytesRead: Int64, _ programmes: Int) -> Void) {
    defer { handoff.close() }
    var batch: [ImportItem] = []
    var bytesRead: Int64 = 0
    var programmes = 0
    var issues = IssueLog()
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
                batch.append(.programme(PreparedProgramme(programme, line: line)))
                programmes += 1
            case nil: return
            }
            if batch.count >= batchSize { try send() }
        }
        for input in inputs {
            var decoder = ListingStreamDecoder(radioTimesChannel: ListingImporter.radioTimesChannel(for: input.name),
                                               localZone: transform.localZone)
            while true {
                let chunk = try input.next()
                if chunk.isEmpty { break }
                try chunk.withUnsafeBytes { try decoder.feed($0, emit) }
                bytesRead += Int64(chunk.count)
                progress(bytesRead, programmes)
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
