import Foundation
import GuideApplication
import GuideCore
import GuideStore
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing
import TVMazeReplay

/// Following shows on the web, against the TVmaze replay server: follow, upcoming, the grid's marks, the calendar,
/// the feed's secret address; and that all of it needs a signed-in profile and the form token.
@Suite struct SeriesPagesTests {
    /// 2013-06-24 20:00 UTC: six hours before Under the Dome's pilot (02:00 UTC on the 25th).
    static let now = Date(timeIntervalSince1970: 1_372_104_000)
    static let listings = """
        <tv><channel id="cbs.us"><display-name>CBS</display-name></channel>
        <programme start="20130625000000 +0000" stop="20130625020000 +0000" channel="cbs.us"><title>Evening News</title></programme>
        <programme start="20130625020000 +0000" stop="20130625030000 +0000" channel="cbs.us"><title>Under the Dome</title><sub-title>Pilot</sub-title><episode-num system="xmltv_ns">0.0.</episode-num></programme>
        </tv>
        """

    func withServer(_ body: @Sendable (TestServer, ReplayServer, any TestClientProtocol) async throws -> Void) async throws {
        let replay = try await ReplayServer()
        let server = try await TestServer(listings: Self.listings, now: Self.now, tvmazeURL: replay.base)
        do {
            try await server.run { client in try await body(server, replay, client) }
        } catch {
            try await replay.stop()
            throw error
        }
        try await replay.stop()
    }

    @Test func followingNeedsASignedInProfileAndTheFormToken() async throws {
        try await withServer { server, _, client in
            let guest = CookieJar()
            let anonymous = try await guest.send(client, "/shows/1/follow", method: .post, form: [:])
            #expect(anonymous.status == .seeOther && anonymous.headers[.location]?.hasPrefix("/signin") == true)
            let admin = try await AccountTests.admin(client)
            let forged = try await admin.send(client, "/shows/1/follow", method: .post, form: [:], withToken: false)
            #expect(forged.status == .forbidden)
            #expect(try await server.store.trackedShows().isEmpty)
            #expect(try await guest.send(client, "/upcoming").status == .seeOther)
            #expect(try await guest.send(client, "/calendar").status == .seeOther)
        }
    }

    @Test func followThenUpcomingGridCalendarAndUnfollow() async throws {
        try await withServer { server, replay, client in
            let jar = try await AccountTests.admin(client)
            let found = try await jar.send(client, "/shows?q=under+the+dome")
            #expect(String(buffer: found.body).contains(#"<a class="title" href="/shows/1">Under the Dome</a>"#))
            let follow = try await jar.send(client, "/shows/1/follow", method: .post, form: ["next": "/shows/1"])
            #expect(follow.status == .seeOther && follow.headers[.location] == "/shows/1")
            #expect(String(buffer: try await jar.send(client, "/shows/1").body).contains("Unfollow"))

            let upcoming = String(buffer: try await jar.send(client, "/upcoming").body)
            #expect(upcoming.contains(#"<a href="/episodes/1">S01E01 Pilot</a> <span class="when">Tue 25 Jun 2013, 02:00</span>"#))
            #expect(upcoming.contains("this episode") && upcoming.contains("TVmaze"))
            // In the listings, linked to its episode (by the listing's numbering, else its sub-title).
            #expect(upcoming.contains("S01E01 Pilot airs on CBS, Tue 25 Jun 02:00</a>"), "\(upcoming)")
            #expect(!upcoming.contains("watched: a repeat"))
            // Nothing airs today (the 24th, UTC) until the clock reaches the 25th.
            #expect(!upcoming.contains("airing-today"))
            server.advance(by: 5 * 3600)
            #expect(String(buffer: try await jar.send(client, "/now").body).contains(#"<span class="badge airing-today" title="Followed episodes airing today">1 today</span>"#))

            // The grid marks the followed show, in the page and in the rows the script fetches.
            #expect(String(buffer: try await jar.send(client, "/?day=2013-06-24").body).contains("p g-other o1260 d60 followed"))
            let rows = String(buffer: try await jar.send(client, "/grid/rows?day=2013-06-24&from=0&count=1").body)
            let html = ((try JSONSerialization.jsonObject(with: Data(rows.utf8)) as? [String: Any])?["rows"] as? [[String: Any]])?.first?["html"] as? String ?? ""
            let classes = html.matches(of: /class="(p [^"]*)"/).map { String($0.output.1) }
            #expect(html.contains(">Under the Dome</span>") && classes.contains { $0.hasSuffix(" followed") } && classes.contains { !$0.contains("followed") })

            let month = String(buffer: try await jar.send(client, "/calendar?view=month&date=2013-07-01").body)
            #expect(month.contains("Under the Dome S01E02") && month.contains("5 episodes"))
            let premieres = String(buffer: try await jar.send(client, "/calendar?view=month&date=2013-07-01&premieres=1").body)
            #expect(premieres.contains("0 episodes") && !premieres.contains("S01E02"))
            let day = String(buffer: try await jar.send(client, "/calendar?view=day&date=2013-06-25").body)
            #expect(day.contains(#"<span class="time">02:00</span>"#) && day.contains("premiere"))
            // In the viewer's language and conventions: German weeks start on Monday, Israeli and American ones on
            // Sunday (July 2013 began on a Monday, so only the latter show 30 June), each with its own day names.
            let german = String(buffer: try await jar.send(client, "/calendar?view=month&date=2013-07-01", headers: [.acceptLanguage: "de-DE"]).body)
            #expect(german.contains("<h1>Juli 2013</h1>") && german.contains("<thead><tr><th>Mo</th><th>Di</th>") && german.contains("5 Folgen"), "\(german)")
            #expect(!german.contains("date=2013-06-30") && german.contains("date=2013-07-01"))
            let hebrew = String(buffer: try await jar.send(client, "/calendar?view=month&date=2013-07-01", headers: [.acceptLanguage: "he-IL"]).body)
            #expect(hebrew.contains("<h1>יולי 2013</h1>") && hebrew.contains("5 פרקים") && hebrew.contains(#"dir="rtl""#), "\(hebrew)")
            #expect(hebrew.contains("date=2013-06-30"))
            let american = String(buffer: try await jar.send(client, "/calendar?view=month&date=2013-07-01", headers: [.acceptLanguage: "en-US"]).body)
            #expect(american.contains("<thead><tr><th>Sun</th><th>Mon</th>") && american.contains("date=2013-06-30"), "\(american)")
            let week = String(buffer: try await jar.send(client, "/calendar?view=week&date=2013-06-25", headers: [.acceptLanguage: "fr-FR"]).body)
            #expect(week.contains("Semaine du lun. 24 juin 2013") && week.contains("Premières seulement"), "\(week)")
            let episode = String(buffer: try await jar.send(client, "/shows/1/seasons/1", headers: [.acceptLanguage: "hu-HU"]).body)
            #expect(episode.contains("<h1>1. évad</h1>") && episode.contains("2013. jún. 25., K"), "\(episode)")

            // A guest star's page links the episode and its show.
            let person = String(buffer: try await jar.send(client, "/people/2").body)
            #expect(person.contains(#"<a href="/shows/1">Under the Dome</a> <a href="/episodes/1">S01E01 Pilot</a> <span class="meta">as Julia Shumway</span>"#))

            // Once the pilot is watched, its airing in the listings is a repeat for this profile.
            #expect(try await jar.send(client, "/shows/1/watched", method: .post, form: ["scope": "episode", "episode": "1", "watched": "1"]).status == .seeOther)
            let repeated = String(buffer: try await jar.send(client, "/upcoming").body)
            #expect(repeated.contains("S01E01 Pilot airs on CBS") && repeated.contains("watched: a repeat"), "\(repeated)")
            #expect(try await jar.send(client, "/shows/1/watched", method: .post, form: ["scope": "episode", "episode": "1", "watched": "0"]).status == .seeOther)

            let requests = replay.requests.count
            #expect(try await jar.send(client, "/shows/1/unfollow", method: .post, form: ["next": "/upcoming"]).status == .seeOther)
            #expect(String(buffer: try await jar.send(client, "/upcoming").body).contains("You follow no shows yet"))
            #expect(try await server.store.trackedShows().isEmpty && replay.requests.count == requests)
        }
    }

    @Test func calendarFeedAtASecretRevocableAddress() async throws {
        try await withServer { server, _, client in
            let jar = try await AccountTests.admin(client)
            _ = try await jar.send(client, "/shows/1/follow", method: .post, form: [:])
            #expect(try await jar.send(client, "/settings/series", method: .post,
                                       form: ["lead": "5000", "shift": "0", "pastDays": "7", "futureDays": "60"]).status == .badRequest)
            _ = try await jar.send(client, "/settings/series", method: .post, form: ["lead": "30", "shift": "0", "pastDays": "7", "futureDays": "60"])
            // The address is shown once, when made; only its SHA-256 is stored, and the settings page never shows it again.
            // Its scheme and host are the guide's own, whatever a client's forwarded headers claim.
            let made = String(buffer: try await jar.send(client, "/settings/calendar", method: .post, form: ["action": "new"],
                                                         headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"]).body)
            let shown = try #require(made.firstMatch(of: /value="(http[^"]*)"/)).output.1
            #expect(shown.hasPrefix("http://") && made.contains("href=\"webcal\(shown.dropFirst(4))\""), "\(made)")
            let address = try #require(made.firstMatch(of: /\/calendar\/([0-9a-f]+)\.ics/)).output.0
            let secret = String(address.dropFirst("/calendar/".count).dropLast(4))
            #expect(try await server.store.seriesSettings(of: ProfileID(rawValue: 1)).calendarTokenHash?.count == 64)
            #expect(try await server.store.seriesSettings(of: ProfileID(rawValue: 1)).calendarTokenHash != secret)
            let settings = String(buffer: try await jar.send(client, "/settings").body)
            #expect(!settings.contains(secret) && settings.contains("Your calendar feed is on"))
            let feed = try await CookieJar().send(client, String(address))  // a calendar app: no cookies
            #expect(feed.status == .ok && feed.headers[.contentType] == "text/calendar; charset=utf-8")
            let text = String(buffer: feed.body)
            #expect(text.contains("UID:tvmaze-episode-1@tvguide\r\n") && text.contains("TRIGGER:-PT30M\r\n"))
            #expect(text.contains("DTSTART:20130625T020000Z\r\n"))
            #expect(text.contains("DESCRIPTION:Under the Dome S01E01 Pilot starts in 30 minutes\r\n"), "\(text)")
            // In the calendar app's language while the profile has chosen none; a missing address too.
            let german = String(buffer: try await CookieJar().send(client, String(address), headers: [.acceptLanguage: "de-DE"]).body)
            #expect(german.contains("X-WR-CALNAME:tvguide: Serien von Ada\r\n") && german.contains("Pilot beginnt in 30 Minuten\r\n"), "\(german)")
            let missing = String(buffer: try await CookieJar().send(client, "/calendar/0000.ics", headers: [.acceptLanguage: "fr"]).body)
            #expect(missing.contains("Ce calendrier n'existe pas.") || missing.contains("Ce calendrier n&#39;existe pas."), "\(missing)")
            // A new address retires the old one.
            _ = try await jar.send(client, "/settings/calendar", method: .post, form: ["action": "new"])
            #expect(try await CookieJar().send(client, String(address)).status == .notFound)
            _ = try await jar.send(client, "/settings/calendar", method: .post, form: ["action": "revoke"])
            #expect(try await server.store.seriesSettings(of: ProfileID(rawValue: 1)).calendarTokenHash == nil)
        }
    }
}
