import Foundation
import GuideCore
import Testing

/// One placement for every grid: the terminal's columns, the server's rows and the script's all come from here.
@Suite struct GridLayoutTests {
    let day = TimeWindow(start: Date(timeIntervalSince1970: 1_700_000_000), end: Date(timeIntervalSince1970: 1_700_086_400))

    func at(_ minutes: Double) -> Date { day.start.addingTimeInterval(minutes * 60) }

    @Test func aProgrammeInsideTheDayIsPlacedByItsMinutes() {
        let span = GridLayout.span(start: at(90), end: at(150), in: day)
        #expect(span.startSecond == 5_400 && span.endSecond == 9_000)
        #expect(span.offsetMinutes == 90 && span.lengthMinutes == 60)
        #expect(!span.isClippedAtStart && !span.isClippedAtEnd)
    }

    @Test func aProgrammeCrossingTheDaysEdgesIsClippedToIt() {
        let before = GridLayout.span(start: at(-30), end: at(30), in: day)
        #expect(before.startSecond == -1_800 && before.isClippedAtStart)
        #expect(before.offsetMinutes == 0 && before.lengthMinutes == 30)
        let after = GridLayout.span(start: at(1_420), end: at(1_500), in: day)
        #expect(after.isClippedAtEnd && after.offsetMinutes == 1_420 && after.lengthMinutes == 20)
        let outside = GridLayout.span(start: at(2_000), end: at(2_100), in: day)
        #expect(outside.lengthMinutes == 0)
    }

    @Test func terminalColumnsFollowTheSameSpansAndNeverOverlap() {
        let columns = GridLayout.columns(for: [(at(-30), at(360)), (at(300), at(720)), (at(720), at(1_440))], in: day, width: 96)
        #expect(columns == [0..<24, 24..<48, 48..<96])
    }

    @Test func absurdTimesDoNotTrap() {
        let span = GridLayout.span(start: Date(timeIntervalSince1970: -1e308), end: Date(timeIntervalSince1970: 1e308), in: day)
        #expect(span.isClippedAtStart && span.isClippedAtEnd && span.offsetMinutes == 0 && span.lengthMinutes == 1_440)
        let nothing = GridLayout.span(start: Date(timeIntervalSince1970: .nan), end: Date(timeIntervalSince1970: .nan), in: day)
        #expect(nothing.lengthMinutes == 0)
        let columns = GridLayout.columns(for: [(Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: Double(Int64.max)))],
                                         in: day, width: 80)
        #expect(columns.count == 1)
    }
}
