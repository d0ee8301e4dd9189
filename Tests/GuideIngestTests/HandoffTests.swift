import Foundation
import Testing
@testable import GuideIngest

@Suite struct HandoffTests {
    /// An element whose release the test can observe.
    final class Token: Sendable {
        let number: Int
        init(_ number: Int) { self.number = number }
    }

    final class WeakToken: @unchecked Sendable {
        weak var token: Token?
    }

    @Test func deliversEverythingInOrderAndEndsWhenClosed() throws {
        let handoff = Handoff<Int>(capacity: 2)
        let producer = Thread {
            for number in 0..<1_000 { _ = handoff.put(number) }
            handoff.close()
        }
        producer.start()
        var received: [Int] = []
        while let number = handoff.take() { received.append(number) }
        #expect(received == Array(0..<1_000))
    }

    /// The queue must let go of what the consumer took while the producer keeps it full: an import holds a
    /// bounded number of batches, never the whole file.
    @Test func holdsNoElementAfterItIsTaken() throws {
        let handoff = Handoff<Token>(capacity: 2)
        let producer = Thread {
            for number in 0..<50 { _ = handoff.put(Token(number)) }
            handoff.close()
        }
        producer.start()
        let firstTaken = WeakToken()
        do {
            let first = try #require(handoff.take())
            firstTaken.token = first
            #expect(first.number == 0)
        }
        // Wait until the producer has filled the queue again, so it is never empty in between.
        let deadline = Date().addingTimeInterval(10)
        while handoff.count < 2 && Date() < deadline { usleep(1_000) }
        #expect(handoff.count == 2)
        #expect(firstTaken.token == nil)
        var count = 1
        while handoff.take() != nil { count += 1 }
        #expect(count == 50)
    }

    @Test func cancellingReleasesAWaitingProducer() throws {
        let handoff = Handoff<Int>(capacity: 1)
        let finished = DispatchSemaphore(value: 0)
        let refused = WeakBox()
        let producer = Thread {
            var accepted = 0
            while handoff.put(accepted) { accepted += 1 }
            refused.value = accepted
            finished.signal()
        }
        producer.start()
        #expect(handoff.take() == 0)
        handoff.cancel()
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(refused.value ?? 0 >= 1)
    }

    final class WeakBox: @unchecked Sendable {
        var value: Int?
    }
}
