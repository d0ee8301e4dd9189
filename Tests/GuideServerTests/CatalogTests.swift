import Catalogs
import Foundation
@testable import GuideServer
import GuideCore
import Testing

/// The translation catalogs against the code: every text the templates and the Swift sources ask for is in every
/// catalog, translated, with the same placeholders and markup, and a plural form for each of its language's categories;
/// no template leaves English outside its blocks.
@Suite struct CatalogTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")
    static let templates = sources.appendingPathComponent("GuideServer/Resources/templates")

    /// Every text the code asks for: the templates' blocks and the Swift sources' `words("...")`,
    /// `words.plural("...", "...", count:)`, a form field's `called: "..."`, and `saying: "..."` (`saying: "...",
    /// plural: "..."` for a count), which a ``FieldError`` or a ``Sentence`` words when it is shown.
    static func used() throws -> [(key: String, plural: String?)] {
        var found: [(String, String?)] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: templates.path).sorted() where file.hasSuffix(".mustache") {
            found += TemplateText.keys(try String(contentsOf: templates.appendingPathComponent(file), encoding: .utf8)).map { ($0, nil) }
        }
        let literal = #""((?:[^"\\]|\\.)*)""#
        let plural = try Regex(#"(?:words\.plural\(|saying: )\s*"# + literal + #"\s*,\s*(?:plural: )?"# + literal)
        let single = try Regex(#"(?:words\(|called: |saying: )\s*"# + literal + #"(?!\s*,\s*plural: )"#)
        let unescape = { (text: Substring) in text.replacingOccurrences(of: #"\""#, with: "\"").replacingOccurrences(of: #"\\"#, with: "\\") }
        for case let file as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil) ?? FileManager.DirectoryEnumerator()
        where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: plural) {
                found.append((unescape(match.output[1].substring ?? ""), unescape(match.output[2].substring ?? "")))
            }
            // Only these are read: a text asked for any other way is never translated.
            #expect(!text.contains(".words(context)(") && !text.contains(".words(context).plural("),
                    "\(file.lastPathComponent) asks pages.words(context) directly: name it words first, so the catalogs find its texts")
            for match in text.matches(of: single) {
                let key = unescape(match.output[1].substring ?? "")
                #expect(!key.contains(#"\("#), "words(\"\(key)\") interpolates: name the value instead, {like} this (\(file.lastPathComponent))")
                found.append((key, nil))
            }
        }
        return found
    }

    static func placeholders(_ text: String) -> [String] {
        text.matches(of: /\{([A-Za-z][A-Za-z0-9.]*)\}/).map { String($0.output.1) }.sorted()
    }

    static func links(_ text: String) -> [String] {
        text.matches(of: /\{@[^}]*\}/).map { String($0.output) }.sorted()
    }

    static func tags(_ text: String) -> [String] {
        text.matches(of: /<\/?([a-z]+)/).map { String($0.output.0) }.sorted()
    }

    @Test func everyTextTheCodeUsesIsTranslatedInEveryLanguage() throws {
        let translations = try Translations()
        let used = try Self.used()
        #expect(used.count > 100)
        for language in Language.supported {
            let catalog = try #require(translations.catalogs[language])
            for (key, plural) in used {
                let entry = catalog.entries[key]
                #expect(entry != nil, "\(language): \"\(key)\" is missing (run scripts/catalogs)")
                guard let entry else { continue }
                #expect(entry.plural == plural, "\(language): \"\(key)\" has the wrong plural")
                let forms = plural == nil ? 1 : language.pluralCategories.count
                #expect(entry.forms.count == forms, "\(language): \"\(key)\" has \(entry.forms.count) forms, not \(forms)")
                for form in entry.forms {
                    #expect(!form.isEmpty, "\(language): \"\(key)\" is not translated")
                    // A plural form may leave the count out ("one minute"); every other value is kept, and no more.
                    let expected = Self.placeholders(key).filter { plural == nil || $0 != "count" }
                    let got = Self.placeholders(form).filter { plural == nil || $0 != "count" }
                    #expect(got == expected, "\(language): \"\(form)\" has placeholders \(got), \"\(key)\" has \(expected)")
                    #expect(Self.tags(form) == Self.tags(key), "\(language): \"\(form)\" changes the markup of \"\(key)\"")
                    // A link ({@programme id}) is kept as it is.
                    #expect(Self.links(form) == Self.links(key), "\(language): \"\(form)\" changes the links of \"\(key)\"")
                    // Translations go into attributes too: a double quote only where the English has one (an href).
                    #expect(form.filter { $0 == "\"" }.count == key.filter { $0 == "\"" }.count, "\(language): \"\(form)\" adds a double quote")
                }
            }
            // No text the code no longer uses.
            let keys = Set(used.map(\.key))
            #expect(catalog.entries.keys.filter { !keys.contains($0) }.sorted() == [], "\(language): texts nothing uses (run scripts/catalogs)")
            #expect(catalog.declaredForms == language.pluralCategories.count, "\(language): Plural-Forms says \(catalog.declaredForms ?? 0)")
        }
    }

    @Test func everyLanguagesTemplatesParse() throws {
        // Each language's copy is made when first asked for: made here, a translation that broke a template fails.
        let renderer = try PageRenderer(translations: try Translations())
        for language in Language.supported {
            #expect(try renderer.render("theme-label", ["nextIsLight": true], language: language).isEmpty == false, "\(language)")
        }
    }

    @Test func noTemplateLeavesEnglishOutsideItsBlocks() throws {
        for file in try FileManager.default.contentsOfDirectory(atPath: Self.templates.path).sorted() where file.hasSuffix(".mustache") {
            let name = String(file.dropLast(".mustache".count))
            let left = TemplateText.untranslated(try String(contentsOf: Self.templates.appendingPathComponent(file), encoding: .utf8))
            #expect(left == [], "\(name) leaves English outside {{#t}} blocks")
        }
    }

    @Test(arguments: [
        ("en", 1, PluralCategory.one), ("en", 0, .other), ("en", 2, .other),
        ("fr", 0, .one), ("fr", 1, .one), ("fr", 2, .other), ("fr", 1_000_000, .many), ("fr", 2_000_000, .many), ("fr", 1_000_001, .other),
        ("es", 0, .other), ("es", 1, .one), ("es", 1_000_000, .many),
        ("he", 1, .one), ("he", 2, .two), ("he", 3, .other), ("he", 20, .other), ("he", 0, .other),
        ("hu", 1, .one), ("hu", 5, .other), ("de", 1, .one), ("de", 21, .other), ("de", Int.min, .other), ("he", Int.max, .other),
    ])
    func pluralCategoriesFollowCLDR(code: String, count: Int, category: PluralCategory) throws {
        #expect(try #require(Language(tag: code)).pluralCategory(count) == category)
    }

    @Test func aBrowserGetsTheLanguageItPrefersMostOfThoseWithACatalog() {
        #expect(Language.preferred(AcceptLanguage("de-AT,de;q=0.9,en;q=0.8"))?.code == "de")
        #expect(Language.preferred(AcceptLanguage("pt-BR,pt;q=0.9,fr;q=0.5,en;q=0.4"))?.code == "fr")
        #expect(Language.preferred(AcceptLanguage("en;q=0.5, he"))?.code == "he")
        #expect(Language.preferred(AcceptLanguage("iw-IL"))?.code == "he")
        #expect(Language.preferred(AcceptLanguage("de;q=0, ja")) == nil)
        #expect(Language.preferred(AcceptLanguage("hu;q=nan,es;q=1e308"))?.code == "es")
        #expect(Language.preferred(AcceptLanguage(String(repeating: "x,", count: 10_000) + "de")) == nil)
        #expect(Language.english.locale(AcceptLanguage("en-US,en"))?.identifier == "en-US")
        #expect(Language.english.locale(nil) == nil)
        // Hostile q-values are clamped into 0...1 (nan reads as 0); odd tags are left out.
        #expect(AcceptLanguage("de;q=-1, fr;q=9223372036854775807, es;q=1e308, hu;q=nan, he;q=0.5").tags == ["fr", "es", "he"])
        #expect(AcceptLanguage("<script>, de-DE;q=0.9, " + String(repeating: "a", count: 36) + ", en_GB;q=0.8").tags == ["de-DE", "en_GB"])
        #expect(Language(tag: "fr")?.locale(AcceptLanguage("de"))?.identifier == "fr")
    }

    @Test func aPOFileIsReadAsGettextWritesIt() throws {
        let text = #"""
            msgid ""
            msgstr ""
            "Plural-Forms: nplurals=3; plural=(n == 1) ? 0 : (n == 2) ? 1 : 2;\n"

            #: somewhere
            msgid "Say \"hi\"\n"
            msgstr "אמרו \"שלום\"\n"

            #, fuzzy
            msgid "Unchecked"
            msgstr "לא נבדק"

            msgctxt "menu"
            msgid "Open"
            msgstr "פתיחה"
            msgid "{count} day"
            msgid_plural "{count} days"
            msgstr[0] "יום"
            msgstr[1] "יומיים"
            msgstr[2] "{count} ימים"
            """#
        let catalog = try MessageCatalog(po: text, language: try #require(Language(tag: "he")))
        #expect(catalog.entries["Say \"hi\"\n"]?.forms == ["אמרו \"שלום\"\n"])
        #expect(catalog.entries["Unchecked"] == nil)
        #expect(catalog.entries["menu\u{4}Open"]?.forms == ["פתיחה"])
        #expect(catalog.declaredForms == 3)
        let words = Localizer(language: try #require(Language(tag: "he")), locale: Locale(identifier: "he"), catalog: catalog)
        #expect(words.plural("{count} day", "{count} days", count: 2) == "יומיים")
        #expect(words.plural("{count} day", "{count} days", count: 7) == "7 ימים")
        #expect(words("Not in the catalog: {x}", ["x": "1"]) == "Not in the catalog: 1")
        for (broken, line) in [("msgid \"a\"\nmsgstr \"b", 2), ("msgid \"a\"\nmsgstr \"\\q\"", 2), ("msgid \"a\"\nmsgstr[9] \"b\"", 2),
                               ("\"stray\"", 1), ("msgid \"a\"\nmsgid \"a\"", 0)] {
            #expect {
                _ = try MessageCatalog(po: broken, language: .english)
            } throws: { error in
                guard let error = error as? MessageCatalog.ReadError else { return false }
                return line == 0 || error.line == line
            }
        }
    }

    @Test func pagesSpeakTheViewersLanguageInTheirFormatsAndDirection() async throws {
        let server = try await TestServer(listings: ThemeTests.listings, now: ThemeTests.now)
        try await server.run { client in
            let jar = CookieJar()
            let german = String(buffer: try await jar.send(client, "/now", headers: [.acceptLanguage: "de-DE,de;q=0.9,en;q=0.5"]).body)
            #expect(german.contains(#"<html lang="de" dir="ltr""#))
            #expect(german.contains("Läuft jetzt") && german.contains("So. 15. Feb."))
            #expect(!german.contains(">On now<") && !german.contains("Skip to content"))
            let hebrew = String(buffer: try await jar.send(client, "/search?q=news", headers: [.acceptLanguage: "he-IL"]).body)
            #expect(hebrew.contains(#"<html lang="he" dir="rtl""#))
            #expect(hebrew.contains("נמצאה תוכנית אחת."))
            // A request refused says why in the viewer's words (the API keeps English for programs).
            let refused = try await jar.send(client, "/programmes/abc", headers: [.acceptLanguage: "de"])
            #expect(refused.status == .badRequest)
            #expect(String(buffer: refused.body).contains("Die Adresse einer Sendung endet mit ihrer Nummer, wie /programmes/42."))
            let missing = try await jar.send(client, "/static/nothing.css", headers: [.acceptLanguage: "fr-FR"])
            #expect(missing.status == .notFound && String(buffer: missing.body).contains("aucun fichier nothing.css"))
            // A query's value out of its range, on a page: the field's problem in the viewer's words and numbers.
            let genre = try await jar.send(client, "/now?genre=nosuch", headers: [.acceptLanguage: "de"])
            #expect(genre.status == .badRequest && String(buffer: genre.body).contains("genre=nosuch ist kein Genre"))
            let page = try await jar.send(client, "/now?page=9223372036854775807", headers: [.acceptLanguage: "de"])
            #expect(page.status == .badRequest && String(buffer: page.body).contains("100.000"), "\(String(buffer: page.body))")
            let api = try await jar.send(client, "/api/search?q=" + Array(repeating: "x", count: 11).joined(separator: "+"), headers: [.acceptLanguage: "de"])
            #expect(api.status == .badRequest && String(buffer: api.body).contains("A search has at most 10 words; this one has 11."))
            let link = try #require(german.firstMatch(of: /href="(\/programmes\/[0-9]+)"/)).output.1
            let american = String(buffer: try await jar.send(client, String(link), headers: [.acceptLanguage: "en-US"]).body)
            #expect(american.contains("8:00") && american.contains("PM"))
            // What the scripts write comes with the page, in its language: Hebrew's three plural forms among them.
            let words = try #require(hebrew.firstMatch(of: /data-words="([^"]*)"/)).output.1
            let json = words.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#123;", with: "{")
                .replacingOccurrences(of: "&#125;", with: "}").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&amp;", with: "&")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            #expect(object["@plurals"] as? [String] == ["one", "two", "other"])
            #expect(object["Offline - listings as of {time}"] as? String == "לא מקוון - לוח שידורים נכון ל-{time}")
            #expect((object["{count} min left"] as? [String])?.count == 3)
        }
    }

    @Test func everyTextTheScriptsSayIsSentToThePages() throws {
        let english = Set(ScriptWords.texts(.english).map(\.key))
        let folder = Self.sources.appendingPathComponent("GuideServer/Resources/static")
        var said: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".js") {
            let script = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            said += script.matches(of: /\b(?:say|sayCount)\("((?:[^"\\]|\\.)*)"/).map { String($0.output.1) }
        }
        #expect(said.count > 15)
        #expect(said.filter { !english.contains($0) } == [], "a text a script says is missing from ScriptWords")
    }
}
