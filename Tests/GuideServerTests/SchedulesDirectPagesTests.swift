import Foundation
import GuideCore
import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import SchedulesDirect
import SchedulesDirectReplay
import Testing

/// The newcomer's way in on the admin pages: an empty guide's admin page asks where the listings come from, by
/// country; Schedules Direct's page signs in, finds a lineup by postal code, adds it to the account, and adds the
/// account's lineup as a source, refreshed into the guide. Against the loopback stand-in answering with SD's
/// recorded answers.
@Suite struct SchedulesDirectPagesTests {
    /// The stand-in, its schedules from the day before the test's evening, and a server reaching it.
    static func serving() async throws -> (SchedulesDirectStandIn, TestServer) {
        let standIn = try await SchedulesDirectStandIn(now: { Date() })
        standIn.schedulesStart(on: String(CivilTime.iso8601(WebTests.evening.addingTimeInterval(-86_400)).prefix(10)))
        return (standIn, try await TestServer(listings: WebTests.listings, now: WebTests.evening, schedulesDirectURL: standIn.base))
    }

    @Test func fromAnEmptyGuideToASchedulesDirectLineup() async throws {
        let (standIn, server) = try await Self.serving()
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            // No source yet: the question, then the ways for the country picked, Schedules Direct first for the US.
            let first = String(buffer: try await admin.send(client, "/admin").body)
            #expect(first.contains("Where do your listings come from?"))
            #expect(first.contains("<option value=\"FR\">France</option>"))
            let us = String(buffer: try await admin.send(client, "/admin?country=US").body)
            #expect(us.contains("Schedules Direct <small>$35 a year (a 7-day trial)</small>"))
            #expect(us.contains("<a class=\"button primary\" href=\"/admin/schedules-direct?country=USA\">Sign in to Schedules Direct</a>"))
            let france = String(buffer: try await admin.send(client, "/admin?country=FR").body)
            #expect(france.contains("The XMLTV project&#39;s tv_grab_fr for France") || france.contains("The XMLTV project's tv_grab_fr for France"))
            #expect(!String(buffer: try await admin.send(client, "/admin?country=PT").body).contains("Schedules Direct <small>"))

            // Sign in: a wrong password is SD's refusal, and nothing is kept.
            let form = String(buffer: try await admin.send(client, "/admin/schedules-direct?country=USA").body)
            #expect(form.contains("id=\"sd-signin\""))
            let wrong = try await admin.send(client, "/admin/schedules-direct/signin", method: .post,
                                             form: ["username": "tvguide-test", "password": "wrong"])
            #expect(wrong.status == .badRequest)
            #expect(String(buffer: wrong.body).contains("Not signed in: Schedules Direct 4003: the user name or password is wrong (it said: Invalid username or token has expired.)"))
            // In the reader's language: what the code means is worded, SD's own words follow as they came.
            let refusedInGerman = try await admin.send(client, "/admin/schedules-direct/signin", method: .post,
                                                       form: ["username": "tvguide-test", "password": "wrong"], headers: [.acceptLanguage: "de"])
            #expect(String(buffer: refusedInGerman.body).contains("Schedules Direct 4003: Benutzername oder Passwort ist falsch (Meldung: Invalid username or token has expired.)"))
            #expect(try await SDConnection.account(in: server.store) == nil)
            let signedIn = String(buffer: try await admin.send(client, "/admin/schedules-direct/signin", method: .post,
                                                               form: ["username": "tvguide-test", "password": "correct horse"]).body)
            #expect(signedIn.contains("Signed in to Schedules Direct as tvguide-test."))
            #expect(!signedIn.contains("correct horse") && !signedIn.contains(SchedulesDirectStandIn.sha1Hex("correct horse")))
            #expect(signedIn.contains("Comcast Waukegan/Lake Forest Area - Digital"))
            #expect(!signedIn.contains("DELETED LINEUP"))

            // Find by postal code, add to the account.
            let found = String(buffer: try await admin.send(client, "/admin/schedules-direct?country=USA&postalcode=90210").body)
            #expect(found.contains("<code>USA-CA00053-X</code>"), "\(found)")
            #expect(found.contains("<option value=\"USA\" selected>United States</option>"))
            // A Freeview country (SD's DVB-T list): its transmitters, each a lineup; the account's own marked so.
            let freeview = String(buffer: try await admin.send(client, "/admin/schedules-direct?country=GBR").body)
            #expect(freeview.contains("<strong>Crystal Palace</strong> <code>GBR-1000014-DEFAULT</code>"), "\(freeview)")
            #expect(freeview.contains("GBR-0001317-DEFAULT</code> <small>DVB-T transmitter Great Britain</small>\n      <span class=\"muted\">on the account</span>"))
            let added = String(buffer: try await admin.send(client, "/admin/schedules-direct/lineup", method: .post,
                                                            form: ["lineup": "USA-CA00053-X", "action": "add"]).body)
            #expect(added.contains("Added USA-CA00053-X to the account; 5 changes left today."))
            #expect(try await admin.send(client, "/admin/schedules-direct/lineup", method: .post,
                                         form: ["lineup": "../../token", "action": "add"]).status == .badRequest)

            // The account's lineup as a source, fetched now; the source is named on the SD page after.
            let source = try await admin.send(client, "/admin/sources", method: .post,
                                              form: ["name": "Comcast", "format": "schedulesdirect", "location": "USA-IL57303-X", "interval": "12"])
            #expect(source.status == .ok)
            let report = try #require(try await server.scheduler.refresher.refresh([SourceName("Comcast")]).first)
            #expect(report.outcome == .imported, "\(report.error ?? "")")
            #expect(report.channels == 3 && report.programmes > 3 * 20)
            // Again with nothing changed at SD: the same guide, not imported again.
            let again = try #require(try await server.scheduler.refresher.refresh([SourceName("Comcast")]).first)
            #expect(again.outcome == .unchanged, "\(again.error ?? "")")
            #expect(try await server.store.sources().first { $0.definition.name.rawValue == "Comcast" }?.programmes == report.programmes)
            let after = String(buffer: try await admin.send(client, "/admin/schedules-direct").body)
            #expect(after.contains("read by the source <a href=\"/admin/source?name=Comcast\">Comcast</a>"))
            #expect(!String(buffer: try await admin.send(client, "/admin").body).contains("Where do your listings come from?"))

            // SD offline: its words and its lock on the page; nothing more is asked for an hour.
            try standIn.fail("status", with: "jellyfin/token_offline_response.json")
            let offline = String(buffer: try await admin.send(client, "/admin/schedules-direct").body)
            #expect(offline.contains("Schedules Direct 3000: Schedules Direct is offline for maintenance; tvguide tries again in an hour (it said: Server offline for maintenance.)"), "\(offline)")
            let asked = standIn.requests.count
            let locked = String(buffer: try await admin.send(client, "/admin/schedules-direct").body)
            #expect(locked.contains("Stopped (every call) until"))
            #expect(standIn.requests.count == asked, "a lock in force asks nothing")
            // The source's refresh stops on the lock too, keeping the guide, and the health page says why.
            let programmes = try await server.store.sources().first { $0.definition.name.rawValue == "Comcast" }?.programmes
            let stopped = try #require(try await server.scheduler.refresher.refresh([SourceName("Comcast")]).first)
            #expect(stopped.outcome == .failed && standIn.requests.count == asked)
            #expect(try await server.store.sources().first { $0.definition.name.rawValue == "Comcast" }?.programmes == programmes)
            let health = String(buffer: try await admin.send(client, "/admin/health").body)
            #expect(health.contains("Schedules Direct 3000: Schedules Direct is offline for maintenance; tvguide tries again in an hour (it said: Server offline for maintenance.) (nothing is asked of Schedules Direct until"))
            // The same failure and lock for an admin reading German: what the code means and ours in German, SD's own words
            // as it gave them.
            let german: HTTPFields = [.acceptLanguage: "de"]
            let healthDE = String(buffer: try await admin.send(client, "/admin/health", headers: german).body)
            #expect(healthDE.contains("Schedules Direct 3000: Schedules Direct ist wegen Wartung offline; tvguide versucht es in einer Stunde wieder (Meldung: Server offline for maintenance.) (Schedules Direct wird bis "), "\(healthDE)")
            let lockedDE = String(buffer: try await admin.send(client, "/admin/schedules-direct", headers: german).body)
            #expect(lockedDE.contains("Angehalten (jeder Aufruf) bis"), "\(lockedDE)")

            // Signed out, no account is kept.
            let out = String(buffer: try await admin.send(client, "/admin/schedules-direct/signout", method: .post, form: [:]).body)
            #expect(out.contains("id=\"sd-signin\""))
            #expect(try await SDConnection.account(in: server.store) == nil)
        }
        try await standIn.stop()
    }

    @Test func onlyAdminsReachSchedulesDirect() async throws {
        let standIn = try await SchedulesDirectStandIn(now: { Date() })
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening, schedulesDirectURL: standIn.base)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/profiles", method: .post, form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            let kid = CookieJar()
            _ = try await kid.send(client, "/signin", method: .post, form: ["name": "Kid", "secret": "2468"])
            #expect(try await kid.send(client, "/admin/schedules-direct").status == .forbidden)
            #expect(try await CookieJar().send(client, "/admin/schedules-direct").status == .seeOther)
            for path in ["/admin/schedules-direct/signin", "/admin/schedules-direct/signout", "/admin/schedules-direct/lineup",
                         "/admin/schedules-direct/artwork"] {
                let form = ["username": "tvguide-test", "password": "correct horse", "lineup": "USA-CA00053-X", "artwork": "on"]
                #expect(try await kid.send(client, path, method: .post, form: form).status == .forbidden)
                #expect(try await admin.send(client, path, method: .post, form: form, withToken: false).status == .forbidden)
            }
            #expect(standIn.requests.isEmpty, "nothing reached SD")
        }
        try await standIn.stop()
    }

    @Test func artworkIsChosenOnThePageAndShownFromTvguidesOwnCache() async throws {
        let (standIn, server) = try await Self.serving()
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/schedules-direct/signin", method: .post, form: ["username": "tvguide-test", "password": "correct horse"])
            _ = try await admin.send(client, "/admin/sources", method: .post,
                                     form: ["name": "Comcast", "format": "schedulesdirect", "location": "USA-IL57303-X", "interval": "12"])
            _ = try await server.scheduler.refresher.refresh([SourceName("Comcast")])
            let channel = ChannelID("I\(try #require(standIn.stations.first)).json.schedulesdirect.org")
            let window = TimeWindow(start: WebTests.evening.addingTimeInterval(-86_400), end: WebTests.evening.addingTimeInterval(20 * 86_400))
            // Off unless chosen: no programme names artwork, and /artwork asks SD nothing.
            let page = String(buffer: try await admin.send(client, "/admin/schedules-direct").body)
            #expect(page.contains("id=\"sd-artwork\"") && !page.contains("name=\"artwork\" value=\"on\" checked"))
            #expect(try await server.store.programmes(on: channel, in: window).allSatisfy { $0.programme.icons.isEmpty })
            #expect(try await CookieJar().send(client, "/artwork?p=SH01966829").status == .notFound)
            #expect(standIn.requests(to: "metadata/programs/").isEmpty)

            // Chosen: the SD sources refresh, and their programmes name SD's artwork by series, never by SD's address.
            let chosen = String(buffer: try await admin.send(client, "/admin/schedules-direct/artwork", method: .post, form: ["artwork": "on"]).body)
            #expect(chosen.contains("Artwork chosen") && chosen.contains("name=\"artwork\" value=\"on\" checked"))
            try await SourcePagesTests.settle(server)
            let programmes = try await server.store.programmes(on: channel, in: window)
            let named = try #require(programmes.first { !$0.programme.icons.isEmpty })
            #expect(programmes.allSatisfy { $0.programme.icons.allSatisfy { $0.src.hasPrefix("schedulesdirect-artwork:") } })
            let series = try #require(named.programme.icons.first.flatMap(ProgrammeArtwork.seriesID))
            // The programme's page shows it from this server; a guest's first view fetches it, the next ones are kept.
            let details = String(buffer: try await CookieJar().send(client, "/programmes/\(named.id.rawValue)").body)
            #expect(details.contains("/artwork?p=\(series)"), "\(details)")
            let image = try await CookieJar().send(client, "/artwork?p=\(series)")
            #expect(image.status == .ok && image.headers[.contentType] == "image/png")
            #expect(Array(image.body.readableBytesView.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
            _ = try await CookieJar().send(client, "/artwork?p=\(series)")
            #expect(standIn.requests(to: "metadata/programs/").count == 1 && standIn.imagesServed == 1)
            // A series no programme of the guide carries is not asked of SD: its image calls are a paid budget.
            // Before, any well-formed id was: each a call to metadata/programs.
            for unnamed in ["EP99999999", "SH00000001", "MV12345678"] {
                #expect(try await CookieJar().send(client, "/artwork?p=\(unnamed)").status == .notFound, "\(unnamed)")
            }
            #expect(standIn.requests(to: "metadata/programs/").count == 1)
            for hostile in ["../../etc", "SH0196682", "https://evil.example/x.jpg", String(repeating: "9", count: 5000)] {
                #expect(try await CookieJar().send(client, "/artwork?p=\(hostile)").status == .notFound, "\(hostile)")
            }
            // Feeds name it at this server's address too; the marker never leaves.
            let feed = String(buffer: try await CookieJar().send(client, "/xmltv.xml").body)
            #expect(feed.contains("/artwork?p=\(series)\"") && !feed.contains("schedulesdirect-artwork:"))

            // Given up: no image is asked of SD any more, and the programmes stop naming one.
            _ = try await admin.send(client, "/admin/schedules-direct/artwork", method: .post, form: [:])
            try await SourcePagesTests.settle(server)
            #expect(try await CookieJar().send(client, "/artwork?p=MV00015892").status == .notFound)
            #expect(standIn.requests(to: "metadata/programs/").count == 1)
            #expect(try await server.store.programmes(on: channel, in: window).allSatisfy { $0.programme.icons.isEmpty })
        }
        try await standIn.stop()
    }
}
