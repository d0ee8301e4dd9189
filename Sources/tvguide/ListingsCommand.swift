import ArgumentParser
import Foundation
import GuideCore

struct ListingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "listings", abstract: Output.words("A channel's programmes for one day."))

    @OptionGroup var store: StoreOptions

    @Argument(help: .words("The channel id (see tvguide channels).", valueName: "channel"))
    var channel: String

    @Option(help: .words("The day, YYYY-MM-DD in your time zone (default: today).", valueName: "day"))
    var day: String?

    @Flag(help: .words("Print JSON."))
    var json = false

    @OptionGroup var language: LanguageOption

    func run() async throws {
        let window = try DayOption.window(day, now: GuideClock.system().now())
        try await store.withDatabase { database in
            let channels = try await database.channels()
            guard let match = channels.first(where: { $0.id.rawValue == channel })
                    ?? channels.first(where: { $0.name.caseInsensitiveCompare(channel) == .orderedSame }) else {
                throw CLIFailure(Output.words("There is no channel \"{channel}\". See the ids with: tvguide channels", ["channel": channel]))
            }
            let programmes = try await database.programmes(on: match.id, in: window).map(language.reading)
            if json {
                try Output.json(programmes.map(ProgrammeDocument.init))
                return
            }
            Output.line("\(match.name), \(Output.day(window.start))")
            if programmes.isEmpty { Output.line("  " + Output.words("no listings for this day")) }
            for programme in programmes { Output.line("  " + Output.summary(programme)) }
        }
    }
}

/// `--day YYYY-MM-DD` in the viewer's zone, today by default.
enum DayOption {
    static func window(_ day: String?, zone: TimeZone = .current, now: Date) throws -> TimeWindow {
        let text = day ?? {
            let c = CivilTime.components(now.unixSeconds + Int64(zone.secondsFromGMT(for: now)))
            return String(format: "%04d-%02d-%02d", c.year, c.month, c.day)
        }()
        guard let window = TimeWindow.day(text, in: zone) else {
            throw CLIFailure(Output.words("--day \"{day}\" is not a date; write it like 2026-11-21.", ["day": text]))
        }
        return window
    }
}
