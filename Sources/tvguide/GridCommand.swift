import ArgumentParser
import Foundation
import GuideCore

#if canImport(Glibc)
import Glibc
#endif

struct GridCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grid",
        abstract: Output.words("The guide as a grid in the terminal: channels down, time across, each programme as wide as it is long.")
    )

    @OptionGroup var store: StoreOptions

    @Option(help: .words("The day, YYYY-MM-DD in your time zone (default: today).", valueName: "day"))
    var day: String?

    @Option(help: .words("Start time, HH:MM (default: now, rounded down to the half hour; 18:00 on other days).", valueName: "time"))
    var from: String?

    @Option(help: .words("How many hours to show."))
    var hours: Double = 3

    @Option(help: .words("Channel ids to show, comma-separated, in that order (default: all).", valueName: "ids"))
    var channels: String?

    @Option(help: .words("Width in columns (default: the terminal's)."))
    var width: Int?

    @OptionGroup var language: LanguageOption

    @Flag(help: .words("Also show the channels with nothing listed in these hours, after the others."))
    var all = false

    func validate() throws {
        if !(0.5...24).contains(hours) { throw ValidationError.option("--hours", .number(lowest: 0.5, highest: 24, got: String(hours))) }
        if let width, width < 40 { throw ValidationError.option("--width", .wholeNumber(40...Int.max, got: String(width))) }
    }

    func run() async throws {
        let zone = TimeZone.current
        let now = GuideClock.system().now()
        let dayWindow = try DayOption.window(day, zone: zone, now: now)
        let start = try startTime(dayWindow: dayWindow, now: now)
        let window = TimeWindow(start: start, end: start.addingTimeInterval(hours * 3600))
        try await store.withDatabase { database in
            var lineup = try await database.channels()
            if let channels {
                let wanted = channels.split(separator: ",").map { ChannelID(String($0).trimmingCharacters(in: .whitespaces)) }
                let known = Dictionary(lineup.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                let missing = wanted.filter { known[$0] == nil }
                if !missing.isEmpty {
                    throw CLIFailure(Output.words("Unknown channel(s): {channels}. See the ids with: tvguide channels",
                                                  ["channels": missing.map(\.rawValue).joined(separator: ", ")]))
                }
                lineup = wanted.compactMap { known[$0] }
            }
            guard !lineup.isEmpty else {
                let words = Output.words
                throw CLIFailure(words("The guide has no channels yet. Import listings first: tvguide import FILE-OR-URL"))
            }
            var airings: [(channel: Channel, programmes: [StoredProgramme])] = []
            for channel in lineup {
                airings.append((channel, try await database.programmes(on: channel.id, in: window).map(language.reading)))
            }
            // Channels named with --channels are shown as asked, listed or not.
            let listed = ListedFirst(airings) { !$0.programmes.isEmpty }
            let shown = listed.rows(all: all || channels != nil)
            let totalWidth = width ?? Self.terminalWidth()
            let nameWidth = min(18, max(8, shown.map(\.channel.name.count).max() ?? 8))
            let timeWidth = totalWidth - nameWidth - 1
            Output.line("\(Output.day(window.start, zone))".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + " " + ruler(window, width: timeWidth, zone: zone))
            for (channel, programmes) in shown {
                let row = Self.row(programmes.map { ($0.programme.start, $0.end, $0.programme.title) }, window: window, width: timeWidth)
                Output.line(Self.fit(channel.name, nameWidth) + " " + row)
            }
            listed.noteLeftOut(all: all || channels != nil, window: .hours)
        }
    }

    private func startTime(dayWindow: TimeWindow, now: Date) throws -> Date {
        if let from {
            guard let minutes = CivilTime.minutes(ofDay: from) else {
                throw CLIFailure(Output.words("--from \"{value}\" is not a time; write it like 18:30.", ["value": from]))
            }
            return dayWindow.start.addingTimeInterval(TimeInterval(minutes * 60))
        }
        if day == nil || (dayWindow.start...dayWindow.end).contains(now) {
            let seconds = now.timeIntervalSince(dayWindow.start)
            return dayWindow.start.addingTimeInterval((seconds / 1800).rounded(.down) * 1800)
        }
        return dayWindow.start.addingTimeInterval(18 * 3600)
    }

    /// Times every half hour (every hour when narrow), placed where the grid puts those instants.
    private func ruler(_ window: TimeWindow, width: Int, zone: TimeZone) -> String {
        var line = [Character](repeating: " ", count: width)
        let step: TimeInterval = Double(width) / (window.duration / 1800) >= 7 ? 1800 : 3600
        var tick = window.start
        while tick < window.end {
            let column = Int((tick.timeIntervalSince(window.start) / window.duration * Double(width)).rounded())
            for (offset, character) in Output.clock(tick, zone).enumerated() where column + offset < width {
                line[column + offset] = character
            }
            tick = tick.addingTimeInterval(step)
        }
        return String(line)
    }

    /// One channel's row: each programme starts with `|` and shows as much of its title as fits.
    static func row(_ airings: [(start: Date, end: Date, title: String)], window: TimeWindow, width: Int) -> String {
        var line = [Character](repeating: " ", count: width)
        let columns = GridLayout.columns(for: airings.map { ($0.start, $0.end) }, in: window, width: width)
        for (airing, range) in zip(airings, columns) where !range.isEmpty {
            line[range.lowerBound] = "|"
            let text = fit(airing.title, range.count - 1)
            for (offset, character) in text.enumerated() {
                line[range.lowerBound + 1 + offset] = character
            }
        }
        return String(line)
    }

    /// `text` cut to `width` characters, with an ellipsis when cut.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        if text.count <= width { return text.padding(toLength: width, withPad: " ", startingAt: 0) }
        return width >= 3 ? String(text.prefix(width - 1)) + "…" : String(text.prefix(width))
    }

    static func terminalWidth() -> Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap({ Bounded.integer($0, in: 40...10_000) }) { return columns }
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 { return Int(size.ws_col) }
        return 100
    }
}
