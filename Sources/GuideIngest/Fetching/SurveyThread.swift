import Foundation
import GuideStore
import GuideThreads
import NIOCore
import Synchronization

/// Surveys a feed as it arrives (a download, or a file read): the caller keeps its ``SameBytes`` and writes the file,
/// while a thread of its own scans what came before (``FeedSurvey``) from the first block that differs. They took
/// turns on one thread, and at 1.75 M programmes (912 MB) that thread was the whole download's time while the other
/// core waited.
///
/// At most `capacity` chunks wait between the two, so a survey slower than the network holds the download back
/// rather than the memory growing. A survey that fails (not listings) stops the download at its next chunk.
struct SurveyThread {
    /// What the survey found, once the feed is complete.
    struct Surveyed: Sendable {
        /// The bytes were the ones last imported: nothing else was surveyed.
        var isSame: Bool
        var content: String
        var channels: [OfferedChannel] = []
        var programmes = 0
        var layout: ListingLayout?
        /// What a partial download wrote (``PartialDownload``); nil when it wrote the whole feed.
        var written: WrittenRanges?
    }

    private enum Chunk: Sendable {
        /// The feed's bytes from an offset on.
        case bytes(ByteBuffer, at: Int64)
        /// The feed is complete, this long: the survey finishes. Closed without it, the feed failed: it just stops.
        case end(Int64)
    }

    /// What the survey has counted so far, for progress.
    private final class Counted: Sendable {
        let programmes = Atomic<Int>(0)
    }

    private var same: SameBytes
    private var bytes: Int64 = 0
    private let chunks: BlockingChannel<Chunk>
    private let surveyed: Task<FeedSurvey.Found?, any Error>
    private let counted: Counted
    /// Whether the survey writes the file, in part (``PartialDownload``), and is given every chunk.
    private let writesInPart: Bool

    /// A survey of the feed being written to `path`, compared with the content digests stored with its validators;
    /// with `partial` (the groups stored at the last import), the survey writes the file itself, only where a
    /// refresh reads it.
    init(location: String, localZone: TimeZone?, previous: String?, path: String,
         partial: [String: ListingLayout.Stored]? = nil, capacity: Int = 32) {
        same = SameBytes(previous: previous)
        writesInPart = partial != nil
        let chunks = BlockingChannel<Chunk>(capacity: capacity), counted = Counted()
        self.chunks = chunks
        self.counted = counted
        surveyed = Task {
            try await BlockingWork.run("survey") {
                do {
                    // Inside: a file it cannot write stops the download as any failure of the survey does.
                    var survey = FeedSurvey(location: location, localZone: localZone, path: path,
                                            partial: try partial.map {
                                                try PartialDownload(previous: $0, path: path, location: location)
                                            })
                    while let chunk = chunks.take() {
                        switch chunk {
                        case .bytes(let buffer, let offset):
                            try survey.feed(buffer, at: offset)
                        case .end(let end):
                            try survey.finish(at: end)
                            counted.programmes.store(survey.programmes, ordering: .relaxed)
                            return survey.found
                        }
                        counted.programmes.store(survey.programmes, ordering: .relaxed)
                    }
                    return nil
                } catch {
                    chunks.cancel()
                    throw error
                }
            }
        }
    }

    /// Programmes the survey has counted so far.
    var programmes: Int { counted.programmes.load(ordering: .relaxed) }

    /// The next bytes, already written to the file unless the survey writes it; throws what the survey failed with, if
    /// it did.
    mutating func feed(_ buffer: ByteBuffer) async throws {
        let offset = bytes
        bytes += Int64(buffer.readableBytes)
        guard !buffer.withUnsafeReadableBytes({ same.feed($0) }) || writesInPart else { return }
        if await !chunks.send(.bytes(buffer, at: offset)) { _ = try await surveyed.value }
    }

    /// The survey of the whole feed, and whether it was the bytes last imported.
    mutating func finish() async throws -> Surveyed {
        guard !same.finish() else {
            await abandon()
            return Surveyed(isSame: true, content: same.content)
        }
        if await chunks.send(.end(bytes)) { chunks.close() }
        // Only a survey that took the end returns what it found; one that failed threw.
        let found = try await surveyed.value
        return Surveyed(isSame: false, content: same.content, channels: found?.channels ?? [], programmes: found?.programmes ?? 0,
                        layout: found?.layout, written: found?.written ?? (writesInPart ? WrittenRanges() : nil))
    }

    /// The feed failed, or needs no survey: the survey stops where it is, and returns once it has (the file may
    /// then be removed).
    func abandon() async {
        chunks.close()
        _ = try? await surveyed.value
    }
}

extension FeedSurvey {
    /// What a finished survey found.
    struct Found: Sendable {
        var channels: [OfferedChannel]
        var programmes: Int
        var layout: ListingLayout?
        var written: WrittenRanges?
    }

    var found: Found { Found(channels: channels, programmes: programmes, layout: layout, written: written) }
}
