import Foundation
import Synchronization

/// How one viewer sees time: their zone, the hour their broadcast day starts, and their locale's way of writing dates
/// and times (the locale's 12 or 24 hours; nil writes the fixed English forms the CLI, feeds and logs use).
public struct ViewerClock: Sendable {
    public var zone: TimeZone
    public var dayStartHour: Int
    public var locale: Locale?
    /// Whether times are written on a 12-hour clock: the locale's habit unless the viewer chose.
    public let uses12Hours: Bool

    public init(zone: TimeZone, dayStartHour: Int, locale: Locale? = nil, hours: HourCycle = .locale) {
        (self.zone, self.dayStartHour, self.locale) = (zone, dayStartHour, locale)
        uses12Hours = Self.uses12Hours(locale: locale, hours: hours)
    }

    /// Whether a viewer with `locale` who chose `hours` reads a 12-hour clock.
    public static func uses12Hours(locale: Locale?, hours: HourCycle) -> Bool {
        switch hours {
        case .locale: locale.map(localeUses12Hours) ?? false
        case .twelve: true
        case .twentyFour: false
        }
    }

    /// A viewer's clock: as their locale writes it, or always 12 or 24 hours.
    public enum HourCycle: String, Sendable, CaseIterable, Codable {
        case locale, twelve = "12", twentyFour = "24"
    }

    /// "20:30" (or "8:30 PM", "du. 8:30" as the locale writes a 12-hour time) in the viewer's zone.
    public func time(_ instant: Date) -> String {
        if uses12Hours, let locale {
            return Self.formatted(instant, template: "hmma", locale: locale, zone: zone)
        }
        let parts = local(instant)
        return "\(Self.pad(parts.hour)):\(Self.pad(parts.minute))"
    }

    /// "Sat 15 Feb" ("Sa., 15. Feb.", "sam. 15 févr.") in the viewer's zone.
    public func date(_ instant: Date) -> String {
        if let locale { return Self.formatted(instant, template: "EEEdMMM", locale: locale, zone: zone) }
        let parts = local(instant)
        let weekday = Self.weekdays[(CivilTime.days(year: parts.year, month: parts.month, day: parts.day) % 7 + 11) % 7]
        return "\(weekday) \(parts.day) \(Self.months[parts.month - 1])"
    }

    /// "Saturday 15 February 2026" ("Samstag, 15. Februar 2026") for a broadcast day.
    public func longDate(_ day: BroadcastDay) -> String {
        if let locale {
            return Self.formatted(Self.noon(CivilDate(year: day.year, month: day.month, day: day.day)), template: "EEEEdMMMMy",
                                  locale: locale, zone: Self.utc)
        }
        let weekday = Self.longWeekdays[(CivilTime.days(year: day.year, month: day.month, day: day.day) % 7 + 11) % 7]
        return "\(weekday) \(day.day) \(Self.longMonths[day.month - 1]) \(day.year)"
    }

    /// "Tue 25 Jun 2013" ("Di., 25. Juni 2013") for a calendar date, whatever the zone.
    public func civil(_ day: CivilDate) -> String {
        if let locale { return Self.formatted(Self.noon(day), template: "EEEdMMMy", locale: locale, zone: Self.utc) }
        return "\(Self.weekdays[day.weekday]) \(day.day) \(Self.months[day.month - 1]) \(day.year)"
    }

    /// "June 2013" ("Juni 2013", "2013. június") for a month's heading.
    public func month(_ day: CivilDate) -> String {
        if let locale { return Self.formatted(Self.noon(day), template: "MMMMy", locale: locale, zone: Self.utc) }
        return "\(Self.longMonths[day.month - 1]) \(day.year)"
    }

    /// The day a week starts on in the viewer's locale, as `CivilDate.weekday` counts (0 Sunday, 1 Monday): Monday
    /// in most of Europe, Sunday in Israel and the United States; Monday without a locale.
    public var firstWeekday: Int {
        guard let locale else { return 1 }
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = locale
        return (calendar.firstWeekday + 6) % 7
    }

    /// The seven weekdays' short names from `firstWeekday` on ("Mon" ... "Sun", "So." ... in German from Monday).
    public var weekHeads: [String] {
        var symbols = Self.weekdays
        if let locale {
            var calendar = Calendar(identifier: .gregorian)
            calendar.locale = locale
            symbols = calendar.shortStandaloneWeekdaySymbols
        }
        return (0..<7).map { symbols[(firstWeekday + $0) % 7] }
    }

    public func day(containing instant: Date) -> BroadcastDay {
        BroadcastDay(containing: instant, zone: zone, startHour: dayStartHour)
    }

    public func day(_ text: String) -> BroadcastDay? {
        BroadcastDay(text, zone: zone, startHour: dayStartHour)
    }

    private func local(_ instant: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        CivilTime.components(instant.unixSeconds + Int64(zone.secondsFromGMT(for: instant)))
    }

    /// Whether `locale` writes times on a 12-hour clock (CLDR's preferred hour symbol for its region).
    static func localeUses12Hours(_ locale: Locale) -> Bool {
        (DateFormatter.dateFormat(fromTemplate: "j", options: 0, locale: locale) ?? "H").contains("a")
    }

    /// `instant` written from a CLDR skeleton in `locale`: formatters are slow to make, so each (skeleton, locale,
    /// zone) is made once and kept; a formatter is not safe to share between threads, so each is used under the lock.
    static func formatted(_ instant: Date, template: String, locale: Locale, zone: TimeZone) -> String {
        let key = template + "|" + locale.identifier + "|" + zone.identifier
        return formatters.withLock { formatters in
            if let formatter = formatters[key] { return formatter.string(from: instant) }
            let formatter = DateFormatter()
            formatter.locale = locale
            formatter.timeZone = zone
            formatter.setLocalizedDateFormatFromTemplate(template)
            // A few hundred locales and zones at most are ever asked for; past that, start again.
            if formatters.count > 512 { formatters.removeAll() }
            formatters[key] = formatter
            return formatter.string(from: instant)
        }
    }

    private static let formatters = Mutex<[String: DateFormatter]>([:])

    /// Noon UTC of `day`, written in UTC: the civil date whatever the zone.
    private static func noon(_ day: CivilDate) -> Date {
        Date(unixSeconds: Int64(CivilTime.days(year: day.year, month: day.month, day: day.day)) * 86_400 + 43_200)
    }

    private static let utc = TimeZone(secondsFromGMT: 0) ?? .current

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
    // Day 0 (1970-01-01) was a Thursday: index (days + 4) % 7 from Sunday, written above as (days % 7 + 11) % 7.
    public static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    public static let longWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    public static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    public static let longMonths = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                     "October", "November", "December"]
}
