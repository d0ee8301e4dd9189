import Foundation
import GuideCore
import GuideStore
import Hummingbird
import HummingbirdTesting
import Testing

/// `?genre=` on the now page, the grid, search and `/api/guide`: one genre at a time, from the category map that
/// colours the grid.
@Suite struct GenreFilterTests {
    static let now = Date(timeIntervalSince1970: 1_771_185_600)   // 2026-02-15 20:00 UTC
    static let listings = """
        <tv><channel id="a.tv"><display-name>Alpha</display-name></channel>
        <channel id="b.tv"><display-name>Beta</display-name></channel>
        <channel id="c.tv"><display-name>Gamma</display-name></channel>
        <programme start="20260215193000 +0000" stop="20260215213000 +0000" channel="a.tv"><title>Big Film</title><category>Movie</category></programme>
        <programme start="20260215213000 +0000" stop="20260215220000 +0000" channel="a.tv"><title>Late News</title><category>News</category></programme>
        <programme start="20260215190000 +0000" stop="20260215210000 +0000" channel="b.tv"><title>Evening News</title><category>News</category></programme>
        <programme start="20260215210000 +0000" stop="20260215230000 +0000" channel="b.tv"><title>Night Film</title><category>Film</category></programme>
        <programme start="20260215195000 +0000" stop="20260215220000 +0000" channel="c.tv"><title>Cup Final</title><category>Sports</category></programme>
        </tv>
        """

    @Test func onNowFilmsOnlyIsOneTap() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let all = String(buffer: try await client.execute(uri: "/now", method: .get).body)
            #expect(all.contains(#"<a href="/now?genre=film" class="chip">Film</a>"#))
            #expect(all.contains(#"class="chip current" aria-current="true">All</a>"#))
            let films = String(buffer: try await client.execute(uri: "/now?genre=film", method: .get).body)
            #expect(films.contains("Big Film") && !films.contains("Evening News") && !films.contains("Cup Final"))
            #expect(films.contains(#"<a href="/now?genre=film" class="chip current" aria-current="true">Film</a>"#))
            #expect(films.contains("Channels 1–1 of 1"))
            let music = String(buffer: try await client.execute(uri: "/now?genre=music", method: .get).body)
            #expect(music.contains("Nothing in Music &amp; arts on now."))
            #expect(try await client.execute(uri: "/now?genre=westerns", method: .get).status == .badRequest)
        }
    }

    @Test func theGridDimsOtherGenresAndKeepsTheFilterInItsLinks() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let page = String(buffer: try await client.execute(uri: "/?day=2026-02-15&genre=news", method: .get).body)
            let cells = page.matches(of: /class="p g-(\w+)[^"]*?( dim)?" href="\/programmes\/\d+"/).map { ($0.output.1, $0.output.2 != nil) }
            #expect(cells.count == 5)
            #expect(cells.allSatisfy { genre, dimmed in (genre == "news") != dimmed })
            #expect(page.contains(#"data-genre="news""#) && page.contains("&amp;genre=news"))
            #expect(page.contains(#"<input type="hidden" name="genre" value="news">"#))
            #expect(!String(buffer: try await client.execute(uri: "/?day=2026-02-15", method: .get).body).contains(" dim\""))
        }
    }

    @Test func searchAndTheAPIFilterByGenre() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let search = String(buffer: try await client.execute(uri: "/search?q=film&genre=film", method: .get).body)
            #expect(search.contains("2 programmes found"))
            #expect(String(buffer: try await client.execute(uri: "/search?q=news&genre=film", method: .get).body).contains("0 programmes found"))
            let api = try await client.execute(uri: "/api/guide?from=2026-02-15T19:00:00Z&to=2026-02-16T00:00:00Z&genre=FILM", method: .get)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: api.body)) as? [String: Any])
            let titles = (document["channels"] as? [[String: Any]] ?? []).flatMap { ($0["programmes"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String } }
            #expect(Set(titles) == ["Big Film", "Night Film"])
            let bad = try await client.execute(uri: "/api/guide?genre=%00", method: .get)
            #expect(bad.status == .badRequest && String(buffer: bad.body).contains("use one of news, sport, film"))
        }
    }
}
