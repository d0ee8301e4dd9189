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
    /// search text) in batches while the store's writer, on its own thread, inserts the batch before; the batches
    /// in between are bounded, so memory stays flat. `progress` is called on this thread, once per chunk read.
    public func importStream(source: SourceName, name: String, totalBytes: Int64?,
                             progress: (ImportProgress) -> Void = { _ in },
                             next: () throws -> Data) throws -> ImportSummary {
        let handoff = Handoff<ImportBatch>(capacity: 4)
        let writer = ImportWriter(store: store, source: source, handoff: handoff)
        readBatches(from: next, radioTimesChannel: Self.radioTimesChannel(for: name), into: handoff) { bytesRead, programmes in
            progress(ImportProgress(bytesRead: bytesRead, totalBytes: totalBytes, programmes: programmes))
        }
        return try writer.summary()
    }

    /// A Radio Times file is named after its channel number (`26.dat`), which becomes the channel id.
    static func radioTimesChannel(for name: String) -> Channel {
        let file = name.split(separator: "/").last.map(String.init) ?? name
        let stem = file.split(separator: ".").first.map(String.init) ?? file
        let id = stem.isEmpty ? "radiotimes" : stem
        return Channel(id: ChannelID(id), displayNames: [LocalizedText("Radio Times channel \(id)")])
    }
}
