import Foundation
import GuideCore
import Testing

/// A sentence is kept as what it means, and worded for whoever reads it.
@Suite struct SentenceTests {
    static func german() throws -> Localizer {
        let po = #"""
            msgid "no file at {file}: check the path"
            msgstr "keine Datei unter {file}: den Pfad prüfen"

            msgid "{error} (gave up after {count} tries)"
            msgstr "{error} (nach {count} Versuchen aufgegeben)"

            msgid "{location} answered {status}"
            msgstr "{location} antwortete {status}"

            msgid "{count} text was cut"
            msgid_plural "{count} texts were cut"
            msgstr[0] "{count} Text wurde gekürzt"
            msgstr[1] "{count} Texte wurden gekürzt"
            """#
        let german = try #require(Language(tag: "de"))
        return Localizer(language: german, locale: Locale(identifier: "de"), catalog: try MessageCatalog(po: po, language: german))
    }

    @Test func isWordedForItsReaderAndKeptAsWhatItMeans() throws {
        let failed = Sentence(saying: "{location} answered {status}", ["location": "https://example.org/{x}", "status": "503"])
        let gaveUp = Sentence(saying: "{error} (gave up after {count} tries)", ["count": "4"], sentences: ["error": failed])
        #expect(gaveUp.description == "https://example.org/{x} answered 503 (gave up after 4 tries)")
        #expect(gaveUp.worded(try Self.german()) == "https://example.org/{x} antwortete 503 (nach 4 Versuchen aufgegeben)")
        // Kept as JSON in a text column and read back the same.
        #expect(gaveUp.stored.hasPrefix("{\"text\":"))
        #expect(Sentence(stored: gaveUp.stored) == gaveUp)
    }

    @Test func wordsFromElsewhereAndOldRecordsStayAsTheyCame() throws {
        // A text kept before sentences were, even one that reads like a catalog's key or holds braces.
        for old in ["no file at {file}: check the path", "tv_grab_zz failed (exit status 1)", "{", "{\"text\": 1}", ""] {
            #expect(Sentence(stored: old).worded(try Self.german()) == old)
        }
        struct Refused: Error, CustomStringConvertible { var description: String { "the server said no" } }
        #expect(Sentence(Refused()).worded(try Self.german()) == "the server said no")
    }

    @Test func aCountTakesTheFormOfTheReadersLanguageAndAListWordsEachItem() throws {
        let german = try Self.german()
        let one = Sentence(saying: "{count} text was cut", plural: "{count} texts were cut", count: 1)
        let many = Sentence(saying: "{count} text was cut", plural: "{count} texts were cut", count: 1234)
        #expect(one.worded(german) == "1 Text wurde gekürzt" && many.worded(german) == "1.234 Texte wurden gekürzt")
        #expect(many.description == "1,234 texts were cut")
        #expect(Sentence(stored: many.stored) == many)
        let failed = Sentence(saying: "{location} answered {status}", ["location": "a", "status": "503"])
        #expect(Sentence.list([failed, one, .verbatim("{0}")]).worded(german) == "a antwortete 503; 1 Text wurde gekürzt; {0}")
        #expect(Sentence.list([failed]) == failed)
    }
}
