import Foundation
import GuideCore
import Hummingbird
import Testing

/// A real guide with every programme in four languages (iptv-org's epg.tmacaraibes.com: French, English, Spanish,
/// Portuguese): the viewer's languages choose the titles and descriptions the pages show, and search finds each.
@Suite struct ListingLanguageTests {
    static let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("XMLTVTests/Fixtures/peer-fixtures/iptv-org-epg/epg.tmacaraibes.com.content.xml")
    /// 04:05 in Guadeloupe on 4 May 2026: "Artist spotlight" is on, 04:00-04:09 (-0400).
    static let now = Date(timeIntervalSince1970: 1_777_881_900)

    @Test func theViewersLanguagesChooseTitlesAndDescriptions() async throws {
        let server = try await TestServer(listings: try String(contentsOf: Self.guide, encoding: .utf8), now: Self.now)
        try await server.run { client in
            let jar = CookieJar()
            for (accept, title) in [("fr-FR,fr;q=0.9", "COEUR D’ARTISTE"), ("es-ES", "CORAZÓN DE ARTISTA"), ("en-GB", "ARTIST SPOTLIGHT"),
                                    // Portuguese has no catalog: the pages are in English, the listings in Portuguese.
                                    ("pt-BR,pt;q=0.9,en;q=0.5", "CORAÇÃO DE ARTISTA"),
                                    // Nothing asked for that the guide has: its first title.
                                    ("ja", "COEUR D’ARTISTE"), ("en;q=0, de", "COEUR D’ARTISTE")] {
                let page = String(buffer: try await jar.send(client, "/now", headers: [.acceptLanguage: accept]).body)
                #expect(page.contains(#"class="title" dir="auto">\#(title)</a>"#), "\(accept)")
            }
            // The grid's rows, and a programme's details with its description.
            let rows = String(buffer: try await jar.send(client, "/grid/rows?day=2026-05-04&from=0&count=5",
                                                         headers: [.acceptLanguage: "es"]).body)
            #expect(rows.contains(#">CORAZÓN DE ARTISTA</span>"#))
            let found = String(buffer: try await jar.send(client, "/search?q=corazon", headers: [.acceptLanguage: "pt"]).body)
            let id = try #require(found.firstMatch(of: /href="\/programmes\/(\d+)" class="title" dir="auto">CORAÇÃO DE ARTISTA</)?.1)
            let details = String(buffer: try await jar.send(client, "/programmes/\(id)", headers: [.acceptLanguage: "es"]).body)
            #expect(details.contains("Enfoque artista: selección automática de videoclips alrededor de un artista."))
            #expect(details.contains(#"<h2 id="details-title-\#(id)" dir="auto">CORAZÓN DE ARTISTA</h2>"#))
            // Search finds a programme by any of its titles, shown in the viewer's language.
            for (words, accept) in [("artist spotlight", "fr"), ("coeur d artiste", "en"), ("coracao", "es")] {
                let results = String(buffer: try await jar.send(client, "/search?q=\(words.replacingOccurrences(of: " ", with: "+"))",
                                                                headers: [.acceptLanguage: accept]).body)
                let expected = accept == "fr" ? "COEUR D’ARTISTE" : accept == "es" ? "CORAZÓN DE ARTISTA" : "ARTIST SPOTLIGHT"
                #expect(results.contains(#"dir="auto">\#(expected)</a>"#), "\(words) in \(accept)")
            }
        }
    }

    @Test func aFeedPutsTheLanguagesItsAddressNamesFirst() async throws {
        let server = try await TestServer(listings: try String(contentsOf: Self.guide, encoding: .utf8), now: Self.now)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let ada = try #require(try await server.store.profiles().first)
            let path = try await LineupFeedTests.addFeed(admin, client, name: "Kodi", channels: "lineup:\(ada.id.rawValue)")
            let plain = String(buffer: try await client.execute(uri: path, method: .get).body)
            #expect(plain.contains(#"<title lang="fr">COEUR D’ARTISTE</title>\#n    <title lang="en">ARTIST SPOTLIGHT</title>"#))
            let spanish = try await client.execute(uri: path + "?lang=es,pt", method: .get)
            let text = String(buffer: spanish.body)
            #expect(text.contains(#"<title lang="es">CORAZÓN DE ARTISTA</title>\#n    <title lang="pt">CORAÇÃO DE ARTISTA</title>\#n    <title lang="fr">COEUR D’ARTISTE</title>"#))
            #expect(text.contains(#"<desc lang="es">Enfoque artista"#))
            let plainTag = try await client.execute(uri: path, method: .get).headers[.eTag]
            #expect(spanish.headers[.eTag] != nil && spanish.headers[.eTag] != plainTag)
            // A list said twice over is read once; anything but language codes is refused, saying what it takes.
            #expect(try await client.execute(uri: path + "?lang=" + String(repeating: "de,", count: 500), method: .get).status == .ok)
            for odd in ["%3Cscript%3E", "es,,%20,x%22y", "de_DE"] {
                let refused = try await client.execute(uri: path + "?lang=" + odd, method: .get)
                #expect(refused.status == .badRequest && String(buffer: refused.body).contains("language codes"), "\(odd)")
            }
            // The whole guide's feed takes the same.
            let whole = String(buffer: try await client.execute(uri: "/xmltv.xml?lang=pt", method: .get).body)
            #expect(whole.contains(#"<title lang="pt">CORAÇÃO DE ARTISTA</title>\#n    <title lang="fr">COEUR D’ARTISTE</title>"#))
            #expect(String(buffer: try await client.execute(uri: "/xmltv.xml", method: .get).body)
                        .contains(#"<title lang="fr">COEUR D’ARTISTE</title>\#n    <title lang="en">ARTIST SPOTLIGHT</title>"#))
            let refusedInGerman = try await client.execute(uri: "/xmltv.xml.gz?lang=%3C", method: .get, headers: [.acceptLanguage: "de"])
            #expect(refusedInGerman.status == .badRequest && String(buffer: refusedInGerman.body).contains("durch Kommas getrennt"))
        }
    }

    /// A profile reads its listings in the languages it chose, in order, whatever language its pages are in and its
    /// browser asks for; blank, the pages' language again.
    @Test func aProfilesListingsLanguagesAreItsOwnChoice() async throws {
        let server = try await TestServer(listings: try String(contentsOf: Self.guide, encoding: .utf8), now: Self.now)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            func save(_ languages: String) async throws -> (status: HTTPResponse.Status, page: String) {
                let response = try await admin.send(client, "/settings", method: .post,
                                                    form: ["dayStart": "5", "language": "en", "hours": "locale", "listingLanguages": languages])
                return (response.status, String(buffer: response.body))
            }
            #expect(try await save("pt, es").status == .seeOther)
            let settings = String(buffer: try await admin.send(client, "/settings").body)
            #expect(settings.contains(#"name="listingLanguages" value="pt, es""#))
            // Pages in English (the profile's choice), the browser asks for French: the titles are Portuguese.
            let now = String(buffer: try await admin.send(client, "/now", headers: [.acceptLanguage: "fr"]).body)
            #expect(now.contains(#"class="title" dir="auto">CORAÇÃO DE ARTISTA</a>"#) && now.contains(#"<html lang="en""#))
            let rows = String(buffer: try await admin.send(client, "/grid/rows?day=2026-05-04&from=0&count=5").body)
            #expect(rows.contains(#">CORAÇÃO DE ARTISTA</span>"#))
            // Not a list of codes: refused, and what was saved stays.
            let refused = try await save("pt, <b>")
            #expect(refused.status == .badRequest && refused.page.contains("is not a list of language codes"))
            #expect(try await server.store.profiles().first?.listingLanguages == ["pt", "es"])
            // Blank: the pages' language (English) again.
            #expect(try await save(" ").status == .seeOther)
            let english = String(buffer: try await admin.send(client, "/now", headers: [.acceptLanguage: "fr"]).body)
            #expect(english.contains(#"class="title" dir="auto">ARTIST SPOTLIGHT</a>"#))
            #expect(try await server.store.profiles().first?.listingLanguages == [])
        }
    }

    @Test func theReadingOrderIsTheProfilesThenTheBrowsers() {
        #expect(LocalizedText.readingOrder(chosen: ["de", "en"], profile: "he", accepted: AcceptLanguage("fr")) == ["de", "en", "he", "fr"])
        #expect(LocalizedText.readingOrder(chosen: ["de-AT"], profile: "de", accepted: nil) == ["de"])
        #expect(LocalizedText.languages(in: "de, EN,de") == ["de", "en"] && LocalizedText.languages(in: " ") == [])
        #expect(LocalizedText.languages(in: "de;en") == nil && LocalizedText.languages(in: "x") == nil)
        #expect(LocalizedText.languages(in: (0..<20).map { "a" + String(UnicodeScalar(UInt8(97 + $0))) }.joined(separator: ","))?.count == 8)
        #expect(LocalizedText.readingOrder(profile: "he", accepted: AcceptLanguage("en-US,en;q=0.9,fr;q=0.8")) == ["he", "en", "fr"])
        #expect(LocalizedText.readingOrder(profile: nil, accepted: AcceptLanguage("fr;q=0.5, th, *;q=0.1, de;q=0")) == ["th", "fr"])
        #expect(LocalizedText.readingOrder(profile: nil, accepted: nil) == [])
        #expect(LocalizedText.readingOrder(profile: nil, accepted: AcceptLanguage("x;q=nan, y;q=1e999, " + String(repeating: "z,", count: 5_000))) == ["y", "z"])
        let titles = [LocalizedText("Die Nachrichten", language: "DE"), LocalizedText("The News", language: "en-GB")]
        #expect(titles.preferred(["en"]) == "The News" && titles.preferred(["de-AT"]) == "Die Nachrichten" && titles.preferred(["ja"]) == "Die Nachrichten")
    }
}
