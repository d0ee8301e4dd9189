import Foundation

/// A bounded queue between two threads: the producer blocks while it is full, the consumer while it is empty.
/// Either side can stop the other: the producer by closing it, the consumer by cancelling it.
final class Handoff<Element: Sendable>: @unchecked Sendable {
    // Every stored property is guarded by `condition`.
    private let condition = NSCondition()
    /// At most `capacity` elements, so taking from the front is cheap.
    private var waiting: [Element] = []
    private var isClosed = false
    private var isCancelled = false
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// How many elements wait to be taken.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting.count
    }

    /// Queues `element`, waiting for room; false if the consumer cancelled, and the element was dropped.
    func put(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= capacity && !isCancelled { condition.wait() }
        guard !isCancelled else { return false }
        waiting.append(element)
        condition.broadcast()
        return true
    }

    /// The next element, waiting for one; nil once the producer closed and everything was taken.
    func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && !isClosed { condition.wait() }
        guard !waiting.isEmpty else { return nil }
        let element = waiting.removeFirst()
        condition.broadcast()
        return element
    }

    /// The producer is done.
    func close() {
        condition.lock()
        isClosed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The consumer gave up: wakes a waiting producer, whose `put` then returns false.
    func cancel() {
        condition.lock()
        isCancelled = true
        waiting.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}
