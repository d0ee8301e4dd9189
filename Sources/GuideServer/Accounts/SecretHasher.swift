import Dispatch
import HummingbirdBcrypt
import Synchronization

/// bcrypt, on one thread of its own with a bounded queue. A secret costs about a quarter of a second of CPU: a burst
/// of sign-ins waits here, or is turned away when the queue is full, and never takes the threads that pages, the
/// API and the store run on.
final class SecretHasher: Sendable {
    /// Refused work: the queue is full; try again after `retryAfter` seconds.
    struct Busy: Error {
        let retryAfter: Int
    }

    /// Hashes being computed or waiting, at most: one running, the rest queued (at cost 12, about two seconds).
    let capacity: Int
    private let queue = DispatchQueue(label: "tvguide.secret-hasher", qos: .userInitiated)
    private let pending = Mutex(0)

    init(capacity: Int = 8) {
        self.capacity = capacity
    }

    /// Whether a hash would be accepted now: sign-in checks this before counting a try.
    var hasRoom: Bool { pending.withLock { $0 < capacity } }

    func hash(_ secret: String, cost: UInt8) async throws(Busy) -> String {
        try await run { Bcrypt.hash(secret, cost: cost) }
    }

    func verify(_ secret: String, hash: String) async throws(Busy) -> Bool {
        try await run { Bcrypt.verify(secret, hash: hash) }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws(Busy) -> T {
        let admitted = pending.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
        guard admitted else { throw Busy(retryAfter: 2) }
        return await withCheckedContinuation { continuation in
            queue.async {
                let result = body()
                self.pending.withLock { $0 -= 1 }
                continuation.resume(returning: result)
            }
        }
    }
}
