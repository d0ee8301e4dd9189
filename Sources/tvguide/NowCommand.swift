import ArgumentParser
import Foundation
import GuideCore

struct NowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "now", abstract: Output.words("What is on every channel now, and what is next."))

    @OptionGroup var store: StoreOptions

    @Option(help: .words("The instant to ask about, ISO 8601 (2026-11-21T20:00:00Z).", valueName: "instant"))
    var at: String?

    @Flag(help: .words("Print JSON: one object per channel with channel, now and next."))
    var json = false

    @Flag(help: .words("Also list the channels with nothing on now or next, after the others."))
    var all = false

    @OptionGroup var language: LanguageOption

    func run() async throws {
        let instant = try Self.instant(at)
        try await store.withDatabase { database in
            let (found, channels) = try await CLIFailure.translating { (try await database.nowNext(at: instant, channels: nil), try await database.channels()) }
            let every = found.map { NowNext(channel: $0.channel, now: $0.now.map(language.reading), next: $0.next.map(language.reading)) }
            let listed = ListedFirst(every) { $0.now != nil || $0.next != nil }
            let rows = listed.rows(all: all)
            let names = Dictionary(channels.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            if json {
                try Output.json(rows.map {
                    NowNextDocument(channel: $0.channel.rawValue, name: names[$0.channel] ?? $0.channel.rawValue,
                                    now: $0.now.map(ProgrammeDocument.init), next: $0.next.map(ProgrammeDocument.init))
                })
                return
            }
            guard !every.isEmpty else {
                let words = Output.words
                Output.error(words("The guide has no channels yet. Import listings first: tvguide import FILE-OR-URL"))
                return
            }
            let words = Output.words
            // "now" and "next" in the terminal's language, padded to one column.
            let labels = [words("now"), words("next")]
            let width = (labels.map(\.count).max() ?? 4) + 2
            for row in rows {
                Output.line(names[row.channel] ?? row.channel.rawValue)
                Output.line("  " + labels[0].padding(toLength: width, withPad: " ", startingAt: 0) + (row.now.map(Output.summary) ?? "-"))
                Output.line("  " + labels[1].padding(toLength: width, withPad: " ", startingAt: 0) + (row.next.map(Output.summary) ?? "-"))
            }
            listed.noteLeftOut(all: all, window: .nowOrNext)
        }
    }

    static func instant(_ text: String?) throws -> Date {
        guard let text else { return GuideClock.system().now() }
        guard let date = CivilTime.parseISO8601(text) else {
            throw CLIFailure(Output.words("--at \"{value}\" is not an ISO 8601 instant; write it like 2026-11-21T20:00:00Z.", ["value": text]))
        }
        return date
    }
}
