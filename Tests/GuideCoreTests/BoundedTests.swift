import Foundation
import GuideWebFormats
import Testing
@testable import GuideCore

/// Numbers from outside: every reader of one goes through `Bounded`, so the values that trap Swift's arithmetic
/// (Int64.max, its neighbours, 1e308, nan) come back as "not in range" instead.
@Suite struct BoundedTests {
    static let hostile = ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999",
                          "-1", "1e308", "nan", "inf", "", "+", "-", " 1", "1 ", "0x10", "١٢"]

    @Test(arguments: hostile)
    func hostileTextIsOutOfASmallRange(text: String) {
        #expect(Bounded.integer(text, in: 0...1_000) == nil)
    }

    @Test func wholeNumbersInRangeAreRead() {
        #expect(Bounded.integer("42", in: 0...100) == 42)
        #expect(Bounded.integer("+7", in: 0...100) == 7)
        #expect(Bounded.integer("-2880", in: -2880...2880) == -2880)
        #expect(Bounded.integer("007", in: 0...10) == 7)
        #expect(Bounded.integer("9223372036854775807", in: 0...Int64.max) == Int64.max)
        #expect(Bounded.integer("-9223372036854775808", in: Int64.min...0) == Int64.min)
        #expect(Bounded.integer("9223372036854775808", in: 0...Int64.max) == nil)
        #expect(Bounded.integer("256", in: UInt8.min...UInt8.max) == nil)
    }

    @Test func decimalsAreFiniteAndInRange() {
        #expect(Bounded.decimal("1.5", in: 0...24) == 1.5)
        for text in ["1e308", "nan", "NaN", "inf", "-inf", "infinity", "25", String(repeating: "9", count: 400)] {
            #expect(Bounded.decimal(text, in: 0...24) == nil, "\(text)")
        }
    }

    @Test func arithmeticSaturates() {
        #expect(Bounded.sum(Int64.max, 1) == Int64.max)
        #expect(Bounded.sum(Int64.min, -1) == Int64.min)
        #expect(Bounded.product(Int.max, 60) == Int.max)
        #expect(Bounded.product(Int.min, 60) == Int.min)
        #expect(Bounded.product(-3, 4) == -12)
    }

    @Test func datesConvertToSecondsWithoutTrapping() {
        #expect(Date(timeIntervalSince1970: 1e300).unixSeconds == Date.guideRange.upperBound)
        #expect(Date(timeIntervalSince1970: -1e300).unixSeconds == Date.guideRange.lowerBound)
        #expect(Date(timeIntervalSince1970: .nan).unixSeconds == 0)
        #expect(Date(timeIntervalSince1970: 1.5).unixSeconds == 1)
        #expect(Date(timeIntervalSince1970: 1.5).unixSecondsRoundedUp == 2)
        #expect(Date(unixSeconds: .max).unixSeconds == Date.guideRange.upperBound)
    }

    /// The If-Modified-Since that stopped `serve`: its hour field is 17 digits.
    @Test(arguments: ["Thu, 01 Jan 2026 99999999999999999:00:00 GMT", "Thu, 01 Jan 99999999999999999 00:00:00 GMT",
                      "Thu, 99999999999999999 Jan 2026 00:00:00 GMT", "Thu, 32 Jan 2026 00:00:00 GMT",
                      "Thu, 01 Jan 2026 24:00:00 GMT", "Thu, 01 Jan 2026 00:00:00 PST", "Thu, 01 Foo 2026 00:00:00 GMT",
                      "Thu, 01 Jan 2026 -1:00:00 GMT", "", "garbage"])
    func hostileHTTPDatesAreNotDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func httpDatesRoundTrip() throws {
        let instant = Date(timeIntervalSince1970: 1_771_185_600)  // 2026-02-15T20:00:00Z
        #expect(HTTPDate.format(instant) == "Sun, 15 Feb 2026 20:00:00 GMT")
        #expect(HTTPDate.parse("Sun, 15 Feb 2026 20:00:00 GMT") == instant)
    }

    @Test func retryAfterIsPinnedToADay() {
        let now = Date(timeIntervalSince1970: 1_771_185_600)
        #expect(HTTPDate.retryAfter("120", now: now) == .seconds(120))
        #expect(HTTPDate.retryAfter("9223372036854775807", now: now) == .seconds(86_400))
        #expect(HTTPDate.retryAfter("99999999999999999999999", now: now) == .seconds(86_400))
        #expect(HTTPDate.retryAfter("Sun, 15 Feb 2026 20:01:00 GMT", now: now) == .seconds(60))
        #expect(HTTPDate.retryAfter("Sun, 15 Feb 9999 20:01:00 GMT", now: now) == .seconds(86_400))
        #expect(HTTPDate.retryAfter("Sun, 15 Feb 2020 20:01:00 GMT", now: now) == .seconds(0))
        #expect(HTTPDate.retryAfter("-5", now: now) == nil)
        #expect(HTTPDate.retryAfter("soon", now: now) == nil)
    }

    @Test(arguments: ["99999999999999999-01-01", "9999999999999999999999-01-01", "2026-13-01", "2026-02-30", "0000-01-01",
                      "+999-01-01", "2026-1-01", "2026-01-01x"])
    func hostileDaysAreNotDays(text: String) {
        #expect(CivilDate(text) == nil)
        #expect(BroadcastDay(text, zone: TimeZone(identifier: "UTC")!, startHour: 5) == nil)
        #expect(TimeWindow.day(text, in: TimeZone(identifier: "UTC")!) == nil)
    }

    @Test(arguments: ["9223372036854775807.0.", "0.9223372036854775807.", "1.2/9223372036854775807.", "100000000.0."])
    func episodeNumbersOutOfRangeAreUnreadable(value: String) {
        #expect(XMLTVNSNumber(parsing: value) == nil)
    }

    /// The CLI's --interval, in hours, as a Double argument parser gives it.
    @Test func refreshIntervalsFromHoursAreInRange() {
        for hours in [Double.nan, .infinity, -.infinity, 1e308, -1, 0, 0.05, 8785] {
            #expect(SourceDefinition.refreshInterval(hours: hours) == nil, "\(hours)")
        }
        #expect(SourceDefinition.refreshInterval(hours: 1.5) == 5400)
        #expect(SourceDefinition.refreshInterval(hours: 8784) == 366 * 86_400)
    }

    @Test func formNumbersSayWhatToSend() throws {
        let form = FormFields(encoded: "interval=1e308&shift=9223372036854775807&days=7&priority=nan")
        #expect(try form.integer("days", in: 1...30) == 7)
        #expect(try form.integer("missing", in: 1...30) == nil)
        #expect(throws: FieldError.self) { try form.decimal("interval", in: 0.1...24, called: "The interval") }
        do {
            _ = try form.integer("shift", in: -2880...2880, called: "The shift")
            Issue.record("an out-of-range shift was read")
        } catch {
            #expect(error.message == "The shift takes a whole number from -2,880 to 2,880, not \"9223372036854775807\"")
        }
        #expect(throws: FieldError.self) { try form.integer("priority", in: 0...10) }
    }
}
