import Foundation
import GuideCore
import GuideServer
import Hummingbird
import HummingbirdTesting
import Testing

/// Each credential opens what it was given and no more: an API token is never a browser's profile, and a form token
/// is the server's own, bound to the session it was given to (issue 27, point 1).
@Suite struct CredentialTests {
    /// An API token of `scope` made by the signed-in admin on /admin.
    static func token(_ scope: String, by admin: CookieJar, _ client: any TestClientProtocol) async throws -> String {
        let created = String(buffer: try await admin.send(client, "/admin/tokens", method: .post, form: ["name": scope, "scope": scope]).body)
        return try #require(created.firstMatch(of: /<code id="new-token">(tvg_[0-9a-f]{64})<\/code>/)).output.1.description
    }

    /// Every page a browser's admin session opens, with what posting to it needs.
    static let adminPages = ["/admin", "/admin/sources", "/admin/health", "/admin/channels", "/admin/feeds", "/admin/refresh/events",
                             "/admin/source?name=test"]
    static let adminForms = ["/admin/tokens", "/admin/profiles", "/admin/profiles/delete", "/admin/tokens/revoke", "/admin/import",
                             "/admin/sources", "/admin/source", "/admin/source/remove", "/admin/source/channels", "/admin/refresh",
                             "/admin/channels/logo", "/admin/channels/groups", "/admin/channels/groups/remove", "/admin/channels/guests",
                             "/admin/channels/timeshift", "/admin/channels/timeshift/remove", "/admin/feeds", "/admin/feeds/remove",
                             "/admin/feeds/reloads", "/admin/feeds/reloads/tell", "/admin/feeds/reloads/remove"]

    @Test(arguments: ["read", "admin"])
    func anAPITokenIsNoAdminOnThePages(scope: String) async throws {
        let server = try await AccountTests.server()
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let token = try await Self.token(scope, by: admin, client)
            let tokensBefore = try await server.store.apiTokens(of: try #require(try await server.store.profiles().first).id).count
            // Given only the bearer token, every admin page sends the program to sign in, as a guest.
            for page in Self.adminPages {
                let response = try await client.execute(uri: page, method: .get, headers: [.authorization: "Bearer \(token)"])
                #expect(response.status == .seeOther, "\(page) with a \(scope) token")
                #expect(response.headers[.location]?.hasPrefix("/signin?next=") == true, "\(page)")
            }
            // The attack of the issue: a form token and cookie of the client's choosing, and the token as credential.
            let chosen = String(repeating: "a", count: 64)
            for form in Self.adminForms {
                let response = try await client.execute(
                    uri: form, method: .post,
                    headers: [.authorization: "Bearer \(token)", .cookie: "tvguide_csrf=\(chosen)", .contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "csrf=\(chosen)&name=evil&scope=admin"))
                // Refused from the request's head, before its form is read: the admins' group sends a guest to sign in.
                #expect(response.status == .seeOther && response.headers[.location]?.hasPrefix("/signin?next=") == true, "\(form) with a \(scope) token")
            }
            let short = try await client.execute(
                uri: "/admin/tokens", method: .post,
                headers: [.authorization: "Bearer \(token)", .cookie: "tvguide_csrf=x", .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=x&name=evil&scope=admin"))
            #expect(short.status == .seeOther)
            #expect(try await server.store.apiTokens(of: try #require(try await server.store.profiles().first).id).count == tokensBefore)
            // Nor is it a profile on the profile pages.
            for page in ["/channels", "/settings", "/reminders", "/upcoming", "/calendar"] {
                let response = try await client.execute(uri: page, method: .get, headers: [.authorization: "Bearer \(token)"])
                #expect(response.status == .seeOther, "\(page) with a \(scope) token")
            }
            // The same token still works where it is documented: the API.
            let sources = try await client.execute(uri: "/api/sources", method: .get, headers: [.authorization: "Bearer \(token)"])
            #expect(sources.status == .ok)
        }
    }

    @Test func aViewersSessionIsNoAdmin() async throws {
        try await AccountTests.server().run { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/profiles", method: .post, form: ["name": "Kid", "role": "viewer", "kind": "pin", "secret": "2468"])
            let kid = CookieJar()
            #expect(try await kid.send(client, "/signin", method: .post, form: ["name": "Kid", "secret": "2468"]).status == .seeOther)
            for page in Self.adminPages {
                #expect(try await kid.send(client, page).status == .forbidden, "\(page)")
            }
            for form in Self.adminForms {
                #expect(try await kid.send(client, form, method: .post, form: ["name": "evil", "scope": "admin"]).status == .forbidden, "\(form)")
            }
        }
    }

    @Test func aFormTokenTheServerNeverIssuedIsRefused() async throws {
        try await AccountTests.server().run { client in
            let admin = try await AccountTests.admin(client)
            let session = try #require(admin["tvguide_session"])
            let issued = try #require(try await admin.currentFormToken(client))
            func post(_ csrf: String, cookies: String) async throws -> HTTPResponse.Status {
                try await client.execute(uri: "/admin/profiles", method: .post,
                                         headers: [.cookie: cookies, .contentType: "application/x-www-form-urlencoded"],
                                         body: ByteBuffer(string: "csrf=\(csrf)&name=Kid&role=admin&kind=pin&secret=2468")).status
            }
            // The cookie's own value, any value the client picks, and a guest's token are not the session's token.
            let chosen = String(repeating: "b", count: 64)
            #expect(try await post(chosen, cookies: "tvguide_session=\(session); tvguide_csrf=\(chosen)") == .forbidden)
            #expect(try await post("", cookies: "tvguide_session=\(session)") == .forbidden)
            let guest = CookieJar()
            let guestToken = try #require(try await guest.currentFormToken(client))
            let guestNonce = try #require(guest["tvguide_csrf"])
            #expect(try await post(guestToken, cookies: "tvguide_session=\(session); tvguide_csrf=\(guestNonce)") == .forbidden)
            #expect(try await server(has: "Kid", client, admin) == false)
            // The token the server gave this session works; signed in again, the old session's token does not.
            #expect(try await post(issued, cookies: "tvguide_session=\(session)") == .ok)
            let again = CookieJar()
            #expect(try await again.send(client, "/signin", method: .post, form: ["name": "Ada", "secret": "correct horse"]).status == .seeOther)
            let other = try #require(again["tvguide_session"])
            #expect(other != session)
            #expect(try await post(issued, cookies: "tvguide_session=\(other)") == .forbidden)
        }
    }

    private func server(has name: String, _ client: any TestClientProtocol, _ admin: CookieJar) async throws -> Bool {
        String(buffer: try await admin.send(client, "/admin").body).contains("<td>\(name)</td>")
    }

    /// Served over https (its public address says so), the session and form cookies carry `__Host-`.
    @Test func cookiesCarryTheHostPrefixOverHTTPS() async throws {
        try await AccountTests.server().run(.router, change: { $0.settings.publicURL = "https://tv.example.org" }) { client in
            let page = try await client.execute(uri: "/signin", method: .get)
            let cookie = try #require(page.headers[values: .setCookie].first { $0.hasPrefix("__Host-tvguide_csrf=") })
            #expect(cookie.contains("Secure") && cookie.contains("Path=/") && !cookie.contains("Domain"))
            let nonce = String(cookie.dropFirst("__Host-tvguide_csrf=".count).prefix { $0 != ";" })
            let token = try #require(CookieJar.formToken(in: String(buffer: page.body)))
            let setup = try await client.execute(
                uri: "/setup", method: .post,
                headers: [.cookie: "__Host-tvguide_csrf=\(nonce)", .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(token)&code=\(TestServer.setupCode)&name=Ada&kind=password&secret=correct+horse"))
            #expect(setup.status == .seeOther)
            #expect(setup.headers[values: .setCookie].contains { $0.hasPrefix("__Host-tvguide_session=") })
            // The unprefixed name, which a neighbouring subdomain could set, is not read.
            let plain = try await client.execute(
                uri: "/setup", method: .post,
                headers: [.cookie: "tvguide_csrf=\(nonce)", .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(token)&code=\(TestServer.setupCode)&name=Eve&kind=password&secret=correct+horse"))
            #expect(plain.status == .forbidden)
        }
    }
}
