import Foundation
import GuideHTTP
import GuideCore
import GuideStore
import XMLTV

/// A downloaded M3U playlist (plain or gzip, known by its first bytes) read a batch of entries at a time, for
/// ``PlaylistStore/replacePlaylist(of:next:header:)``: memory holds one 1 MB chunk and one batch, whatever the
/// playlist's length.
public final class PlaylistFile {
    static let batchSize = 1000

    /// Replaces `source`'s entries with the playlist at `path`, in one transaction: how many it holds now, and how
    /// many repairs reading it made.
    public static func store(_ path: String, as source: SourceName, in store: any PlaylistStore) async throws -> (entries: Int, repairs: Int) {
        let file = try PlaylistFile(path: path)
        let entries = try await store.replacePlaylist(of: source, next: file.next, header: { file.header })
        return (entries, file.repairs.total)
    }

    private let handle: FileHandle
    private var reader = M3UReader()
    private var inflater: GzipInflater?
    private var isFirst = true
    private var isDone = false
    private var waiting: [PlaylistEntry] = []

    init(path: String) throws {
        handle = try LocalFile.open(path)
    }

    deinit {
        try? handle.close()  // Read-only: nothing is lost when closing fails.
    }

    /// What the `#EXTM3U` line said, once it has been read.
    var header: PlaylistHeader? { reader.header }
    var repairs: M3UReader.Repairs { reader.repairs }

    /// The next batch of entries; nil at the end. Throws ``IngestError`` when the file is not a playlist.
    func next() async throws -> [PlaylistEntry]? {
        while waiting.count < Self.batchSize, !isDone {
            guard let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty else {
                do {
                    try inflater?.finish()
                    try reader.finish { waiting.append($0) }
                } catch let failure as GzipInflater.Failure {
                    throw IngestError(failure)
                } catch let failure as M3UReader.Failure {
                    throw IngestError(.unknownFormat, .verbatim(failure.description))
                }
                isDone = true
                break
            }
            do {
                if isFirst {
                    isFirst = false
                    if chunk.count >= 2, chunk[chunk.startIndex] == 0x1F, chunk[chunk.startIndex + 1] == 0x8B { inflater = try GzipInflater(limit: IngestError.inflation) }
                }
                try chunk.withUnsafeBytes { raw in
                    if let inflater {
                        try inflater.inflate(raw) { plain in reader.read(plain.bindMemory(to: UInt8.self)) { waiting.append($0) } }
                    } else {
                        reader.read(raw.bindMemory(to: UInt8.self)) { waiting.append($0) }
                    }
                }
            } catch let failure as GzipInflater.Failure {
                throw IngestError(failure)
            }
            await Task.yield()   // 1 MB is a few milliseconds of reading; let requests in between
        }
        guard !waiting.isEmpty else { return nil }
        let batch = Array(waiting.prefix(Self.batchSize))
        waiting.removeFirst(batch.count)
        return batch
    }
}
