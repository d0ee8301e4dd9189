import Foundation
import GuideCore
import GuideStore
import GuideThreads
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
    public let store: any ImportStore
    /// Bytes read per step; memory use does not grow with the file.
    public var chunkSize = 1 << 20

    public init(store: any ImportStore) {
        self.store = store
    }

    /// Imports the file at `path` under the source name `source` (by default its file name: ``SourceName/init(location:)``).
    @discardableResult
    public func importFile(at path: String, as source: SourceName? = nil,
                           progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportSummary {
        try await importFiles([(path, path)], as: source ?? SourceName(location: path), transform: ListingTransform(), progress: progress)
    }

    /// Imports the file at `path` with every programme moved by `weeks` whole weeks (the bundled sample, moved to the
    /// current week: ``SampleWeeks``).
    @discardableResult
    public func importFile(at path: String, as source: SourceName, movedBy weeks: Int) async throws -> ImportSummary {
        var transform = ListingTransform()
        transform.timeShift = weeks * SampleWeeks.week
        return try await importFiles([(path, path)], as: source, transform: transform)
    }

    /// Imports files as one import of `source`: each file's path, and the name it goes by (a Radio Times file's
    /// name gives its channel). The files at the paths in `removingOnceRead` (downloads' temporary copies) are
    /// removed once read (``removing(_:once:)``).
    func importFiles(_ files: [(path: String, name: String)], as source: SourceName, transform: ListingTransform,
                     removingOnceRead: Set<String> = [],
                     progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportSummary {
        let size = chunkSize
        return try await importInputs(source: source, transform: transform, progress: progress) {
            let opened = try Self.open(files, chunkSize: size)
            let inputs = zip(files, opened.inputs).map { file, input in
                removingOnceRead.contains(file.path) ? Self.removing(file.path, once: input) : input
            }
            return (inputs, opened.total)
        }
    }

    /// Imports what `plan` reads of the file at `path` as one import of `source`: its header and the days that changed;
    /// the file is removed once read when `removingOnceRead` (a download's temporary copy).
    func importFile(at path: String, planned plan: RefreshPlan, as source: SourceName, transform: ListingTransform,
                    removingOnceRead: Bool) async throws -> ImportSummary {
        let size = chunkSize
        let total = plan.headerEnd + plan.segments.reduce(0) { $0 + Int64($1.bytes.count) }
        return try await importInputs(source: source, transform: transform, progress: { _ in }) {
            let input = try plan.input(reading: path, chunkSize: size)
            return ([removingOnceRead ? Self.removing(path, once: input) : input], total)
        }
    }

    /// `input`, whose file at `path` is removed when the reader lets go of it. The reader does that as soon as it has
    /// read everything, while the store still writes the last batches and commits: removing a 912 MB download took
    /// 0.2-0.3 s of the kernel's time after the commit before.
    private static func removing(_ path: String, once input: ImportInput) -> ImportInput {
        ImportInput(name: input.name, next: input.next, close: {
            input.close()
            try? FileManager.default.removeItem(atPath: path)  // A temporary copy; its feed's discard() tries again.
        })
    }

    /// Opens the files of an import (on its reading thread): their inputs and their size in all.
    private static func open(_ files: [(path: String, name: String)], chunkSize size: Int) throws -> (inputs: [ImportInput], total: Int64?) {
        var handles: [FileHandle] = []
        var total: Int64 = 0
        for file in files {
            handles.append(try LocalFile.open(file.path))
            total += (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        }
        let inputs = zip(files, handles).map { file, handle in
            ImportInput(name: file.name, next: { try handle.read(upToCount: size).flatMap { $0.isEmpty ? nil : .bytes($0) } },
                        close: { try? handle.close() })
        }
        return (inputs, total)
    }

    /// Imports from `next`, which returns the following chunk of raw (possibly gzip) bytes and empty data at the end.
    public func importStream(source: SourceName, name: String, totalBytes: Int64?,
                             progress: @escaping @Sendable (ImportProgress) -> Void = { _ in },
                             next: @escaping @Sendable () throws -> Data) async throws -> ImportSummary {
        try await importInputs(source: source, transform: ListingTransform(), progress: progress) {
            ([ImportInput(name: name, next: { let bytes = try next(); return bytes.isEmpty ? nil : .bytes(bytes) }, close: {})], totalBytes)
        }
    }

    /// Imports every input `open` gives (with their size in all, when known) as one import of `source`, through
    /// `transform`.
    ///
    /// Two threads share the work: one of ``BlockingWork`` opens the inputs, reads, unpacks, parses and prepares
    /// programmes (details blob, folded search text) in batches while the store writes the batch before (SQLite on
    /// its writer thread, PostgreSQL from this task); the batches in between are bounded, so memory stays flat.
    /// `progress` is called on the reading thread, once per chunk read.
    func importInputs(source: SourceName, transform: ListingTransform, progress: @escaping @Sendable (ImportProgress) -> Void,
                      open: @escaping @Sendable () throws -> (inputs: [ImportInput], total: Int64?)) async throws -> ImportSummary {
        let feed = ImportFeed(capacity: 4)
        let reading = Task {
            try await BlockingWork.run("tvguide.import-reader") {
                let opened: (inputs: [ImportInput], total: Int64?)
                do {
                    opened = try open()
                } catch {
                    _ = feed.put(.failed(error))
                    feed.close()
                    return
                }
                defer { for input in opened.inputs { input.close() } }
                readBatches(from: opened.inputs, transform: transform, into: feed) { bytesRead, programmes in
                    progress(ImportProgress(bytesRead: bytesRead, totalBytes: opened.total, programmes: programmes))
                }
            }
        }
        defer { reading.cancel() }
        let summary = try await store.importListings(from: source, reading: feed)
        try await reading.value
        // The timeshift channels follow their base channels' new listings. A failure keeps the programmes they had
        // (and the import that succeeded stands); the next import tries again.
        _ = try? await TimeshiftChannels(store: store).rebuild()
        return summary
    }

    /// A Radio Times file is named after its channel number (`26.dat`), which becomes the channel id.
    static func radioTimesChannel(for name: String) -> Channel {
        let file = name.split(separator: "/").last.map(String.init) ?? name
        let stem = file.split(separator: ".").first.map(String.init) ?? file
        let id = stem.isEmpty ? "radiotimes" : stem
        return Channel(id: ChannelID(id), displayNames: [LocalizedText("Radio Times channel \(id)")])
    }
}
