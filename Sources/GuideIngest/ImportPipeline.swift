import Foundation
import GuideCore
import GuideStore
import XMLTV

/// What the reading thread hands the writing thread.
enum ImportItem: Sendable {
    case channel(Channel)
    case programme(PreparedProgramme)
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

/// The reading side of an import, on the calling thread: reads `next` to its end (gunzipping and picking the
/// format), prepares programmes in batches for `handoff`, ends with `.finished` or `.failed`, and closes it.
/// Stops early, quietly, when the writer cancelled. `progress` gets bytes and programmes read after each chunk.
func readBatches(from next: () throws -> Data, radioTimesChannel: Channel, into handoff: Handoff<ImportBatch>,
                 progress: (_ bytesRead: Int64, _ programmes: Int) -> Void) {
    defer { handoff.close() }
    var batch: [ImportItem] = []
    var bytesRead: Int64 = 0
    var programmes = 0
    func send() throws {
        guard !batch.isEmpty else { return }
        guard handoff.put(.items(batch)) else { throw CancellationError() }
        batch.removeAll(keepingCapacity: true)
    }
    do {
        var decoder = ListingDecoder(radioTimesChannel: radioTimesChannel)
        var inflater: GzipInflater?
        var isFirst = true
        let emit: (XMLTVItem) throws -> Void = { item in
            switch item {
            case .channel(let channel): batch.append(.channel(channel))
            case .programme(let programme, let line):
                batch.append(.programme(PreparedProgramme(programme, line: line)))
                programmes += 1
            }
            if batch.count >= batchSize { try send() }
        }
        while true {
            let chunk = try next()
            if chunk.isEmpty { break }
            if isFirst {
                isFirst = false
                if chunk.count >= 2, chunk[chunk.startIndex] == 0x1F, chunk[chunk.startIndex + 1] == 0x8B {
                    inflater = try GzipInflater()
                }
            }
            try chunk.withUnsafeBytes { raw in
                if let inflater {
                    try inflater.inflate(raw) { try decoder.feed($0, emit) }
                } else {
                    try decoder.feed(raw, emit)
                }
            }
            bytesRead += Int64(chunk.count)
            progress(bytesRead, programmes)
        }
        try inflater?.finish()
        try decoder.finish(emit)
        try send()
        _ = handoff.put(.finished(decoder.issues))
    } catch is CancellationError {
        return
    } catch {
        _ = handoff.put(.failed(error))
    }
}
