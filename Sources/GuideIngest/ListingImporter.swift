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

    /// Imports the file at `path` under the source name `source` (by default its file name: ``SourceName/init(location:)``).
    public func importFile(at path: String, as source: SourceName? = nil,
                           progress: (ImportProgress) -> Void = { _ in }) throws -> ImportSummary {
        try importFiles([(path, path)], as: source ?? SourceName(location: path), transform: ListingTransform(), progress: progress)
    }

    /// Imports files as one import of `source`: each file's path, and the name it goes by (a Radio Times file's
    /// name gives its channel).
    func importFiles(_ files: [(path: String, name: String)], as source: SourceName, transform: ListingTransform,
                     progress: (ImportProgress) -> Void = { _ in }) throws -> ImportSummary {
        var handles: [FileHandle] = []
        defer { for handle in handles { try? handle.close() } }  // Closing files we only read cannot lose data.
        var total: Int64 = 0
        for file in files {
            guard let handle = FileHandle(forReadingAtPath: file.path) else {
                let exists = FileManager.default.fileExists(atPath: file.path)
                throw IngestError(exists ? .unreadable : .notFound,
                                  exists ? "cannot read \(file.path): check its permissions" : "no file at \(file.path): check the path")
            }
            handles.append(handle)
            total += (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        }
        let size = chunkSize
        let inputs = zip(files, handles).map { file, handle in
            ImportInput(name: file.name) { try handle.read(upToCount: size) ?? Data() }
        }
        return try importInputs(source: source, inputs, transform: transform, totalBytes: total, progress: progress)
    }

    /// Imports from `next`, which returns the following chunk of raw (possibly gzip) bytes and empty data at the end.
    public func importStream(source: SourceName, name: String, totalBytes: Int64?,
                             progress: (ImportProgress) -> Void = { _ in },
                             next: @escaping () throws -> Data) throws -> ImportSummary {
        try importInputs(source: source, [ImportInput(name: name, next: next)], transform: ListingTransform(),
                         totalBytes: totalBytes, progress: progress)
    }

    /// Imports every input as one import of `source`, through `transform`.
    ///
    /// Two threads share the work: this one reads, unpacks, parses and prepares programmes (details blob, folded
    /// search text) in batches while the store's writer, on its own thread, inserts the batch before; the batches
    /// in between are bounded, so memory stays flat. `progress` is called on this thread, once per chunk read.
    func importInputs(source: SourceName, _ inputs: [ImportInput], transform: ListingTransform, totalBytes: Int64?,
                      progress: (ImportProgress) -> Void) throws -> ImportSummary {
        let handoff = Handoff<ImportBatch>(capacity: 4)
        let writer = ImportWriter(store: store, source: source, handoff: handoff)
        readBatches(from: inputs, transform: transform, into: handoff) { bytesRead, programmes in
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
