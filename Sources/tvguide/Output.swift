import ArgumentParser
import Catalogs
import Foundation
import GuideCore

/// Writing to stdout and stderr, and the JSON and time formats every subcommand shares.
enum Output {
    /// The terminal's language, as POSIX reads it from the environment (LC_ALL, else LC_MESSAGES, else LANG:
    /// "de_DE.UTF-8"); English for "C", "POSIX", none, or a language without a catalog.
    /// Every command asks for it (its help is worded), so only that language's catalog is read, and none for English.
    static let words: Localizer = {
        let language = terminalSetting("LC_MESSAGES").flatMap { Language(tag: $0) } ?? .english
        guard language != .english, let translations = try? Translations([language]) else {
            return Localizer(language: .english, locale: terminalLocale ?? Locale(identifier: "en"), catalog: nil)
        }
        return translations.localizer(language, locale: terminalLocale)
    }()

    /// The terminal's formats (LC_ALL, else LC_TIME, else LANG); nil for "C", "POSIX" or none, which write times
    /// on a 24-hour clock and days as "Sat 21 Nov 2026" whatever the machine.
    static let terminalLocale: Locale? = terminalSetting("LC_TIME").map { Locale(identifier: String($0.prefix { $0 != "." && $0 != "@" })) }

    private static func terminalSetting(_ category: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        let value = [environment["LC_ALL"], environment[category], environment["LANG"]].compactMap { $0 }.first { !$0.isEmpty }
        guard let value, !["C", "POSIX"].contains(value.prefix { $0 != "." }) else { return nil }
        return value
    }

    /// The terminal's clock in `zone`; the machine's zone's is made once (a clock asks the locale for its hour cycle,
    /// and `now` and `grid` write two times per programme).
    static func viewerClock(_ zone: TimeZone = .current) -> ViewerClock {
        zone == localClock.zone ? localClock : ViewerClock(zone: zone, dayStartHour: 0, locale: terminalLocale)
    }

    private static let localClock = ViewerClock(zone: .current, dayStartHour: 0, locale: terminalLocale)

    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// `18:30` (`6:30 PM` where the terminal's locale writes 12 hours) in the viewer's zone.
    static func clock(_ date: Date, _ zone: TimeZone = .current) -> String {
        viewerClock(zone).time(date)
    }

    /// `Sat 21 Nov 2026` (`Sa., 21. Nov. 2026`) in the viewer's zone.
    static func day(_ date: Date, _ zone: TimeZone = .current) -> String {
        viewerClock(zone).civil(CivilDate(date, in: zone))
    }

    /// A programme in one line: `18:30-19:00  Title: Sub-title (S2 E5)`.
    static func summary(_ stored: StoredProgramme) -> String {
        let programme = stored.programme
        var text = "\(clock(programme.start))-\(clock(stored.end))  \(programme.title)"
        if let subTitle = programme.subTitle { text += ": \(subTitle)" }
        if let label = programme.numbering?.label, !label.isEmpty { text += " (\(label))" }
        return text
    }
}

extension ValidationError {
    /// An option's value outside what it takes, worded as a form's field is, in the terminal's language.
    static func option(_ name: String, _ problem: FieldError.Problem) -> ValidationError {
        ValidationError(FieldError(name: name, problem: problem).message(Output.words))
    }
}

extension ArgumentHelp {
    /// An option's or an argument's help in the terminal's language (`Output.words`). argument-parser's own words
    /// ("USAGE:", "OPTIONS:", "Show help information.") and its parse errors stay English.
    static func words(_ text: String, valueName: String? = nil) -> ArgumentHelp {
        ArgumentHelp(Output.words(text), valueName: valueName)
    }
}
