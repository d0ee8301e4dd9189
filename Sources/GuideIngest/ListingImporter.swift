import Foundation
import GuideCore
import GuideStore
import XMLTV

/// How far an import has got, for a progress line.
public struct ImportProgress: Sendable {
    /// Bytes read from the file or download (compressed bytes for gzip).
    public var bytesRead: Int64
    /// The input's size when known.
    public var totalBytes: Int64?
    public var programmes: Int

    /// 0...1 when the size is known.
    public var fraction: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(bytesRead) / Double(totalBytes))
    }
}

/// Lets a value cross to another thread when the code around it guarantees the two never use it at once.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
}

/// Reads one listings file (XMLTV or Radio Times, plain or gzip) into the store as one import.
public struct ListingImporter: Sendable {
    public let store: any ListingStore
    /// Bytes read per step; memory use does not grow with the file.
    public var chunkSize = 1 << 20

    public init(store: any ListingStore) {
        self.store = store
    }

    /// Imports the file at `path` under the source name `source` (the path itself by default).
    public func importFile(at path: String, as source: SourceName? = nil,
                           progress: (ImportProgress) -> Void = { _ in }) throws -> ImportSummary {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw IngestError(exists ? .unreadable : .notFound,
                              exists ? "cannot read \(path): check its permissions" : "no file at \(path): check the path")
        }
        defer { try? handle.close() }  // Closing a file we only read cannot lose data.
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
        return try importStream(source: source ?? SourceName(path), name: path, totalBytes: size, progress: progress) {
            try handle.read(upToCount: chunkSize) ?? Data()
        }
    }

    /// Imports from `next`, which returns the following chunk of raw (possibly gzip) bytes and empty data at the end.
    ///
    /// Two threads share the work: this one reads, unpacks, parses and prepares programmes (details blob, folded
    /// search text) in batches, while the store's writer inserts the batch before; the batches in between are
    /// bounded, so memory stays flat. `progress` is called on the writer's thread.
    public func importStream(source: SourceName, name: String, totalBytes: Int64?,
                             progress: (ImportProgress) -> Void = { _ in },
                             next: () throws -> Data) throws -> ImportSummary {
        try withoutActuallyEscaping(next) { next in
            let handoff = Handoff<ImportBatch>(capacity: 4)
            let finished = DispatchSemaphore(value: 0)
            // The reading thread is the only caller of `next`, and this function waits for it to end before
            // returning, so `next` never outlives the call it was passed to.
            let reader = UncheckedSendable(value: next)
            let channel = Self.radioTimesChannel(for: name)
            let thread = Thread {
                Self.read(reader.value, radioTimesChannel: channel, into: handoff)
                finished.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
            defer {
                handoff.cancel()
                finished.wait()
            }
            return try store.importListings(from: source) { sink in
                var state = ImportProgress(bytesRead: 0, totalBytes: totalBytes, programmes: 0)
                while let batch = handoff.take() {
                    switch batch {
                    case .items(let items, let bytesRead):
                        for item in items {
                            switch item {
                            case .channel(let channel): try sink.add(channel)
                            case .programme(let programme):
                                try sink.add(programme)
                                state.programmes += 1
                            }
                        }
                        if bytesRead > state.bytesRead {
                            state.bytesRead = bytesRead
                            progress(state)
                        }
                    case .finished(let issues):
                        sink.record(issues)
                    case .failed(let error):
                        throw error
                    }
                }
            }
        }
    }

    private enum ImportItem: Sendable {
        case channel(Channel)
        case programme(PreparedProgramme)
    }

    private enum ImportBatch: Sendable {
        /// What the reader made of the input up to `bytesRead` raw bytes.
        case items([ImportItem], bytesRead: Int64)
        case finished(IssueLog)
        case failed(any Error)
    }

    private static let batchSize = 512

    /// The reading thread: everything up to the store, ending with `.finished` or `.failed` and closing `handoff`.
    private static func read(_ next: () throws -> Data, radioTimesChannel: Channel, into handoff: Handoff<ImportBatch>) {
        defer { handoff.close() }
        var batch: [ImportItem] = []
        var bytesRead: Int64 = 0
        func send() throws {
            guard handoff.put(.items(batch, bytesRead: bytesRead)) else { throw CancellationError() }
            batch.removeAll(keepingCapacity: true)
        }
        do {
            var decoder = ListingDecoder(radioTimesChannel: radioTimesChannel)
            var inflater: GzipInflater?
            var isFirst = true
            let emit: (XMLTVItem) throws -> Void = { item in
                switch item {
                case .channel(let channel): batch.append(.channel(channel))
                case .programme(let programme, let line): batch.append(.programme(PreparedProgramme(programme, line: line)))
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
                try send()
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

    /// A Radio Times file is named after its channel number (`26.dat`), which becomes the channel id.
    static func radioTimesChannel(for name: String) -> Channel {
        let file = name.split(separator: "/").last.map(String.init) ?? name
        let stem = file.split(separator: ".").first.map(String.init) ?? file
        let id = stem.isEmpty ? "radiotimes" : stem
        return Channel(id: ChannelID(id), displayNames: [LocalizedText("Radio Times channel \(id)")])
    }
}
