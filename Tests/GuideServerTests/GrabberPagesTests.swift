import Foundation
import GuideCore
import GuideIngest
import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import StoreTestSupport
import Testing

/// The admin's grabber pages: the grabbers installed are listed, one is added as a source, configured through its
/// `--configure-api` stages and its channel list on the pages, refreshed into the guide; its configuration file is
/// edited on the page too, and only admins reach any of it.
@Suite struct GrabberPagesTests {
    /// tvguide's test grabber and its misbehaving variants (Tests/XMLTVTests/Fixtures/grabbers).
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("XMLTVTests/Fixtures/grabbers").path

    static func server() async throws -> TestServer {
        let home = TestScratch.folder("tvguide-grabbers") + "/home"
        return try await TestServer(listings: WebTests.listings, now: WebTests.evening,
                                    grabbers: Grabbers(directories: [folder], home: home))
    }

    @Test func anAdminAddsConfiguresAndRefreshesAGrabberSource() async throws {
        let server = try await Self.server()
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            // The grabbers installed, each with a source name to add it under.
            let list = String(buffer: try await admin.send(client, "/admin/grabbers").body)
            #expect(list.contains("tvguide&#39;s test grabber (good)") || list.contains("tvguide's test grabber (good)"))
            #expect(list.contains("value=\"tv_grab_zz_tvguide\""))
            #expect(list.contains("step by step on this site"))
            let added = try await admin.send(client, "/admin/sources", method: .post,
                                             form: ["name": "Test grabber", "format": "grabber", "location": "tv_grab_zz_tvguide", "days": "2"])
            #expect(added.status == .ok)
            #expect(String(buffer: added.body).contains("Configure its grabber from its page"))
            let source = String(buffer: try await admin.send(client, "/admin/source?name=Test%20grabber").body)
            #expect(source.contains("href=\"/admin/grabber?name=Test%20grabber\""))

            // Stage start: its questions, as a form.
            let start = try await admin.send(client, "/admin/grabber/stage", method: .post,
                                             form: ["name": "Test grabber", "stage": "start", "restart": "1"])
            let questions = String(buffer: start.body)
            #expect(start.status == .ok)
            #expect(questions.contains("<select id=\"answer.region\" name=\"answer.region\">"))
            #expect(questions.contains("<option value=\"south\">The South</option>"))
            #expect(questions.contains("type=\"password\""))
            #expect(questions.contains("name=\"stage\" value=\"select-channels\""))
            // Its answers kept; then the channels it lists, to choose.
            let channels = try await admin.send(client, "/admin/grabber/stage", method: .post,
                                                form: ["name": "Test grabber", "stage": "select-channels", "answer.region": "south",
                                                       "answer.password": "secret"],
                                                repeated: [("asked", "selectone:region"), ("asked", "secretstring:password")])
            let offered = String(buffer: channels.body)
            #expect(channels.status == .ok, "\(offered)")
            #expect(offered.contains("Choose the channels to grab (3 offered)."))
            #expect(offered.contains("Two South"))
            #expect(try await server.store.grabberConfiguration(of: SourceName("Test grabber")) == "region=south\npassword=secret\n# secret: password\n")
            let chosen = try await admin.send(client, "/admin/grabber/channels", method: .post, form: ["name": "Test grabber"],
                                              repeated: [("offered", "one.zz"), ("offered", "two.zz"), ("offered", "three.zz"),
                                                         ("channel", "two.zz")])
            #expect(String(buffer: chosen.body).contains("Chose 1 of 3 channels."))
            #expect(try await server.store.grabberConfiguration(of: SourceName("Test grabber"))
                    == "region=south\npassword=secret\n# secret: password\nchannel!one.zz\nchannel=two.zz\nchannel!three.zz\n")
            // The password is never shown back (issue 43): the file's box shows it as kept, and saved as shown it stays.
            // Before, the box showed password=secret to whoever opened the page.
            let shown = String(buffer: try await admin.send(client, "/admin/grabber?name=Test%20grabber").body)
            #expect(!shown.contains("secret\n") && !shown.contains("=secret") && shown.contains("password=(kept, not shown)"), "\(shown)")
            let box = try #require(shown.range(of: "name=\"configuration\" rows=\"14\" spellcheck=\"false\">").map { shown[$0.upperBound...].prefix { $0 != "<" } })
            _ = try await admin.send(client, "/admin/grabber/configuration", method: .post,
                                     form: ["name": "Test grabber", "configuration": String(box).replacingOccurrences(of: "&#10;", with: "\n")
                                                .replacingOccurrences(of: "&#40;", with: "(").replacingOccurrences(of: "&#41;", with: ")")
                                                .replacingOccurrences(of: "&#33;", with: "!").replacingOccurrences(of: "&#61;", with: "=")
                                                .replacingOccurrences(of: "&#35;", with: "#").replacingOccurrences(of: "&#32;", with: " ")
                                                .replacingOccurrences(of: "&#44;", with: ",")])
            #expect(try await server.store.grabberConfiguration(of: SourceName("Test grabber"))
                    == "region=south\npassword=secret\n# secret: password\nchannel!one.zz\nchannel=two.zz\nchannel!three.zz\n")

            // Refreshed, its listings are the guide's.
            let report = try #require(try await server.scheduler.refresher.refresh([SourceName("Test grabber")]).first)
            #expect(report.outcome == .imported, "\(report.error ?? "")")
            #expect(report.programmes == 48)
            let page = String(buffer: try await admin.send(client, "/admin/source?name=Test%20grabber").body)
            #expect(page.contains("Two South"))

            // The file edited on the page: a bad one is refused, and nothing stored changes.
            let bad = try await admin.send(client, "/admin/grabber/configuration", method: .post,
                                           form: ["name": "Test grabber", "configuration": "region=north\u{0}\n"])
            #expect(bad.status == .badRequest)
            #expect(try await server.store.grabberConfiguration(of: SourceName("Test grabber"))?.hasPrefix("region=south") == true)
            let saved = try await admin.send(client, "/admin/grabber/configuration", method: .post,
                                             form: ["name": "Test grabber", "configuration": "region=north\r\npassword=wrong\r\nchannel=one.zz\r\n"])
            #expect(String(buffer: saved.body).contains("Saved its configuration."))
            #expect(try await server.store.grabberConfiguration(of: SourceName("Test grabber")) == "region=north\npassword=wrong\nchannel=one.zz\n# secret: password\n")
            // The grabber refuses the wrong password: the refresh fails saying what it said, and the guide keeps its listings.
            let failed = try #require(try await server.scheduler.refresher.refresh([SourceName("Test grabber")]).first)
            #expect(failed.outcome == .failed)
            #expect(failed.error == "tv_grab_zz_tvguide failed (exit status 1): ** POST https://listings.invalid/login ==> 401 Unauthorized\nLogin failed: wrong password")
            let health = String(buffer: try await admin.send(client, "/admin/sources").body)
            #expect(health.contains("Login failed: wrong password"))
            #expect(try await server.store.sources().first { $0.definition.name.rawValue == "Test grabber" }?.programmes == 48)
        }
    }

    @Test func onlyAdminsReachTheGrabberPagesAndAnswersCannotAddLines() async throws {
        let server = try await Self.server()
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/profiles", method: .post, form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            let kid = CookieJar()
            _ = try await kid.send(client, "/signin", method: .post, form: ["name": "Kid", "secret": "2468"])
            try await server.store.addSource(SourceDefinition(name: SourceName("G"), format: .grabber, location: "tv_grab_zz_tvguide"))
            for page in ["/admin/grabbers", "/admin/grabber?name=G"] {
                #expect(try await CookieJar().send(client, page).status == .seeOther)
                #expect(try await kid.send(client, page).status == .forbidden)
            }
            for path in ["/admin/grabber/stage", "/admin/grabber/channels", "/admin/grabber/configuration"] {
                #expect(try await kid.send(client, path, method: .post, form: ["name": "G", "configuration": "x=1"]).status == .forbidden)
                #expect(try await admin.send(client, path, method: .post, form: ["name": "G"], withToken: false).status == .forbidden)
            }
            #expect(try await server.store.grabberConfiguration(of: SourceName("G")) == nil)
            // A stage that is an option, a question id that would write another key: refused, naming the field.
            let option = try await admin.send(client, "/admin/grabber/stage", method: .post, form: ["name": "G", "stage": "--list-channels"])
            #expect(option.status == .badRequest)
            let key = try await admin.send(client, "/admin/grabber/stage", method: .post, form: ["name": "G", "stage": "end"],
                                           repeated: [("asked", "string:channel=evil.zz\nx")])
            #expect(key.status == .badRequest)
            // An answer's line break stays in its line.
            _ = try await admin.send(client, "/admin/grabber/stage", method: .post,
                                     form: ["name": "G", "stage": "end", "restart": "1", "answer.region": "north\nchannel=evil.zz"],
                                     repeated: [("asked", "string:region")])
            #expect(try await server.store.grabberConfiguration(of: SourceName("G")) == "region=northchannel=evil.zz\n")
            // Not a grabber source: 404.
            #expect(try await admin.send(client, "/admin/grabber?name=test").status == .notFound)
        }
    }
}
