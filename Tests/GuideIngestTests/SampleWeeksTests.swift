import Foundation
@testable import GuideIngest
import Testing

/// How far the bundled sample is moved at a first run (issue 45, point 8): whole weeks, to the stretch holding now or
/// the next to come; nothing inside its own dates.
@Suite struct SampleWeeksTests {
    /// The sample's span as GuideServer states it (SampleListingsTests checks it against the file).
    static let span = Date(timeIntervalSince1970: 1_771_054_200)..<Date(timeIntervalSince1970: 1_771_381_800)

    @Test func wholeWeeksToTheOneHoldingNow() {
        let week = TimeInterval(SampleWeeks.week)
        #expect(SampleWeeks.toShift(Self.span, now: Self.span.lowerBound) == 0)
        #expect(SampleWeeks.toShift(Self.span, now: Self.span.upperBound - 1) == 0)
        // Monday 30 November 2026 20:30 UTC: the sample's Monday 16 February, 41 weeks on, inside the moved span.
        let monday = Date(timeIntervalSince1970: 1_796_070_600)
        let weeks = SampleWeeks.toShift(Self.span, now: monday)
        #expect(weeks == 41 && Self.span.lowerBound + Double(weeks) * week <= monday && monday < Self.span.upperBound + Double(weeks) * week)
        // A Thursday, which the sample (Saturday to Wednesday) does not cover: the coming Saturday's.
        let thursday = monday + 3 * 86_400
        let next = SampleWeeks.toShift(Self.span, now: thursday)
        #expect(next == 42 && Self.span.lowerBound + Double(next) * week > thursday)
        // Before the sample: moved back; a clock far off moves nothing rather than overflow.
        #expect(SampleWeeks.toShift(Self.span, now: Self.span.lowerBound - 10 * week) == -10)
        #expect(SampleWeeks.toShift(Self.span, now: .distantFuture) == 0 && SampleWeeks.toShift(Self.span, now: .distantPast) == 0)
    }
}
