import Foundation
import Synchronization

/// The one way tvguide runs synchronous work that takes long (parsing a guide, an SQLite import's writer, bcrypt):
/// on threads of its own, never on Swift's cooperative threads, which are as many as the cores (two here) and must
/// stay free for requests. Async code awaits the result without holding a thread.
///
/// Everything here that blocks a thread (`Thread`, a condition's `wait()`) lives in this file; `scripts/check-async`
/// fails the tests when such a call appears anywhere else in Sources.
public enum BlockingWork {
    /// Runs `body` on a new thread named `label` (8 MB of stack, for deep documents) and returns what it returned.
    public static func run<T: Sendable>(_ label: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = label
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}

/// One thread with a bounded queue in front of it: work beyond `capacity` (running and waiting) is turned away
/// instead of piling up. For bcrypt, where a burst of sign-ins must not take the threads pages run on.
public final class BlockingLane: Sendable {
    /// Refused work: the lane is full.
    public struct Full: Error {}

    /// Work running or waiting, at most.
    public let capacity: Int
    private let queue: DispatchQueue
    private let pending = Mutex(0)

    public init(label: String, capacity: Int) {
        self.capacity = capacity
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Whether work would be accepted now.
    public var hasRoom: Bool { pending.withLock { $0 < capacity } }

    /// Runs `body` after the work queued before it; `Full` at once when `capacity` pieces are running or waiting.
    public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws(Full) -> T {
        let admitted = pending.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
        guard admitted else { throw Full() }
        return await withCheckedContinuation { continuation in
            queue.async {
                let result = body()
                self.pending.withLock { $0 -= 1 }
                continuation.resume(returning: result)
            }
        }
    }
}

/// A bounded queue between a thread of ``BlockingWork`` and async code, either way: a thread puts (``put(_:)``) and
/// async code or another thread takes (``next()``, ``take()``), or async code sends (``send(_:)``) and a thread
/// takes. The producer waits while it is full, so memory stays flat whatever the input. Either side can stop the
/// other: the producer by closing it, the consumer by cancelling it.
public final class BlockingChannel<Element: Sendable>: @unchecked Sendable {
    // Every stored property is guarded by `condition`.
    private let condition = NSCondition()
    /// At most `capacity` elements, so taking from the front is cheap.
    private var waiting: [Element] = []
    /// An async consumer waiting for the next element.
    private var consumer: CheckedContinuation<Element?, Never>?
    /// An async producer waiting for room: resumed with nil to ask again.
    private var producer: CheckedContinuation<Bool?, Never>?
    private var isClosed = false
    private var isCancelled = false
    private let capacity: Int
    /// Elements the consumer is done with, handed back for the producer's thread to release (``giveBack(_:)``); at
    /// most `capacity`.
    private var givenBack: [Element] = []

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many elements wait to be taken.
    public var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting.count
    }

    /// Queues `element`, waiting for room (on a thread of ``BlockingWork`` only); false if the consumer cancelled,
    /// and the element was dropped.
    public func put(_ element: Element) -> Bool {
        condition.lock()
        while waiting.count >= capacity && !isCancelled { condition.wait() }
        let done = givenBack
        givenBack.removeAll(keepingCapacity: true)
        // What the consumer gave back is released here, on the producer's thread, once the lock is let go.
        defer { withExtendedLifetime(done) {} }
        guard !isCancelled else {
            condition.unlock()
            return false
        }
        if let consumer {
            self.consumer = nil
            condition.unlock()
            consumer.resume(returning: element)
            return true
        }
        waiting.append(element)
        condition.broadcast()
        condition.unlock()
        return true
    }

    /// Hands an element the consumer is done with back to the producer, whose next ``put(_:)`` releases it: what a
    /// thread allocated is then freed on that thread. Freed on the consumer's, each of an import's batches took
    /// glibc's lock of the reader's heap while the reader allocated the next one, and waking each other there cost
    /// the reading thread 7% of its time at 1.75 M programmes. Past `capacity` waiting, it is released here.
    public func giveBack(_ element: consuming Element) {
        condition.lock()
        guard givenBack.count < capacity, !isClosed || !waiting.isEmpty else {
            condition.unlock()
            return
        }
        givenBack.append(element)
        condition.unlock()
    }

    /// Queues `element` from async code, suspending (not blocking) while the queue is full; false if the consumer
    /// cancelled, and the element was dropped. One producer at a time, taken from by ``take()``.
    public func send(_ element: Element) async -> Bool {
        while true {
            let queued: Bool? = await withCheckedContinuation { continuation in
                condition.lock()
                if isCancelled {
                    condition.unlock()
                    continuation.resume(returning: false)
                } else if waiting.count < capacity {
                    waiting.append(element)
                    condition.broadcast()
                    condition.unlock()
                    continuation.resume(returning: true)
                } else {
                    producer = continuation
                    condition.unlock()
                }
            }
            if let queued { return queued }
        }
    }

    /// The next element, waiting for one on this thread (a thread of its own only); nil once the producer closed and
    /// everything was taken.
    public func take() -> Element? {
        condition.lock()
        while waiting.isEmpty && !isClosed { condition.wait() }
        guard !waiting.isEmpty else {
            condition.unlock()
            return nil
        }
        let element = waiting.removeFirst()
        condition.broadcast()
        let producer = self.producer
        self.producer = nil
        condition.unlock()
        producer?.resume(returning: nil)
        return element
    }

    /// The next element, suspending (not blocking) until there is one; nil once the producer closed and everything
    /// was taken. One consumer at a time.
    public func next() async -> Element? {
        await withCheckedContinuation { continuation in
            condition.lock()
            if !waiting.isEmpty {
                let element = waiting.removeFirst()
                condition.broadcast()
                condition.unlock()
                continuation.resume(returning: element)
            } else if isClosed {
                condition.unlock()
                continuation.resume(returning: nil)
            } else {
                consumer = continuation
                condition.unlock()
            }
        }
    }

    /// The producer is done.
    public func close() {
        condition.lock()
        isClosed = true
        let consumer = self.consumer
        self.consumer = nil
        condition.broadcast()
        condition.unlock()
        consumer?.resume(returning: nil)
    }

    /// The consumer gave up: wakes a waiting producer, whose `put` or `send` then returns false.
    public func cancel() {
        condition.lock()
        isCancelled = true
        waiting.removeAll()
        let producer = self.producer
        self.producer = nil
        condition.broadcast()
        condition.unlock()
        producer?.resume(returning: false)
    }
}
