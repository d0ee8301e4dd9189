import Foundation
import GuideCore
import GuideServer
import Hummingbird
import HummingbirdTesting
import Testing

/// Setup, signing in, the wrong-PIN lockout, form tokens, channel choice, API tokens and the XMLTV feed.
@Suite struct AccountTests {
    static func server() async throws -> TestServer { try await TestServer(listings: WebTests.listings, now: WebTests.evening) }

    /// Sets up the admin (password "correct horse") and returns its signed-in jar.
    static func admin(_ client: any TestClientProtocol) async throws -> CookieJar {
        let jar = CookieJar()
        let response = try await jar.send(client, "/setup", method: .post,
                                          form: ["code": TestServer.setupCode, "name": "Ada", "kind": "password", "secret": "correct horse"])
        #expect(response.status == .seeOther)
        #expect(response.headers[.location] == "/admin")
        #expect(jar["tvguide_session"] != nil)
        return jar
    }

    @Test func setupNeedsTheCodeAndHappensOnce() async throws {
        try await Self.server().run { client in
            let stranger = CookieJar()
            let wrong = try await stranger.send(client, "/setup", method: .post,
                                                form: ["code": "0000-0000-0000", "name": "Mallory", "kind": "pin", "secret": "1234"])
            #expect(wrong.status == .forbidden)
            #expect(String(buffer: wrong.body).contains("That is not the setup code"))
            let admin = try await Self.admin(client)
            let page = String(buffer: try await admin.send(client, "/admin").body)
            #expect(page.contains("<td>Ada</td><td>admin</td><td>password</td>"))
            let again = try await stranger.send(client, "/setup", method: .post,
                                                form: ["code": TestServer.setupCode, "name": "Eve", "kind": "pin", "secret": "1234"])
            #expect(again.status == .forbidden)
            // A guest is sent to sign in; a session cookie is Secure, HttpOnly and SameSite.
            let guest = try await stranger.send(client, "/admin")
            #expect(guest.status == .seeOther && guest.headers[.location] == "/signin?next=%2Fadmin")
        }
    }

    @Test func formsWithoutTheirTokenAreRefused() async throws {
        try await Self.server().run { client in
            let admin = try await Self.admin(client)
            let before = String(buffer: try await admin.send(client, "/admin").body)
            let forged = try await admin.send(client, "/admin/profiles", method: .post,
                                              form: ["name": "Intruder", "role": "admin", "kind": "pin", "secret": "1234"], withToken: false)
            #expect(forged.status == .forbidden)
            #expect(String(buffer: forged.body).contains("This form is out of date or came from another site"))
            let after = String(buffer: try await admin.send(client, "/admin").body)
            #expect(!after.contains("Intruder") && before.contains("Ada"))
            // With its token the same form works.
            let real = try await admin.send(client, "/admin/profiles", method: .post,
                                            form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            #expect(real.status == .ok && String(buffer: real.body).contains("Added Kid (viewer)."))
        }
    }

    /// A form is read once, by the sessions' middleware, which checks its token on the parsed form; the handler's form
    /// type reads the same fields. A form of fields sent as files (or files sent as fields) is refused, never half-read.
    @Test func aFormIsReadOnceAndOfTheKindItsPageSends() async throws {
        try await Self.server().run { client in
            // Given an admin whose file form carries a profile form's fields.
            let admin = try await Self.admin(client)
            let asFiles = try await admin.upload(client, "/admin/profiles", files: [("name", "n.txt", Array("Intruder".utf8))])
            // Then the profile form refuses it and adds nobody; the history import refuses fields where it takes files.
            #expect(asFiles.status == .badRequest)
            #expect(String(buffer: asFiles.body).contains("This form sends no files: send it from its page."))
            #expect(!String(buffer: try await admin.send(client, "/admin").body).contains("Intruder"))
            let asFields = try await admin.send(client, "/history/import", method: .post, form: ["export": "a,b"])
            #expect(asFields.status == .badRequest)
            #expect(String(buffer: asFields.body).contains("This form sends files: choose them, then send it from its page."))
            // And the same profile form, sent as fields with its token, works.
            let real = try await admin.send(client, "/admin/profiles", method: .post,
                                            form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            #expect(real.status == .ok && String(buffer: real.body).contains("Added Kid (viewer)."))
        }
    }

    @Test func fiveWrongPINsMakeTheProfileWaitLongerEachTime() async throws {
        let server = try await Self.server()
        try await server.run { client in
            let admin = try await Self.admin(client)
            _ = try await admin.send(client, "/admin/profiles", method: .post, form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            let kid = CookieJar()
            for attempt in 1...4 {
                let response = try await kid.send(client, "/signin", method: .post, form: ["name": "Kid", "secret": "000\(attempt)"])
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body).contains("\(5 - attempt) more wrong"))
            }
            // The fifth wrong try is checked (401) and starts the wait.
            let fifth = try await kid.send(client, "/signin", method: .post, form: ["name": "kid", "secret": "0005"])
            #expect(fifth.status == .unauthorized)
            #expect(String(buffer: fifth.body).contains("this profile has to wait 30 seconds before the next try"))
            // The right PIN is not even checked while the profile waits: 429, and when to come back.
            let early = try await kid.send(client, "/signin", method: .post, form: ["name": "Kid", "secret": "2468"])
            #expect(early.status == .tooManyRequests && kid["tvguide_session"] == nil)
            #expect(early.headers[.retryAfter] == "30")
            // After the wait one more wrong try doubles it; then, after that wait, the right PIN works.
            server.advance(by: 31)
            let sixth = try await kid.send(client, "/signin", method: .post, form: ["name": "Kid", "secret": "0006"])
            #expect(String(buffer: sixth.body).contains("wait 60 seconds"))
            server.advance(by: 61)
            let right = try await kid.send(client, "/signin", method: .post, form: ["name": "Kid", "secret": "2468"])
            #expect(right.status == .seeOther && kid["tvguide_session"] != nil)
            // A viewer may not reach the admin page.
            #expect(try await kid.send(client, "/admin").status == .forbidden)
        }
    }

    @Test func aViewerChoosesAndOrdersChannels() async throws {
        try await Self.server().run { client in
            let admin = try await Self.admin(client)
            for (button, channel) in [("add", "two.uk"), ("add", "empty.uk"), ("add", "one.uk"), ("up", "one.uk"), ("up", "one.uk"), ("remove", "empty.uk")] {
                let response = try await admin.send(client, "/channels", method: .post, form: [button: channel])
                #expect(response.status == .seeOther)
            }
            let page = String(buffer: try await admin.send(client, "/channels").body)
            let one = try #require(page.range(of: "aria-label=\"Move One down\"")), two = try #require(page.range(of: "aria-label=\"Move Two up\""))
            #expect(one.lowerBound < two.lowerBound)
            // The grid follows the choice; a guest still sees every channel with listings.
            let grid = String(buffer: try await admin.send(client, "/?day=2024-01-01").body)
            #expect(grid.contains("Channels 1–2 of 2</span>"))
            let rows = grid.matches(of: /data-channel="([a-z.]+)"/).map { String($0.1) }
            #expect(rows == ["one.uk", "two.uk"])
            #expect(try await CookieJar().send(client, "/channels").status == .seeOther)
        }
    }

    @Test func apiTokensChangeDataAndCookiesDoNot() async throws {
        try await Self.server().run { client in
            let admin = try await Self.admin(client)
            let created = String(buffer: try await admin.send(client, "/admin/tokens", method: .post, form: ["name": "Script", "scope": "admin"]).body)
            let token = try #require(created.firstMatch(of: /<code id="new-token">(tvg_[0-9a-f]{64})<\/code>/)?.1)
            let body = ByteBuffer(string: #"{"channels":["two.uk","one.uk"]}"#)
            // A signed-in browser's cookie cannot change data through the API; a bearer token can.
            let byCookie = try await admin.send(client, "/api/lineup", method: .put, headers: [.contentType: "application/json"])
            #expect(byCookie.status == .unauthorized)
            let byToken = try await client.execute(uri: "/api/lineup", method: .put,
                                                   headers: [.authorization: "Bearer \(token)", .contentType: "application/json"], body: body)
            #expect(byToken.status == .ok)
            #expect(String(buffer: byToken.body) == #"{"channels":["two.uk","one.uk"]}"#)
            let unknown = try await client.execute(uri: "/api/lineup", method: .put, headers: [.authorization: "Bearer \(token)"],
                                                   body: ByteBuffer(string: #"{"channels":["nope.uk"]}"#))
            #expect(unknown.status == .notFound)
            let bogus = try await client.execute(uri: "/api/now", method: .get, headers: [.authorization: "Bearer tvg_nonsense"])
            #expect(bogus.status == .unauthorized)
            // Revoked, the token stops working.
            let page = String(buffer: try await admin.send(client, "/admin").body)
            let id = try #require(page.firstMatch(of: /name="id" value="(\d+)"><button type="submit">Revoke/)?.1)
            _ = try await admin.send(client, "/admin/tokens/revoke", method: .post, form: ["id": String(id)])
            let revoked = try await client.execute(uri: "/api/lineup", method: .put,
                                                   headers: [.authorization: "Bearer \(token)"], body: body)
            #expect(revoked.status == .unauthorized)
        }
    }

    /// A token given to a media server reads; it cannot refresh, import or change lineups. Each scope adds to the last.
    @Test func tokenScopesLimitWhatAProgramMayDo() async throws {
        try await Self.server().run { client in
            let admin = try await Self.admin(client)
            var tokens: [String: String] = [:]
            for scope in ["read", "refresh", "admin"] {
                let created = String(buffer: try await admin.send(client, "/admin/tokens", method: .post, form: ["name": scope, "scope": scope]).body)
                tokens[scope] = try #require(created.firstMatch(of: /<code id="new-token">(tvg_[0-9a-f]{64})<\/code>/)).output.1.description
            }
            #expect(String(buffer: try await admin.send(client, "/admin").body).contains("read · read · created"))
            func status(_ scope: String, _ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> HTTPResponse.Status {
                try await client.execute(uri: uri, method: method, headers: [.authorization: "Bearer \(tokens[scope] ?? "")", .contentType: "application/json"],
                                         body: body.map { ByteBuffer(string: $0) }).status
            }
            let imports = #"{"location": "/etc/passwd"}"#, lineup = #"{"channels":["one.uk"]}"#
            #expect(try await status("read", .get, "/api/sources") == .ok)
            #expect(try await status("read", .post, "/api/refresh") == .forbidden)
            #expect(try await status("read", .post, "/api/imports", imports) == .forbidden)
            #expect(try await status("read", .put, "/api/lineup", lineup) == .forbidden)
            #expect(try await status("refresh", .post, "/api/refresh") == .accepted)
            #expect(try await status("refresh", .post, "/api/imports", imports) == .forbidden)
            #expect(try await status("admin", .put, "/api/lineup", lineup) == .ok)
            #expect(try await status("admin", .post, "/api/imports", imports) == .unprocessableContent, "tried: not XMLTV")
        }
    }

    @Test func oversizeFormsAreRefused() async throws {
        try await Self.server().run { client in
            let jar = CookieJar()
            let response = try await jar.send(client, "/signin", method: .post, form: ["name": String(repeating: "x", count: 100_000), "secret": "1"])
            #expect(response.status == .contentTooLarge)
        }
    }

    @Test func xmltvFeedHasValidatorsAndChangesWithTheListings() async throws {
        let server = try await Self.server()
        try await server.run { client in
            let first = try await client.execute(uri: "/xmltv.xml", method: .get)
            #expect(first.status == .ok)
            let tag = try #require(first.headers[.eTag])
            #expect(first.headers[.lastModified]?.hasSuffix(" GMT") == true)
            let xml = String(buffer: first.body)
            #expect(xml.contains(#"<channel id="one.uk">"#) && xml.contains("<title>Doctor Who</title>") && xml.hasSuffix("</tv>\n"))
            let again = try await client.execute(uri: "/xmltv.xml", method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
            let packed = try await client.execute(uri: "/xmltv.xml.gz", method: .get)
            #expect(Array(packed.body.readableBytesView.prefix(2)) == [0x1F, 0x8B])
            #expect(packed.headers[.eTag] != tag)
            // A new import changes the tag, so a media server fetches again.
            try await server.importListings("""
                <tv><programme channel="one.uk" start="20240103180000 +0000" stop="20240103190000 +0000"><title>Extra</title></programme></tv>
                """, as: "second")
            let changed = try await client.execute(uri: "/xmltv.xml", method: .get, headers: [.ifNoneMatch: tag])
            #expect(changed.status == .ok && String(buffer: changed.body).contains("<title>Extra</title>"))
        }
    }
}
