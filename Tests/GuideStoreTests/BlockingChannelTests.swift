import Foundation
import GuideThreads
import Testing
import GuideCore

@Suite struct BlockingChannelTests {
    /// An element whose release the test can observe.
    final class Token: Sendable {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    final class WeakToken: @unchecked Sendable {
        weak var token: Token?
    }

    /// A channel of two that a thread of its own fills with 0..<1,000 and closes.
    static func producing() -> (BlockingChannel<Int>, Task<Void, any Error>) {
        let channel = BlockingChannel<Int>(capacity: 2)
        let producer = Task {
            try await BlockingWork.run("test.producer") {
                for number in 0..<1_000 { _ = channel.put(number) }
                channel.close()
            }
        }
        return (channel, producer)
    }

    @Test func deliversEverythingInOrderAndEndsWhenClosed() async throws {
        let (channel, producer) = Self.producing()
        let received = try await BlockingWork.run("test.consumer") {
            var received: [Int] = []
            while let number = channel.take() { received.append(number) }
            return received
        }
        try await producer.value
        #expect(received == Array(0..<1_000))
    }

    /// An async consumer suspends for each element instead of holding a thread, and sees the end.
    @Test func anAsyncConsumerGetsEverythingInOrder() async throws {
        let (channel, producer) = Self.producing()
        var received: [Int] = []
        while let number = await channel.next() { received.append(number) }
        try await producer.value
        #expect(received == Array(0..<1_000))
    }

    /// The queue must let go of what the consumer took while the producer keeps it full: an import holds a
    /// bounded number of batches, never the whole file.
    @Test func holdsNoElementAfterItIsTaken() throws {
        let channel = BlockingChannel<Token>(capacity: 2)
        let producer = Thread {
            for number in 0..<50 { _ = channel.put(Token(number)) }
            channel.close()
        }
        producer.start()
        let firstTaken = WeakToken()
        do {
            let first = try #require(channel.take())
            firstTaken.token = first
            #expect(first.number == 0)
        }
        // Wait until the producer has filled the queue again, so it is never empty in between.
        let deadline = Date().addingTimeInterval(10)
        while channel.count < 2 && Date() < deadline { usleep(1_000) }
        #expect(channel.count == 2)
        #expect(firstTaken.token == nil)
        var count = 1
        while channel.take() != nil { count += 1 }
        #expect(count == 50)
    }

    @Test func cancellingReleasesAWaitingProducer() throws {
        let channel = BlockingChannel<Int>(capacity: 1)
        let finished = DispatchSemaphore(value: 0)
        let refused = WeakBox()
        let producer = Thread {
            var accepted = 0
            while channel.put(accepted) { accepted += 1 }
            refused.value = accepted
            finished.signal()
        }
        producer.start()
        #expect(channel.take() == 0)
        channel.cancel()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(refused.value ?? 0 >= 1)
    }

    final class WeakBox: @unchecked Sendable {
        var value: Int?
    }

    /// Async code sends to a thread (a download to its survey): everything arrives in order, the sender suspended
    /// whenever two wait, and the end is seen.
    @Test func anAsyncProducerSendsEverythingInOrderToAThread() async throws {
        let channel = BlockingChannel<Int>(capacity: 2)
        let consumer = Task {
            try await BlockingWork.run("test.consumer") {
                var received: [Int] = []
                while let number = channel.take() {
                    received.append(number)
                    #expect(channel.count <= 2)
                }
                return received
            }
        }
        for number in 0..<1_000 { #expect(await channel.send(number)) }
        channel.close()
        #expect(try await consumer.value == Array(0..<1_000))
    }

    /// A consumer that gives up (a survey that found the feed is not listings) wakes the async producer suspended on
    /// a full queue, whose send says it was refused.
    @Test(.timeLimit(.minutes(1))) func cancellingReleasesASuspendedAsyncProducer() async throws {
        let channel = BlockingChannel<Int>(capacity: 1)
        let producer = Task {
            var accepted = 0
            while await channel.send(accepted) { accepted += 1 }
            return accepted
        }
        let first = try await BlockingWork.run("test.consumer") { channel.take() }
        #expect(first == 0)
        // The producer fills the queue again and suspends on the next; cancelling must wake it.
        while channel.count < 1 { await Task.yield() }
        channel.cancel()
        #expect(await producer.value >= 1)
    }

    /// What the consumer gives back stays alive until the producer's next put releases it, so an import's batches are
    /// freed on the thread that allocated them; past the channel's capacity, or once the producer has closed and
    /// nothing waits, it is released at once.
    @Test func whatIsGivenBackIsReleasedByTheNextPut() throws {
        let channel = BlockingChannel<Token>(capacity: 2)
        let first = WeakToken(), second = WeakToken(), third = WeakToken(), late = WeakToken()
        do {
            let tokens = (Token(1), Token(2))
            (first.token, second.token) = tokens
            _ = channel.put(tokens.0)
            _ = channel.put(tokens.1)
        }
        channel.giveBack(try #require(channel.take()))
        channel.giveBack(try #require(channel.take()))
        #expect(first.token != nil && second.token != nil)
        // A third given back while two wait is released at once.
        do {
            let extra = Token(4)
            third.token = extra
            channel.giveBack(extra)
        }
        #expect(third.token == nil)
        // The next put releases the two.
        _ = channel.put(Token(5))
        #expect(first.token == nil && second.token == nil)
        // Once the producer has closed and the last is taken, nothing is held.
        channel.close()
        do {
            let last = try #require(channel.take())
            late.token = last
            channel.giveBack(last)
        }
        #expect(late.token == nil)
    }
}
