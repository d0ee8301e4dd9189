import Foundation
import GuideCore
import Testing

@Suite struct CivilTimeTests {
    /// The instant written in one piece (years 1000-9999) reads as Foundation's own ISO 8601 form from 1583 on (its
    /// formatter counts earlier days by the Julian calendar; ISO 8601's are Gregorian) and reads back as itself, at
    /// times of days spread over the range and at its edges; years outside it take the field-by-field path.
    @Test func instantsAreWrittenAsISO8601() throws {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let firstDay = CivilTime.days(year: 1000, month: 1, day: 1)
        let lastDay = CivilTime.days(year: 9999, month: 12, day: 31)
        let gregorian = CivilTime.days(year: 1583, month: 1, day: 1)
        let days = Array(stride(from: firstDay, through: lastDay, by: 997)) + [firstDay, lastDay, 0, -1, 20_788]
        for day in days {
            for second in [0, 1, 59, 3_599, 3_600, 45_296, 86_399] as [Int] {
                let instant = Date(timeIntervalSince1970: TimeInterval(day * 86_400 + second))
                let text = CivilTime.iso8601(instant)
                #expect(CivilTime.parseISO8601(text) == instant)
                if day >= gregorian { #expect(text == formatter.string(from: instant)) }
            }
        }
        #expect(CivilTime.iso8601(Date(timeIntervalSince1970: TimeInterval(firstDay * 86_400 - 1)))
                == "0999-12-31T23:59:59Z")
        #expect(CivilTime.iso8601(Date(timeIntervalSince1970: 1e308)) == "9999-12-31T23:59:59Z")   // the guide's range
        #expect(CivilTime.iso8601(Date(timeIntervalSince1970: -1e308)) == "0001-01-01T00:00:00Z")
        #expect(CivilTime.iso8601(Date(timeIntervalSince1970: .nan)) == "1970-01-01T00:00:00Z")
    }
}
