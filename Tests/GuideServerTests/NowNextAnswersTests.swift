import Foundation
@testable import GuideServer
import Testing

/// What `/api/now` keeps: an answer only for its question, listings and instants, and never more than the bounds.
@Suite struct NowNextAnswersTests {
    let noon = Date(timeIntervalSince1970: 1_704_110_400)

    @Test func anAnswerHoldsForItsQuestionListingsAndInstants() {
        let answers = NowNextAnswers()
        answers.keep([1], for: "all", generation: 7, from: noon, until: noon + 60)
        #expect(answers.answer(to: "all", generation: 7, at: noon)?.body == [1])
        #expect(answers.answer(to: "all", generation: 7, at: noon + 59)?.body == [1])
        #expect(answers.answer(to: "all", generation: 7, at: noon + 60) == nil)
        #expect(answers.answer(to: "all", generation: 7, at: noon - 1) == nil)
        #expect(answers.answer(to: "all", generation: 8, at: noon) == nil)
        #expect(answers.answer(to: "one.uk", generation: 7, at: noon) == nil)
        // A new answer to the question, or any answer about newer listings, replaces what was kept.
        answers.keep([2], for: "all", generation: 7, from: noon + 60, until: noon + 120)
        #expect(answers.answer(to: "all", generation: 7, at: noon) == nil && answers.size.answers == 1)
        answers.keep([3], for: "one.uk", generation: 8, from: noon, until: noon + 60)
        #expect(answers.answer(to: "all", generation: 7, at: noon + 60) == nil && answers.size.answers == 1)
        // Nothing that holds for no instant.
        answers.keep([4], for: "two.uk", generation: 8, from: noon, until: noon)
        #expect(answers.size.answers == 1)
    }

    @Test func theGzipFormIsMadeOnceAndCounted() throws {
        let answers = NowNextAnswers()
        answers.keep(Array(repeating: 7, count: 1000), for: "all", generation: 1, from: noon, until: noon + 60)
        var made = 0
        for _ in 0..<3 {
            let kept = try #require(answers.answer(to: "all", generation: 1, at: noon + 1))
            #expect(answers.gzipped(kept) { made += 1; return Array($0.prefix(10)) } == Array(repeating: 7, count: 10))
        }
        #expect(made == 1 && answers.size.bytes == 1010)
        // One that would pass the bound is given, not kept.
        let big = [UInt8](repeating: 1, count: NowNextAnswers.mostBytes - 1000)
        answers.keep(big, for: "big", generation: 1, from: noon, until: noon + 60)
        let kept = try #require(answers.answer(to: "big", generation: 1, at: noon))
        #expect(answers.gzipped(kept) { Array($0.prefix(2000)) }?.count == 2000 && answers.size.bytes <= NowNextAnswers.mostBytes)
    }

    @Test func theOldestGoFirstPastTheBounds() {
        let answers = NowNextAnswers()
        let big = [UInt8](repeating: 0, count: NowNextAnswers.mostBytes / 3)
        for index in 0..<4 { answers.keep(big, for: "page \(index)", generation: 1, from: noon, until: noon + 60) }
        #expect(answers.size.answers == 3 && answers.size.bytes <= NowNextAnswers.mostBytes)
        #expect(answers.answer(to: "page 0", generation: 1, at: noon) == nil && answers.answer(to: "page 3", generation: 1, at: noon) != nil)
        answers.keep([UInt8](repeating: 0, count: NowNextAnswers.mostBytes + 1), for: "huge", generation: 1, from: noon, until: noon + 60)
        #expect(answers.answer(to: "huge", generation: 1, at: noon) == nil)
        for index in 0..<(NowNextAnswers.mostAnswers + 5) { answers.keep([1], for: "small \(index)", generation: 1, from: noon, until: noon + 60) }
        #expect(answers.size.answers == NowNextAnswers.mostAnswers)
    }
}
