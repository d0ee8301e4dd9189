import Foundation
import GuideCore
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /theme`: a profile's choice is stored with it, a guest's is a cookie of that browser; pages carry it on
/// `<html data-theme>`; back to the page it came from, never to another site.
@Suite struct ThemeTests {
    static let now = Date(timeIntervalSince1970: 1_771_185_600)
    static let listings = """
        <tv><channel id="a.tv"><display-name>Alpha</display-name></channel>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="a.tv"><title>News</title></programme></tv>
        """

    @Test func aGuestsThemeIsACookieAProfilesIsStored() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let guest = CookieJar()
            #expect(String(buffer: try await guest.send(client, "/now").body).contains(#"<html lang="en" data-theme="system">"#))
            let switched = try await guest.send(client, "/theme", method: .post, form: ["theme": "light"],
                                                headers: [.referer: "http://127.0.0.1/search?q=news"])
            #expect(switched.status == .seeOther && switched.headers[.location] == "/search?q=news")
            #expect(String(buffer: try await guest.send(client, "/now").body).contains(#"data-theme="light""#))
            // Only a path of this site: another site's address in Referer goes nowhere but here.
            let elsewhere = try await guest.send(client, "/theme", method: .post, form: ["theme": "dark"], headers: [.referer: "https://evil.example//x"])
            #expect(elsewhere.headers[.location] == "/")
            #expect(try await guest.send(client, "/theme", method: .post, form: ["theme": "sepia"]).status == .badRequest)
            #expect(try await guest.send(client, "/theme", method: .post, form: ["theme": "dark"], withToken: false).status == .forbidden)

            let admin = try await AccountTests.admin(client)
            #expect(try await admin.send(client, "/theme", method: .post, form: ["theme": "dark"]).status == .seeOther)
            let profile = try #require(try await server.store.profiles().first)
            #expect(profile.theme == .dark)
            #expect(String(buffer: try await admin.send(client, "/settings").body).contains(#"<option value="dark" selected>Dark</option>"#))
            #expect(try await admin.send(client, "/settings", method: .post, form: ["dayStart": "6", "zone": "", "theme": "light"]).status == .seeOther)
            #expect(try await server.store.profiles().first?.theme == .light)
        }
    }
}
