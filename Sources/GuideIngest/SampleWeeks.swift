import Foundation

/// How far the bundled sample listings are moved when a first run imports them, so a newcomer's first screen shows a
/// living guide: by whole weeks (weekdays stay true) to the stretch that holds now, else the next one to come; a clock
/// inside the sample's own dates moves nothing.
public enum SampleWeeks {
    /// Seconds in a week; a week's shift never crosses a weekday.
    public static let week = 7 * 24 * 3600

    /// The whole weeks that move `span` (the sample's first start to its last stop) to the one that holds `now`, or,
    /// when none does (the sample covers part of a week), the first that has not ended by then.
    public static func toShift(_ span: Range<Date>, now: Date) -> Int {
        let after = now.timeIntervalSince(span.upperBound) / Double(week)
        // Bounded: a clock more than 10,000 weeks (190 years) off moves nothing.
        guard after.isFinite, abs(after) < 10_000 else { return 0 }
        return Int(after.rounded(.down)) + 1
    }
}
