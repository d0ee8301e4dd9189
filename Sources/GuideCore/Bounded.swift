import Foundation

/// Numbers from outside (request headers, query strings, forms, listings files, other servers' answers) parsed into a
/// stated range. Swift traps on overflow in every build, so a number someone else wrote must never reach `+`, `*` or
/// a conversion unbounded: every reader of such a number goes through these, and arithmetic after them stays inside
/// the range's bounds.
public enum Bounded {
    /// The whole number `text` writes in ASCII digits (an optional `+` or `-`, no spaces), when it lies in `range`;
    /// nil for anything else: not a number, more digits than the type holds, or outside the range.
    public static func integer<T: FixedWidthInteger & Sendable>(_ text: some StringProtocol, in range: ClosedRange<T>) -> T? {
        var utf8 = text.utf8[...]
        var isNegative = false
        if let sign = utf8.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            isNegative = sign == UInt8(ascii: "-")
            utf8 = utf8.dropFirst()
        }
        guard !utf8.isEmpty else { return nil }
        var value: T = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = T(byte - UInt8(ascii: "0"))
            let (shifted, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowPlus) = isNegative ? shifted.subtractingReportingOverflow(digit)
                                                  : shifted.addingReportingOverflow(digit)
            guard !overflowTimes, !overflowPlus else { return nil }
            value = next
        }
        return range.contains(value) ? value : nil
    }

    /// The decimal number `text` writes (`1.5`, `24`), when it is finite and in `range`; nil for `nan`, `inf`, `1e999`
    /// and anything outside.
    public static func decimal(_ text: some StringProtocol, in range: ClosedRange<Double>) -> Double? {
        guard text.utf8.count <= 64, let value = Double(String(text)), value.isFinite, range.contains(value) else { return nil }
        return value
    }

    /// `value` clamped into `range`: for a number from outside that is better pinned than refused (a wait a server
    /// asks for, a size it announces).
    public static func clamped<T: Comparable>(_ value: T, to range: ClosedRange<T>) -> T {
        min(range.upperBound, max(range.lowerBound, value))
    }

    /// `a + b`, pinned at the type's ends instead of trapping.
    public static func sum<T: FixedWidthInteger>(_ a: T, _ b: T) -> T {
        let (value, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return value }
        return b > 0 ? T.max : T.min
    }

    /// `a * b`, pinned at the type's ends instead of trapping.
    public static func product<T: FixedWidthInteger>(_ a: T, _ b: T) -> T {
        let (value, overflow) = a.multipliedReportingOverflow(by: b)
        guard overflow else { return value }
        return (a < 0) == (b < 0) ? T.max : T.min
    }

    /// A range's words for messages: "from 1 to 720".
    public static func describe<T>(_ range: ClosedRange<T>) -> String {
        "from \(range.lowerBound) to \(range.upperBound)"
    }

    /// "from 1 to 10", or "of 1 or more" when the range runs to the type's largest value.
    public static func describe<T: FixedWidthInteger>(_ range: ClosedRange<T>) -> String {
        range.upperBound == .max ? "of \(range.lowerBound) or more" : "from \(range.lowerBound) to \(range.upperBound)"
    }
}

extension Date {
    /// The instants a guide can hold: 0001-01-01 to 9999-12-31, the years XMLTV, ISO 8601 and HTTP dates can write.
    public static let guideRange: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// Whole seconds since 1970, rounded down and pinned to ``guideRange`` (NaN reads as 1970): converting a
    /// `Date` with `Int64(...)` traps when it is out of range, and a date may have come from outside.
    public var unixSeconds: Int64 {
        let seconds = timeIntervalSince1970.rounded(.down)
        guard !seconds.isNaN else { return 0 }
        if seconds <= Double(Self.guideRange.lowerBound) { return Self.guideRange.lowerBound }
        if seconds >= Double(Self.guideRange.upperBound) { return Self.guideRange.upperBound }
        return Int64(seconds)
    }

    /// Like ``unixSeconds`` but rounded up: the end of a window, a lock's expiry.
    public var unixSecondsRoundedUp: Int64 {
        Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.up)).unixSeconds
    }

    /// The instant `seconds` after 1970, pinned to ``guideRange``.
    public init(unixSeconds seconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(Bounded.clamped(seconds, to: Self.guideRange)))
    }
}
