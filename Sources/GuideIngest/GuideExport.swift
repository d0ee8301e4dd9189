import CZlib
import Foundation
import GuideCore
import GuideStore
import XMLTV

/// Writes the guide as an XMLTV file, plain or gzip, beside its destination first and renamed into place, so a reader
/// (or a failed export) never sees half a file: the whole guide as it is, or some channels for some days, shaped for
/// a media server (``MediaServerShape``). Programmes stream from the store: memory stays flat.
public struct GuideExport: Sendable {
    public let store: any ListingStore
    /// Where this server serves SD's artwork for a series (``ProgrammeArtwork``); nil for a file written with no
    /// server to name, which leaves that artwork out.
    public let artwork: (@Sendable (String) -> String)?

    public init(store: any ListingStore, artwork: (@Sendable (String) -> String)? = nil) {
        self.store = store
        self.artwork = artwork
    }

    /// `programme` as it leaves the server: its titles, sub-titles and descriptions in `languages` first.
    func exported(_ programme: Programme, languages: [String] = []) -> Programme {
        var programme = programme.reading(languages)
        programme.icons = ProgrammeArtwork.addressed(programme.icons, at: artwork)
        return programme
    }

    /// Writes the whole guide to `path`, gzip-compressed when `compressed`; `channels` (every channel, as the server
    /// describes them) instead of the store's own; titles, sub-titles and descriptions in `languages` first.
    public func write(to path: String, compressed: Bool, channels: [Channel]? = nil, languages: [String] = []) async throws {
        try await Self.write(to: path, compressed: compressed) { sink in try await write(sink, channels: channels, languages: languages) }
    }

    /// Writes those of `channels` with programmes overlapping `window`, and the programmes, to `path` (a channel with
    /// none tells a media server nothing, and is an error to the XMLTV project's validator), each shaped by
    /// `shape` when given, its titles, sub-titles and descriptions in `languages` first; the number of programmes
    /// written. The store is read 50 channels at a time.
    @discardableResult
    public func write(to path: String, compressed: Bool, channels: [Channel], window: TimeWindow, shape: MediaServerShape?,
                      languages: [String] = []) async throws -> Int {
        var written = 0
        let listed = Set(try await store.listedChannels(channels.map(\.id), in: window))
        let channels = channels.filter { listed.contains($0.id) }
        try await Self.write(to: path, compressed: compressed) { sink in
            let text = ExportText(sink)
            try text.writer.begin()
            for channel in channels { try text.writer.write(shape?.channel(channel) ?? channel) }
            for start in stride(from: 0, to: channels.count, by: 50) {
                let chunk = channels[start..<min(channels.count, start + 50)].map(\.id)
                for listings in try await store.guide(in: window, channels: chunk, detail: .full) {
                    for var stored in listings.programmes {
                        stored.programme = exported(stored.programme, languages: languages)
                        try text.writer.write(shape?.programme(stored) ?? stored.programme)
                        written += 1
                    }
                }
            }
            try text.writer.end()
            try text.flush()
        }
        return written
    }

    /// Hands the guide's XMLTV text to `sink` in pieces of about 64 KB, on the thread the store hands programmes
    /// over on (SQLite's reader) or this task's.
    public func write(_ sink: @escaping (String) throws -> Void, channels: [Channel]? = nil, languages: [String] = []) async throws {
        let text = ExportText(sink)
        try text.writer.begin()
        let described: [Channel]
        if let channels { described = channels } else { described = try await store.channels() }
        for channel in described { try text.writer.write(channel) }
        try await store.forEachProgramme { try text.writer.write(exported($0.programme, languages: languages)) }
        try text.writer.end()
        try text.flush()
    }

    /// Runs `body` with a sink writing to a partial file beside `path`, then renames it into place.
    private static func write(to path: String, compressed: Bool, _ body: (@escaping (String) throws -> Void) async throws -> Void) async throws {
        let partial = path + ".partial"
        let output = try ExportOutput(path: partial, compressed: compressed)
        do {
            try await body { try output.write($0) }
            try output.close()
        } catch {
            try? output.close()  // The partial file is removed next; closing it is all that is left to do.
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        _ = try? FileManager.default.removeItem(atPath: path)  // Replacing an older export is intended.
        try FileManager.default.moveItem(atPath: partial, toPath: path)
    }
}

/// One export's XMLTV writer and the text it has not handed over yet. The store hands programmes over one at a time,
/// never two at once, so it is only ever used by one thread at a time.
private final class ExportText: @unchecked Sendable {
    let writer: XMLTVWriter
    private let pending: Pending

    init(_ sink: @escaping (String) throws -> Void) {
        let pending = Pending(sink)
        self.pending = pending
        writer = XMLTVWriter { text in try pending.append(text) }
    }

    func flush() throws {
        try pending.flush()
    }

    /// Text written but not yet handed to the sink: handed over in pieces of about 64 KB.
    private final class Pending {
        private var text = ""
        private let sink: (String) throws -> Void

        init(_ sink: @escaping (String) throws -> Void) {
            self.sink = sink
        }

        func append(_ more: String) throws {
            text += more
            if text.utf8.count > 1 << 16 { try flush() }
        }

        func flush() throws {
            try sink(text)
            text = ""
        }
    }
}

/// A file written plainly or through zlib's gzip writer.
private final class ExportOutput {
    private var plain: FileHandle?
    private var gzip: gzFile?

    init(path: String, compressed: Bool) throws {
        if compressed {
            guard let file = gzopen(path, "wb6") else { throw IngestError(.unwritable, saying: "cannot write {file}", ["file": path]) }
            gzip = file
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
                throw IngestError(.unwritable, saying: "cannot write {file}: check the folder exists and is writable", ["file": path])
            }
            plain = file
        }
    }

    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { bytes in
            if let gzip {
                guard bytes.isEmpty || gzwrite(gzip, bytes.baseAddress, UInt32(bytes.count)) == Int32(bytes.count) else {
                    throw IngestError(.unwritable, saying: "cannot write the compressed export (disk full?)")
                }
            } else {
                try plain?.write(contentsOf: UnsafeRawBufferPointer(bytes))
            }
        }
    }

    func close() throws {
        if let gzip {
            self.gzip = nil
            guard gzclose(gzip) == Z_OK else { throw IngestError(.unwritable, saying: "cannot finish the compressed export (disk full?)") }
        }
        try plain?.close()
        plain = nil
    }
}
