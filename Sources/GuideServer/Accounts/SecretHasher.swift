import GuideCore
import GuideThreads
import HummingbirdBcrypt

/// bcrypt, on a lane of its own with a bounded queue. A secret costs about a quarter of a second of CPU: a burst of
/// sign-ins waits here, or is turned away when the queue is full, and never takes the threads that pages, the API
/// and the store run on.
final class SecretHasher: Sendable {
    /// Refused work: the queue is full; try again after `retryAfter` seconds.
    struct Busy: Error {
        let retryAfter: Int
    }

    /// Hashes being computed or waiting, at most: one running, the rest queued (at cost 12, about two seconds).
    var capacity: Int { lane.capacity }
    /// The thread and queue the work runs on (a test holds it full).
    let lane: BlockingLane

    init(capacity: Int = 8) {
        lane = BlockingLane(label: "tvguide.secret-hasher", capacity: capacity)
    }

    /// Whether a hash would be accepted now: sign-in checks this before counting a try.
    var hasRoom: Bool { lane.hasRoom }

    func hash(_ secret: String, cost: UInt8) async throws(Busy) -> String {
        try await run { Bcrypt.hash(secret, cost: cost) }
    }

    func verify(_ secret: String, hash: String) async throws(Busy) -> Bool {
        try await run { Bcrypt.verify(secret, hash: hash) }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws(Busy) -> T {
        do {
            return try await lane.run(body)
        } catch {
            throw Busy(retryAfter: 2)
        }
    }
}
