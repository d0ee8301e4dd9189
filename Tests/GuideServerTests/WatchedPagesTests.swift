import Foundation
import GuideCore
import GuideStore
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing
import TVMazeReplay

/// Watched episodes on the web and the API (issue 29), against the TVmaze replay server's Under the Dome: marking from
/// the season and episode pages, "Up next", the show's progress; the API's progress, marks and marking; who may.
@Suite struct WatchedPagesTests {
    /// A year after the pilot: season 1 (13 episodes, 2013) has aired, season 2 (from 2014-06-30) has not.
    static let aYearOn: TimeInterval = 200 * 86_400

    @Test func markingNeedsAProfileTheFormTokenAndAnAdminScopedToken() async throws {
        try await SeriesPagesTests().withServer { server, _, client in
            let guest = CookieJar()
            let anonymous = try await guest.send(client, "/shows/1/watched", method: .post, form: ["scope": "all", "watched": "1"])
            #expect(anonymous.status == .seeOther && anonymous.headers[.location]?.hasPrefix("/signin") == true)
            #expect(try await guest.send(client, "/up-next").status == .seeOther)
            let admin = try await AccountTests.admin(client)
            #expect(try await admin.send(client, "/shows/1/watched", method: .post, form: ["scope": "all", "watched": "1"], withToken: false).status == .forbidden)
            // A session reads the API; marking there takes a token with scope admin, not a cookie nor a read token.
            #expect(try await client.execute(uri: "/api/progress", method: .get).status == .unauthorized)
            let read = try await CredentialTests.token("read", by: admin, client)
            let body = ByteBuffer(string: #"{"scope":"all"}"#)
            let refused = try await client.execute(uri: "/api/shows/1/watched", method: .post,
                                                   headers: [.authorization: "Bearer \(read)", .contentType: "application/json"], body: body)
            #expect(refused.status == .forbidden)
            #expect(try await server.store.trackedShows().isEmpty)
        }
    }

    @Test func markFromTheSeasonAndEpisodePagesThenUpNext() async throws {
        try await SeriesPagesTests().withServer { server, _, client in
            // The clock first: a session does not last 200 days.
            server.advance(by: Self.aYearOn)
            let jar = try await AccountTests.admin(client)
            _ = try await jar.send(client, "/shows/1/follow", method: .post, form: [:])
            let season = String(buffer: try await jar.send(client, "/shows/1/seasons/1").body)
            #expect(season.contains("Mark season 1 watched") && season.contains("Watched up to here"))
            let third = try #require(try await server.store.episodes(ofShow: 1).first { $0.code == "S01E03" })
            let marked = try await jar.send(client, "/shows/1/watched", method: .post,
                                            form: ["scope": "upto", "episode": String(third.id), "watched": "1", "next": "/shows/1/seasons/1"])
            #expect(marked.status == .seeOther && marked.headers[.location] == "/shows/1/seasons/1")
            let after = String(buffer: try await jar.send(client, "/shows/1/seasons/1").body)
            #expect(after.components(separatedBy: "class=\"past watched\"").count - 1 == 3)
            // The episode page (the replay server has the pilot's) says it was watched.
            let watched = String(buffer: try await jar.send(client, "/episodes/1").body)
            #expect(watched.contains("id=\"watched-state\"") && watched.contains("Mark not watched"), "\(watched)")
            let fourth = try #require(try await server.store.episodes(ofShow: 1).first { $0.code == "S01E04" })

            // Up next and the show's page: 3 of 13, S01E04 next.
            let upNext = String(buffer: try await jar.send(client, "/up-next").body)
            #expect(upNext.contains("3 of 13 aired episodes watched") && upNext.contains("<a href=\"/episodes/\(fourth.id)\">S01E04"), "\(upNext)")
            #expect(upNext.contains("aria-current=\"page\">Up next</a>"))
            let show = String(buffer: try await jar.send(client, "/shows/1").body)
            #expect(show.contains("3 of 13 aired episodes watched. Up next: <a href=\"/episodes/\(fourth.id)\">S01E04"))

            // Marking from Up next, then unmarking one from its page.
            _ = try await jar.send(client, "/shows/1/watched", method: .post, form: ["scope": "episode", "episode": String(fourth.id), "watched": "1"])
            _ = try await jar.send(client, "/shows/1/watched", method: .post, form: ["scope": "episode", "episode": String(third.id), "watched": "0"])
            #expect(try await server.store.watched(by: try #require(try await server.store.profiles().first).id, show: 1).map(\.number) == [1, 2, 4])
            // The listings' airing of the pilot (numbered 0.0.) is a followed show's episode: its details say it was watched.
            let airings = try await server.store.search(SearchQuery(["Under the Dome"], scope: .title, limit: 5))
            let pilot = try #require(airings.first)
            let panel = String(buffer: try await jar.send(client, "/programmes/\(pilot.id.rawValue)?part=panel").body)
            #expect(panel.contains("S01E01: Watched") && panel.contains("Mark not watched"), "\(panel)")
            let news = try #require(try await server.store.search(SearchQuery(["Evening News"], scope: .title, limit: 5)).first)
            #expect(!String(buffer: try await jar.send(client, "/programmes/\(news.id.rawValue)").body).contains("watched-state"))
            // The grid and search hide what the viewer has seen, on request: the pilot's airing goes, the news stays.
            let grid = String(buffer: try await jar.send(client, "/?day=2013-06-24").body)
            #expect(grid.contains("Under the Dome") && grid.contains("Hide what I have seen"))
            let unseen = String(buffer: try await jar.send(client, "/?day=2013-06-24&followed=unseen").body)
            #expect(!unseen.contains(">Under the Dome<") && unseen.contains("Evening News") && unseen.contains("data-followed=\"unseen\""))
            let rows = String(buffer: try await jar.send(client, "/grid/rows?day=2013-06-24&from=0&count=1&followed=unseen").body)
            #expect(!rows.contains("Under the Dome") && rows.contains("Evening News"))
            let found = String(buffer: try await jar.send(client, "/search?q=under+the+dome&followed=unseen").body)
            #expect(found.contains("0 programmes") || !found.contains("/programmes/\(pilot.id.rawValue)"))
            #expect(try await jar.send(client, "/?day=2013-06-24&followed=everything").status == .badRequest)
            // A guest has no such choice; the airing shows.
            #expect(String(buffer: try await CookieJar().send(client, "/?day=2013-06-24&followed=unseen").body).contains("Under the Dome"))
            // Unwatched, it is back; "new episodes only" leaves out this airing, which the listings do not call new.
            _ = try await jar.send(client, "/shows/1/watched", method: .post, form: ["scope": "episode", "episode": "1", "watched": "0"])
            #expect(String(buffer: try await jar.send(client, "/?day=2013-06-24&followed=unseen").body).contains(">Under the Dome<"))
            let pilotPage = String(buffer: try await jar.send(client, "/episodes/1").body)
            #expect(pilotPage.contains("Mark watched") && pilotPage.contains("Watched everything up to here"))
            #expect(!String(buffer: try await jar.send(client, "/?day=2013-06-24&followed=new").body).contains(">Under the Dome<"))
            // What names nothing: a season not aired, another show's episode, a season out of range, a scope that is not one.
            for form in [["scope": "season", "season": "2"], ["scope": "episode", "episode": "999999"], ["scope": "season", "season": "-1"],
                         ["scope": "everything"], ["scope": "upto"]] {
                let refused = try await jar.send(client, "/shows/1/watched", method: .post, form: form.merging(["watched": "1"]) { $1 })
                #expect(refused.status == .notFound || refused.status == .badRequest, "\(form)")
            }
        }
    }

    @Test func theAPIsProgressMarksAndMarking() async throws {
        try await SeriesPagesTests().withServer { server, _, client in
            server.advance(by: Self.aYearOn)
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/shows/1/follow", method: .post, form: [:])
            let token = try await CredentialTests.token("admin", by: admin, client)
            func post(_ json: String, show: String = "1") async throws -> (HTTPResponse.Status, String) {
                let response = try await client.execute(uri: "/api/shows/\(show)/watched", method: .post,
                                                        headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                                                        body: ByteBuffer(string: json))
                return (response.status, String(buffer: response.body))
            }
            #expect(try await post(#"{"scope":"season","season":1,"watchedAt":"2013-12-01T20:00:00Z"}"#) == (.ok, #"{"changed":13}"#))
            #expect(try await post(#"{"scope":"season","season":1}"#) == (.ok, #"{"changed":0}"#))
            let marks = try await client.execute(uri: "/api/shows/1/watched", method: .get, headers: [.authorization: "Bearer \(token)"])
            let text = String(buffer: marks.body)
            #expect(text.contains(#""watchedAt":"2013-12-01T20:00:00Z""#) && text.contains(#""show":1"#))
            let progress = String(buffer: try await client.execute(uri: "/api/progress", method: .get, headers: [.authorization: "Bearer \(token)"]).body)
            #expect(progress.contains(#""aired":13"#) && progress.contains(#""watched":13"#) && !progress.contains(#""next""#), "\(progress)")
            for bad in [#"{"scope":"upto"}"#, #"{"scope":"season","season":100000}"#, #"{"scope":"x"}"#, #"{"scope":"all","watchedAt":"yesterday"}"#,
                        #"{"scope":"all","watchedAt":"9999-01-01T00:00:00Z"}"#, #"{"scope":"episode","episode":-5}"#, "[]",
                        #"{"scope":"episode","episode":9223372036854775807}"#, #"{"scope":"season","season":1e308}"#,
                        #"{"scope":"season","season":-1}"#, #"{"scope":"upto","episode":-1}"#] {
                #expect(try await post(bad).0 == .badRequest, "\(bad)")
            }
            let history = String(buffer: try await client.execute(uri: "/api/history", method: .get, headers: [.authorization: "Bearer \(token)"]).body)
            #expect(history.contains(#""name":"Under the Dome""#) && history.contains(#""followed":true"#))
            // The page and its downloads.
            #expect(String(buffer: try await admin.send(client, "/history").body).contains("1 show followed or watched, 13 episodes marked watched."))
            let csv = try await admin.send(client, "/history/export.csv")
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8" && String(buffer: csv.body).hasPrefix("show,tvmaze,followed,season,episode,watched_at,plays\r\nUnder the Dome,1,true,1,1,2013-12-01T20:00:00Z,1"))
            #expect(String(buffer: try await admin.send(client, "/history/export.json").body).contains(#""episodes":[{"#))
            #expect(try await CookieJar().send(client, "/history/export.json").status == .seeOther)
            #expect(try await post(#"{"scope":"all"}"#, show: "0").0 == .notFound)
            #expect(try await post(#"{"scope":"all","watched":false}"#) == (.ok, #"{"changed":13}"#))
        }
    }

    @Test func importingATrackersExportFromTheWeb() async throws {
        try await SeriesPagesTests().withServer { server, _, client in
            server.advance(by: Self.aYearOn)
            let jar = try await AccountTests.admin(client)
            let csv = Array("show,tvdb,season,episode,watched_at\nUnder the Dome,264492,1,1,2013-06-25 03:00:00\nUnder the Dome,264492,1,2,\nNobody Knows This,999999999,1,1,\n".utf8)
            // Who may: a guest is sent to sign in; a forged upload (no form token) is refused; nothing is kept.
            #expect(try await CookieJar().upload(client, "/history/import", files: [("export", "h.csv", csv)]).status == .seeOther)
            #expect(try await jar.upload(client, "/history/import", files: [("export", "h.csv", csv)], withToken: false).status == .forbidden)
            // Matched in the background: the upload leads to the import's own page, which reloads itself while TVmaze is
            // asked, then is the preview: what was found, by what; what was not, with a box for its TVmaze id. Nothing
            // kept yet. Another profile cannot see it.
            let uploaded = try await jar.upload(client, "/history/import", files: [("export", "h.csv", csv)])
            let page = try #require(uploaded.headers[.location])
            #expect(uploaded.status == .seeOther && page.wholeMatch(of: /\/history\/imports\/[0-9a-f]{64}/) != nil, "\(page)")
            func settled(_ jar: CookieJar) async throws -> String {
                for _ in 0..<100 {
                    let response = try await jar.send(client, page)
                    let text = String(buffer: response.body)
                    if response.headers[HTTPField.Name("Refresh")!] == nil { return text }
                    #expect(response.headers[HTTPField.Name("Refresh")!] == "2" && text.contains("id=\"import-working\""))
                    try await Task.sleep(for: .milliseconds(50))
                }
                return ""
            }
            let preview = try await settled(jar)
            #expect(try await CookieJar().send(client, page).status == .seeOther)
            #expect(try await jar.send(client, "/history/imports/" + String(repeating: "0", count: 64)).status == .notFound)
            #expect(preview.contains("CSV export: 2 shows, 2 episodes found on TVmaze") && preview.contains("by TVDB 264492"), "\(preview)")
            #expect(preview.contains("aria-label=\"TVmaze id for Nobody Knows This\""))
            let profile = try #require(try await server.store.profiles().first).id
            #expect(try await server.store.watched(by: profile, show: nil).isEmpty)
            let token = try #require(preview.firstMatch(of: /name="token" value="([0-9a-f]{64})"/)).output.1
            // Confirmed, the unfound show fixed by hand as Under the Dome: its episode lands there too (S01E01, again).
            let confirmed = try await jar.send(client, "/history/import/confirm", method: .post,
                                               form: ["token": String(token), "follow": "1", "title": "Nobody Knows This", "tvmaze": "1"])
            #expect(confirmed.status == .seeOther && confirmed.headers[.location] == page)
            let done = try await settled(jar)
            #expect(done.contains("Imported: 2 episodes marked watched, 1 show followed."), "\(done)")
            #expect(try await server.store.watched(by: profile, show: 1).map(\.number) == [1, 2])
            #expect(try await server.store.following(profile).map(\.show.id) == [1])
            // A hostile id is the form's 400, before anything is asked.
            #expect(try await jar.send(client, "/history/import/confirm", method: .post,
                                       form: ["token": String(token), "title": "X", "tvmaze": "9223372036854775807"]).status == .badRequest)
            // The token is spent.
            #expect(try await jar.send(client, "/history/import/confirm", method: .post, form: ["token": String(token)]).status == .notFound)
            // Files tvguide does not read, and none at all, say what it reads.
            let refused = try await jar.upload(client, "/history/import", files: [("export", "notes.txt", Array("hello".utf8))])
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("tvguide reads TV Time"))
            // In the viewer's language, the file's name kept as it came.
            let german = try await jar.upload(client, "/history/import", files: [("export", "notes.txt", Array("hello".utf8))],
                                              headers: [.acceptLanguage: "de"])
            #expect(String(buffer: german.body).contains("tvguide liest den Export von TV Time") && String(buffer: german.body).contains("notes.txt ist nichts davon"))
            #expect(try await jar.upload(client, "/history/import", files: []).status == .badRequest)
            // Past 50 MB: refused before it is read.
            let huge = [UInt8](repeating: 0x41, count: (50 << 20) + 1)
            #expect(try await jar.upload(client, "/history/import", files: [("export", "big.csv", huge)]).status == .contentTooLarge)
        }
    }
}
