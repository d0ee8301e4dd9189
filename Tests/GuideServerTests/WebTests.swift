import Foundation
import GuideCore
import GuideServer
import Hummingbird
import HummingbirdTesting
import Testing

/// The server-rendered pages: what a browser without JavaScript gets, through Hummingbird's test client.
@Suite struct WebTests {
    /// 2024-01-01 (UTC): a film crossing the 05:00 day start, a day's evening, and a repeat the next day.
    static let listings = """
        <?xml version="1.0" encoding="UTF-8"?>
        <tv>
          <channel id="one.uk"><display-name>One</display-name><lcn>1</lcn></channel>
          <channel id="two.uk"><display-name>Two</display-name></channel>
          <channel id="empty.uk"><display-name>Nothing Here</display-name></channel>
          <programme channel="one.uk" start="20240101040000 +0000" stop="20240101060000 +0000"><title>Night Film</title><category>Movie</category></programme>
          <programme channel="one.uk" start="20240101183000 +0000" stop="20240101190000 +0000">
            <title>Doctor Who</title><sub-title>The Giggle</sub-title><desc>The Toymaker returns.</desc>
            <credits><director>Rachel Talalay</director><actor role="The Doctor">David Tennant</actor></credits>
            <category>Drama</category><episode-num system="xmltv_ns">1.4/8.</episode-num><new/><subtitles type="teletext"/>
            <rating system="BBFC"><value>PG</value></rating><star-rating><value>4/5</value></star-rating>
          </programme>
          <programme channel="two.uk" start="20240101180000 +0000" stop="20240101200000 +0000"><title>Café Society</title><category>News</category></programme>
          <programme channel="two.uk" start="20240102190000 +0000" stop="20240102193000 +0000"><title>Doctor Who</title><sub-title>Wild Blue Yonder</sub-title></programme>
        </tv>
        """
    /// 2024-01-01 18:45 UTC, during Doctor Who.
    static let evening = Date(timeIntervalSince1970: 1_704_134_700)

    static func server() async throws -> TestServer { try await TestServer(listings: listings, now: evening) }

    @Test func gridPlacesProgrammesByMinuteAndClipsAtTheDayStart() async throws {
        try await Self.server().run { client in
            let page = try await CookieJar().send(client, "/?day=2024-01-01")
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            // Day from 05:00 UTC: Doctor Who at 18:30 is 810 minutes in and 30 long; the night film is clipped to 05:00-06:00.
            #expect(html.contains(#"class="p g-drama o810 d30" href="/programmes/"#))
            #expect(html.contains("Night Film"))
            #expect(html.contains(#"g-film o0 d60 clip-start""#))
            #expect(html.contains(#"data-start="-3600" data-end="3600""#))
            // The channel without listings is left out of a guest's guide; the ruler has 24 hours from 05:00.
            #expect(!html.contains("Nothing Here"))
            #expect(html.components(separatedBy: #"role="columnheader">"#).count - 1 == 25)
            #expect(html.contains(#"<span class="hour o0" role="columnheader">05:00</span>"#))
            // The now line sits at 18:45, 825 minutes in; the day's neighbours stay inside the listings.
            #expect(html.contains(#"class="now-line o825""#))
            // No zoom was chosen: the grid follows the screen's default (zoom-default) and the day links name none.
            #expect(html.contains(#"class="grid zoom-180 zoom-default day-1440""#))
            #expect(html.contains(#"href="/?day=2023-12-31" rel="prev""#))
            #expect(html.contains(#"href="/?day=2024-01-02" rel="next""#))
            // A zoom chosen is the grid's and carries on to the neighbouring day and the day picker.
            let zoomed = String(buffer: try await CookieJar().send(client, "/?day=2024-01-01&zoom=60").body)
            #expect(zoomed.contains(#"class="grid zoom-60 day-1440""#))
            #expect(zoomed.contains(#"href="/?day=2024-01-02&amp;zoom=60" rel="next""#))
            #expect(zoomed.contains(#"<input type="hidden" name="zoom" value="60">"#))
            #expect(html.contains(#"min="2023-12-31" max="2024-01-02""#))
            #expect(html.contains("Listings from Mon 1 Jan to Tue 2 Jan"))
        }
    }

    @Test func aDayOutsideTheListingsShowsTheNearestCoveredDay() async throws {
        try await Self.server().run { client in
            let html = String(buffer: try await CookieJar().send(client, "/?day=2024-03-01").body)
            #expect(html.contains("There are no listings for 2024-03-01: they cover Sunday 31 December 2023 to Tuesday 2 January 2024. Showing Tuesday 2 January 2024."))
            #expect(html.contains(#"data-day="2024-01-02""#))
            #expect(!html.contains(#"rel="next""#))
            let bogus = String(buffer: try await CookieJar().send(client, "/?day=2024-02-30").body)
            #expect(bogus.contains("2024-02-30 is not a date"))
        }
    }

    /// When nothing at all is on now (the listings end before it), /now says so once, with when the listings run and
    /// how to add more, not a "Nothing listed now" for every channel; inside them, each channel's row as ever.
    @Test func nowOutsideTheListingsIsSaidOnce() async throws {
        let later = try await TestServer(listings: Self.listings, now: Date(timeIntervalSince1970: 1_706_000_000))  // 23 January 2024
        try await later.run { client in
            let html = String(buffer: try await CookieJar().send(client, "/now").body)
            #expect(html.contains("Nothing is listed now: the listings run from") && html.contains("tvguide import FILE-OR-URL"), "\(html)")
            #expect(!html.contains(#"class="slot current none""#) && !html.contains("Café Society"))
        }
        try await Self.server().run { client in
            let html = String(buffer: try await CookieJar().send(client, "/now").body)
            #expect(!html.contains("Nothing is listed now") && html.contains("Doctor Who") && html.contains("now-list"))
        }
    }

    @Test func rowsForTheScriptAreJSON() async throws {
        try await Self.server().run { client in
            let response = try await CookieJar().send(client, "/grid/rows?day=2024-01-01&from=1&count=5")
            #expect(response.status == .ok)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            let rows = try #require(document["rows"] as? [[String: Any]])
            #expect(rows.map { $0["id"] as? String } == ["two.uk"])
            // A row is the markup the page has for it (GridRowsHTML, drawn in one place), placed by its seconds.
            let html = try #require(rows.first?["html"] as? String)
            #expect(html.hasPrefix(#"<div class="row" role="row" aria-rowindex="3" id="row-1" data-index="1" data-channel="two.uk">"#))
            #expect(html.contains(#"data-start="46800" data-end="54000"><span class="t" dir="auto">Café Society</span>"#))
            let page = String(buffer: try await CookieJar().send(client, "/?day=2024-01-01").body)
            #expect(page.contains(html))
            let bad = try await CookieJar().send(client, "/grid/rows?day=yesterday")
            #expect(bad.status == .badRequest)
        }
    }

    @Test func detailsShowEveryFieldAndOtherAirings() async throws {
        try await Self.server().run { client in
            let grid = String(buffer: try await CookieJar().send(client, "/?day=2024-01-01").body)
            let id = try #require(grid.firstMatch(of: /href="\/programmes\/(\d+)" data-start="[-0-9]+" data-end="[0-9]+"><span class="t" dir="auto">Doctor Who/)?.1)
            let html = String(buffer: try await CookieJar().send(client, "/programmes/\(id)").body)
            for text in ["Doctor Who", "The Giggle", "S2 E5 of 8", "The Toymaker returns.", "Mon 1 Jan, 18:30–19:00", "30 min",
                         "On now", "<li>New</li>", "<li>Subtitles</li>", "BBFC PG", "4/5", "Rachel Talalay", "David Tennant (The Doctor)",
                         "Drama", "Tue 2 Jan, 19:00</a> on Two", "Listings: test", "/?day=2024-01-01&amp;channel=one.uk&amp;at=2024-01-01T18:30:00Z"] {
                #expect(html.contains(text), "missing \(text)")
            }
            // The panel alone, for the grid's script; and the grid with the panel open, for a shared link.
            let panel = String(buffer: try await CookieJar().send(client, "/programmes/\(id)?part=panel").body)
            #expect(panel.hasPrefix("\n<article") || panel.hasPrefix("<article"))
            let over = String(buffer: try await CookieJar().send(client, "/?day=2024-01-01&p=\(id)").body)
            #expect(over.contains(#"<aside class="panel" id="panel" aria-label="Programme details" >"#))
            #expect(try await CookieJar().send(client, "/programmes/999999").status == .notFound)
            #expect(try await CookieJar().send(client, "/programmes/abc").status == .badRequest)
        }
    }

    @Test func searchGroupsResultsByDay() async throws {
        try await Self.server().run { client in
            let html = String(buffer: try await CookieJar().send(client, "/search?q=WHO+doctor").body)
            #expect(html.contains("2 programmes found"))
            let first = try #require(html.range(of: "Monday 1 January 2024")), second = try #require(html.range(of: "Tuesday 2 January 2024"))
            #expect(first.lowerBound < second.lowerBound)
            #expect(html.contains("Wild Blue Yonder"))
            #expect(html.contains(#"href="/?day=2024-01-02&amp;channel=two.uk&amp;at=2024-01-02T19:00:00Z">In the guide"#))
            let accents = String(buffer: try await CookieJar().send(client, "/search?q=cafe").body)
            #expect(accents.contains("1 programme found") && accents.contains("Café Society"))
        }
    }

    @Test func nowPageShowsProgressAndNext() async throws {
        try await Self.server().run { client in
            let html = String(buffer: try await CookieJar().send(client, "/now").body)
            #expect(html.contains(#"<progress max="30" value="15""#))
            #expect(html.contains("15 min left"))
            #expect(html.contains(#"<progress max="120" value="45""#))
            #expect(html.contains("Next: <a href=\"/programmes/"))
        }
    }

    @Test func unknownPagesAreHTMLAndUnknownAPIRoutesJSON() async throws {
        try await Self.server().run { client in
            let page = try await CookieJar().send(client, "/no-such-page")
            #expect(page.status == .notFound)
            let api = try await CookieJar().send(client, "/api/no-such-route")
            #expect(api.status == .notFound)
            #expect(api.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test func pagesAreCompressedForBrowsersThatAskAndCarryTheSecurityHeaders() async throws {
        try await Self.server().run { client in
            let plain = try await CookieJar().send(client, "/?day=2024-01-01")
            let packed = try await CookieJar().send(client, "/?day=2024-01-01", headers: [.acceptEncoding: "gzip, br"])
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(packed.headers[.contentEncoding] == "gzip")
            #expect(Array(packed.body.readableBytesView.prefix(2)) == [0x1F, 0x8B])
            #expect(packed.body.readableBytes < plain.body.readableBytes / 2)
            let style = try await CookieJar().send(client, "/static/grid-units.css", headers: [.acceptEncoding: "gzip"])
            #expect(style.status == .ok && style.headers[.contentEncoding] == "gzip" && style.body.readableBytes < 20_000)
            #expect(plain.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(plain.headers[.xContentTypeOptions] == "nosniff")
            let cookie = try #require(plain.headers[.setCookie])
            #expect(cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        }
    }

    @Test func markupInListingsIsShownAsText() async throws {
        let hostile = """
            <tv><channel id="x&quot;y"><display-name>&lt;img src=x onerror=alert(1)&gt;</display-name><icon src="javascript:alert(1)"/></channel>
            <programme channel="x&quot;y" start="20240101180000 +0000" stop="20240101190000 +0000"><title>&lt;script&gt;alert("hi")&lt;/script&gt; &amp; 'co'</title></programme></tv>
            """
        try await TestServer(listings: hostile, now: Self.evening).run { client in
            let html = String(buffer: try await CookieJar().send(client, "/?day=2024-01-01").body)
            #expect(html.contains("&lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt; &amp; 'co'"))
            #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(html.contains(#"data-channel="x&quot;y""#))
            #expect(!html.contains("<script>") && !html.contains("javascript:"))
        }
    }
}
