import Foundation
import Synchronization

/// `/api/now`'s answers, kept while they hold: an answer is the same for every instant from the one it was made at
/// until a programme it names stops or another starts (``NowNext/holdsUntil``), for the listings it was made from.
/// Ten thousand channels' answer is 4 MB and took 40-50 ms to make; home-automation and lock-screen clients ask for it
/// every few seconds. At most ``mostBytes`` are kept, the oldest answers going first.
final class NowNextAnswers: Sendable {
    struct Answer: Sendable {
        /// What was asked (the channels, or all) and of which listings.
        var question: String
        var generation: Int64
        var from: Date
        var until: Date
        var body: [UInt8]
        /// Its gzip form, once a client asked for it (8 MB of JSON took 75 ms to compress).
        var gzipped: [UInt8]?
        var bytes: Int { body.count + (gzipped?.count ?? 0) }
    }

    static let mostBytes = 8 << 20
    static let mostAnswers = 32
    private let kept = Mutex<[Answer]>([])

    /// The answer kept for `question` about `generation`'s listings at `instant`, if one holds then.
    func answer(to question: String, generation: Int64, at instant: Date) -> Answer? {
        kept.withLock { kept in
            kept.first { $0.question == question && $0.generation == generation && $0.from <= instant && instant < $0.until }
        }
    }

    /// `answer`'s gzip form: the one kept, else `compress`'s, kept with it while the bounds allow.
    func gzipped(_ answer: Answer, _ compress: ([UInt8]) -> [UInt8]?) -> [UInt8]? {
        if let gzipped = answer.gzipped { return gzipped }
        guard let gzipped = compress(answer.body) else { return nil }
        kept.withLock { kept in
            let same = { (other: Answer) in
                other.question == answer.question && other.generation == answer.generation && other.from == answer.from
            }
            guard let index = kept.firstIndex(where: same), kept.reduce(0, { $0 + $1.bytes }) + gzipped.count <= Self.mostBytes
            else { return }
            kept[index].gzipped = gzipped
        }
        return gzipped
    }

    /// Keeps `body`, made at `from`, until `until`; answers to the same question about other listings or instants go.
    func keep(_ body: [UInt8], for question: String, generation: Int64, from: Date, until: Date) {
        guard from < until, body.count <= Self.mostBytes else { return }
        kept.withLock { kept in
            kept.removeAll { $0.question == question || $0.generation != generation }
            kept.append(Answer(question: question, generation: generation, from: from, until: until, body: body))
            var bytes = kept.reduce(0) { $0 + $1.bytes }
            while bytes > Self.mostBytes || kept.count > Self.mostAnswers {
                bytes -= kept.removeFirst().bytes
            }
        }
    }

    /// How many answers are kept and their bytes.
    var size: (answers: Int, bytes: Int) {
        kept.withLock { ($0.count, $0.reduce(0) { $0 + $1.bytes }) }
    }
}
