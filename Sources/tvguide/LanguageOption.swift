import ArgumentParser
import GuideCore

/// `--lang de,en`: the languages to read listings in, in order, where a programme has titles and descriptions in
/// several (XMLTV's `lang`); as a profile's listings languages and a feed's `?lang=` choose them.
struct LanguageOption: ParsableArguments {
    @Option(name: .customLong("lang"),
            help: .words("Titles and descriptions in these languages first, in order, where the listings give several (de,en).",
                         valueName: "languages"))
    var text: String?

    var languages: [String] { text.flatMap(LocalizedText.languages(in:)) ?? [] }

    func validate() throws {
        if let text, LocalizedText.languages(in: text) == nil {
            throw ValidationError(Output.words("--lang \"{value}\" is not a list of language codes; write them in order, like de,en.",
                                               ["value": text]))
        }
    }

    /// `stored` as it reads in ``languages``.
    func reading(_ stored: StoredProgramme) -> StoredProgramme {
        var stored = stored
        stored.programme = stored.programme.reading(languages)
        return stored
    }
}
