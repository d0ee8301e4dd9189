import Foundation
import GuideStore
import GuideThreads
import NIOCore
import Synchronization

/// A download's ``FeedSurvey`` on a thread of its own, fed the chunks as they arrive: the download writes the file
/// while the survey hashes and scans what came before. They took turns on one thread, and at 1.75 M programmes
/// (912 MB) that thread was the whole download's time while the other core waited.
///
/// At most `capacity` chunks wait between the two, so a survey slower than the network holds the download back
/// rather than the memory growing. A survey that fails (not listings) stops the download at its next chunk.
final class SurveyThread: Sendable {
    private enum Chunk: Sendable {
        case bytes(ByteBuffer)
        /// The download is complete: the survey finishes. Closed without it, the download failed: it just stops.
        case end
    }

    /// What the survey found, once the download is complete.
    struct Surveyed: Sendable {
        /// The bytes were the ones last imported.
        var isSame: Bool
        var content: String
        var channels: [OfferedChannel]
        var programmes: Int
        var layout: ListingLayout?
    }

    private let chunks: BlockingChannel<Chunk>
    private let surveyed: Task<Surveyed?, any Error>
    private let counted: Counted

    /// Programmes counted so far, for progress.
    private final class Counted: Sendable {
        let programmes = Atomic<Int>(0)
    }

    /// A survey of the download being written to `path` (``FeedSurvey``), made on its thread.
    init(location: String, localZone: TimeZone?, previous: String?, path: String, capacity: Int = 32) {
        let chunks = BlockingChannel<Chunk>(capacity: capacity), counted = Counted()
        self.chunks = chunks
        self.counted = counted
        surveyed = Task {
            try await BlockingWork.run("survey") {
                var survey = FeedSurvey(location: location, localZone: localZone, previous: previous, path: path)
                do {
                    while let chunk = chunks.take() {
                        guard case .bytes(let buffer) = chunk else {
                            let isSame = try survey.finish()
                            counted.programmes.store(survey.programmes, ordering: .relaxed)
                            return Surveyed(isSame: isSame, content: survey.content, channels: survey.channels,
                                            programmes: survey.programmes, layout: survey.layout)
                        }
                        try buffer.withUnsafeReadableBytes { try survey.feed($0) }
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

    /// Hands the survey the next chunk, already written to the file; throws what the survey failed with, if it did.
    func feed(_ buffer: ByteBuffer) async throws {
        guard await chunks.send(.bytes(buffer)) else {
            _ = try await surveyed.value
            return
        }
    }

    /// The survey of the whole download, and whether it was the same as the feed last imported.
    func finish() async throws -> Surveyed {
        if await chunks.send(.end) { chunks.close() }
        guard let surveyed = try await surveyed.value else {
            throw CancellationError()   // unreachable: the thread finishes the survey once it takes the end
        }
        return surveyed
    }

    /// The download failed: the survey stops where it is, and returns once it has (the file may then be removed).
    func abandon() async {
        chunks.close()
        _ = try? await surveyed.value
    }
}
