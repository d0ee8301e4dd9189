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
            #expect(String(buffer: try await guest.send(client, "/now").body).contains(#"<html lang="en" dir="ltr" data-theme="system" data-hours="h23">"#))
            // The page's scripts get the viewer's clock too: an American browser reads 12 hours.
            #expect(String(buffer: try await guest.send(client, "/now", headers: [.acceptLanguage: "en-US"]).body).contains(#"data-hours="h12""#))
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

/// TV mode (``TVMode``): a television's user agent turns it on, `?tv=1` turns it on and a cookie keeps it, `?tv=0` off.
@Suite struct TVModeTests {
    @Test func aTelevisionOrTV1TurnsItOnAndTV0Off() async throws {
        let server = try await TestServer(listings: ThemeTests.listings, now: ThemeTests.now)
        try await server.run { client in
            let isTV = { (page: String) in page.contains(#"<html lang="en" dir="ltr" data-theme="system" data-hours="h23" class="tv">"#) }
            let guest = CookieJar()
            #expect(!isTV(String(buffer: try await guest.send(client, "/now").body)))
            #expect(isTV(String(buffer: try await guest.send(client, "/now?tv=1").body)))
            #expect(isTV(String(buffer: try await guest.send(client, "/search?q=news").body)), "kept by its cookie")
            #expect(!isTV(String(buffer: try await guest.send(client, "/now?tv=0").body)))
            #expect(!isTV(String(buffer: try await guest.send(client, "/").body)))
            for agent in ["Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/87.0.4280.88 Safari/537.36 WebAppManager",
                          "Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.0 TV Safari/537.36",
                          "Mozilla/5.0 (Linux; Android 9; AFTMM Build/PS7233) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/108.0.5359.158 Mobile Safari/537.36",
                          "Mozilla/5.0 (Linux; Android 12; BRAVIA 4K VH2 Build/STT2.230116.001) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/114.0.0.0 Safari/537.36",
                          "HbbTV/1.5.1 (+DRM;Samsung;SmartTV2021:UAU7000;T-KTSUDEUC-1106.2;KantSU2e;urn:samsungtv:familyname:21_KANTSU2E_UHD_BASIC:2021;) Tizen/6.0"] {
                let page = String(buffer: try await client.execute(uri: "/now", method: .get, headers: [.userAgent: agent]).body)
                #expect(isTV(page), "\(agent)")
            }
            for agent in ["Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
                          "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
                          String(repeating: "x", count: 10_000)] {
                #expect(!isTV(String(buffer: try await client.execute(uri: "/now", method: .get, headers: [.userAgent: agent]).body)))
            }
        }
    }
}
