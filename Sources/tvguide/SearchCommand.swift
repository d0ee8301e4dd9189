import ArgumentParser
import Foundation
import GuideCore

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: Output.words("Find programmes whose title (or, with --in all, any text) contains every term."),
        discussion: Output.words("Matching ignores case and accents and finds terms inside words, so it also works for scripts written without spaces.")
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: .words("Words that must all appear.", valueName: "term"))
    var terms: [String]

    @Option(name: .customLong("in"), help: .words("Where to look: title, or all (title, sub-title and description)."))
    var scope: SearchQuery.Scope = .title

    @Option(help: .words("At most this many results."))
    var limit = 50

    @Flag(help: .words("Print JSON."))
    var json = false

    @OptionGroup var language: LanguageOption

    @Flag(help: .words("Also list programmes that have already ended (by default the search lists from now on)."))
    var past = false

    func validate() throws {
        if terms.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError(Output.words("Give at least one word to search for."))
        }
        if limit < 1 { throw ValidationError.option("--limit", .wholeNumber(1...Int.max, got: String(limit))) }
    }

    func run() async throws {
        if let problem = SearchQuery.problem(withText: terms.joined(separator: " ")) { throw ValidationError(problem.worded(Output.words)) }
        try await store.withDatabase { database in
            let (found, channels) = try await CLIFailure.translating {
                (try await database.search(SearchQuery(terms, scope: scope, limit: limit, endingAfter: past ? nil : GuideClock.system().now())),
                 try await database.channels())
            }
            let results = found.map(language.reading)
            if json {
                try Output.json(results.map(ProgrammeDocument.init))
                return
            }
            if results.isEmpty {
                let words = Output.words
                Output.line(past ? words("Nothing found for {terms}.", ["terms": terms.joined(separator: " ")])
                            : words("Nothing found for {terms} from now on; --past looks in what has aired too.", ["terms": terms.joined(separator: " ")]))
                return
            }
            let names = Dictionary(channels.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            var lastDay = ""
            for result in results {
                let day = Output.day(result.programme.start)
                if day != lastDay {
                    Output.line(day)
                    lastDay = day
                }
                Output.line("  \(Output.summary(result))  [\(names[result.programme.channel] ?? result.programme.channel.rawValue)]")
            }
        }
    }
}

extension SearchQuery.Scope: ExpressibleByArgument {}
