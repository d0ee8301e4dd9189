import Foundation
import GuideCore
import GuideServer
import Hummingbird
import HummingbirdTesting
import Testing

/// Requests an attacker on the network would send: numbers that trapped Swift's overflow check in headers, query
/// strings and forms. Each is answered (a 4xx saying what to send, or the page as if the value were absent), never
/// a crash, and the server answers the next request.
@Suite struct HostileRequestTests {
    static let hugeNumbers = ["9223372036854775807", "9223372036854775808", "-9223372036854775809", "99999999999999999999",
                              "1e308", "nan", "-1"]

    /// The header that stopped `serve` from one unauthenticated request.
    @Test func absurdIfModifiedSinceIsIgnored() async throws {
        try await WebTests.server().run { client in
            for header in ["Thu, 01 Jan 2026 99999999999999999:00:00 GMT", "Thu, 01 Jan 99999999999999999 00:00:00 GMT",
                           "Thu, 99999999999999999 Jan 2026 00:00:00 GMT", "Sat, 01 Jan 2026 23:59:61 GMT"] {
                let response = try await client.execute(uri: "/xmltv.xml", method: .get, headers: [.ifModifiedSince: header])
                #expect(response.status == .ok, "\(header)")
            }
            let fresh = try await client.execute(uri: "/xmltv.xml", method: .get)
            let lastModified = try #require(fresh.headers[.lastModified])
            let again = try await client.execute(uri: "/xmltv.xml", method: .get, headers: [.ifModifiedSince: lastModified])
            #expect(again.status == .notModified)
        }
    }

    @Test func absurdNumbersInQueriesAreRefusedOrIgnored() async throws {
        try await WebTests.server().run { client in
            var uris: [String] = []
            for number in Self.hugeNumbers {
                uris += ["/?day=\(number)-01-01", "/?zoom=\(number)", "/?page=\(number)", "/?p=\(number)",
                         "/grid/rows?day=2024-01-01&from=\(number)&count=\(number)", "/now?page=\(number)",
                         "/api/programmes/\(number)", "/programmes/\(number)", "/api/search?q=news&limit=\(number)",
                         "/calendar?date=\(number)-01-01&view=month", "/shows/\(number)", "/shows/1/seasons/\(number)",
                         "/channels?page=\(number)", "/search?q=\(number)"]
            }
            uris += ["/api/guide?from=9999-12-31T23:59:59Z", "/api/now?at=0001-01-01T00:00:00%2B14:00",
                     "/api/guide?from=0001-01-01T00:00:00%2B14:00&to=0001-01-02T00:00:00Z", "/calendar?date=9999-12-31&view=month",
                     "/?day=9999-12-31", "/?day=0001-01-01", "/grid/rows?day=9999-12-31"]
            for uri in uris {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status.code < 500, "\(uri) answered \(response.status.code)")
            }
            let bad = try await client.execute(uri: "/api/search?q=news&limit=9223372036854775808", method: .get)
            #expect(bad.status == .badRequest)
            #expect(String(buffer: bad.body).contains("limit takes a whole number from 1 to 500"))
            #expect(try await client.execute(uri: "/", method: .get).status == .ok)
        }
    }

    /// The API's search has the page's caps: at most 200 characters and 10 words.
    @Test func searchesAreCappedAlike() async throws {
        try await WebTests.server().run { client in
            let long = String(repeating: "a", count: 201), many = (1...11).map { "w\($0)" }.joined(separator: "+")
            for q in [long, many] {
                let api = try await client.execute(uri: "/api/search?q=\(q)", method: .get)
                #expect(api.status == .badRequest)
                #expect(String(buffer: api.body).contains("A search has at most"))
                let page = try await client.execute(uri: "/search?q=\(q)", method: .get)
                #expect(page.status == .ok && String(buffer: page.body).contains("A search has at most"))
            }
            #expect(try await client.execute(uri: "/api/search?q=" + (1...10).map { "w\($0)" }.joined(separator: "+"), method: .get).status == .ok)
            // Found by schemathesis: a NUL or other control character in a search.
            for q in ["%C2%BD%C2%8A%C3%8F%00%0BO%C2%AC%2F", "a%00b", "%00", "doc%07tor"] {
                let api = try await client.execute(uri: "/api/search?q=\(q)&in=title", method: .get)
                #expect(api.status.code < 500, "\(q): \(api.status)")
                let all = try await client.execute(uri: "/api/search?q=\(q)&in=all", method: .get)
                #expect(all.status.code < 500, "\(q): \(all.status)")
                #expect(try await client.execute(uri: "/search?q=\(q)", method: .get).status.code < 500)
            }
        }
    }

    @Test func absurdNumbersInAdminFormsSayWhatToSend() async throws {
        let (server, path) = try await SourcePagesTests.server()
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let added = try await admin.send(client, "/admin/sources", method: .post,
                                             form: ["name": "other", "format": "xmltv", "location": path, "interval": "1e308"])
            #expect(added.status == .badRequest)
            #expect(String(buffer: added.body).contains("The interval (hours) takes a number from"))
            #expect(try await server.store.sources().isEmpty)
            _ = try await admin.send(client, "/admin/sources", method: .post, form: ["name": "other", "format": "xmltv", "location": path])
            for (field, value, says) in [("priority", "9223372036854775808", "The priority takes a whole number"),
                                         ("interval", "nan", "The interval (hours) takes a number"),
                                         ("shift", "9223372036854775807", "The shift (minutes) takes a whole number from -2,880 to 2,880"),
                                         ("days", "-9223372036854775808", "Days takes a whole number from 1 to 30")] {
                let saved = try await admin.send(client, "/admin/source", method: .post,
                                                 form: ["name": "other", "location": path, field: value])
                #expect(saved.status == .badRequest, "\(field)=\(value)")
                #expect(String(buffer: saved.body).contains(says), "\(field)=\(value)")
            }
            let stored = try #require(try await server.store.sources().first?.definition)
            #expect(stored.priority == 0 && stored.refreshInterval == 12 * 3600 && stored.timeShift == 0 && stored.days == 7)
            let settings = try await admin.send(client, "/settings", method: .post, form: ["dayStart": "9223372036854775808"])
            #expect(settings.status == .badRequest)
            // A media-server feed's profile number and days: refused with what to send, and no feed made.
            for (channels, days, says) in [("lineup:9223372036854775808", "7", "Choose the channels"), ("favourites:-1", "7", "Choose the channels"),
                                           ("lineup:1e308", "7", "Choose the channels"), ("lineup:nan", "7", "Choose the channels"),
                                           ("lineup:9223372036854775807", "7", "No such profile"),
                                           ("lineup:1", "9223372036854775807", "Days"), ("lineup:1", "nan", "Days")] {
                let made = try await admin.send(client, "/admin/feeds", method: .post,
                                                form: ["name": "Plex", "channels": channels, "days": days, "shape": "media-server"])
                #expect(made.status == .badRequest && String(buffer: made.body).contains(says), "\(channels) days=\(days)")
            }
            #expect(try await server.store.lineupFeeds().isEmpty)
            // Found by the raw HTTP fuzzer: ids of things that are not there were 500s.
            for (path, id) in [("/admin/tokens/revoke", "+5"), ("/admin/tokens/revoke", "999"), ("/admin/profiles/delete", "999")] {
                let response = try await admin.send(client, path, method: .post, form: ["id": id])
                #expect(response.status == .notFound, "\(path) id=\(id): \(response.status)")
            }
        }
    }

    /// Every form is read by its type (issue 27, point 1): a value outside what a field may hold is a 400 that names
    /// the field, and nothing is stored; before, an unknown scope or role quietly became `read` or `viewer`, an
    /// out-of-range lead was dropped, and a page number went into the redirect as sent.
    @Test func formsRefuseValuesOutsideTheirTypes() async throws {
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let profile = try #require(try await server.store.profiles().first)
            let cases: [(path: String, form: [String: String], says: String)] = [
                ("/admin/tokens", ["name": "Plex", "scope": "root"], "The scope takes one of read, refresh, admin"),
                ("/admin/tokens", ["name": String(repeating: "x", count: 1_025)], "The name takes at most 1,024 characters"),
                ("/admin/profiles", ["name": "kid", "role": "superuser", "kind": "pin", "secret": "1234"], "The role takes one of"),
                ("/admin/profiles", ["name": "kid", "kind": "fingerprint", "secret": "1234"], "The kind of secret takes one of"),
                ("/admin/profiles/delete", ["id": "0"], "The id takes a whole number of 1 or more"),
                ("/settings", ["dayStart": "24"], "The day start (hour) takes a whole number from 0 to 23"),
                ("/settings", ["dayStart": "6", "zone": "Mars/Olympus"], "Mars/Olympus is not a time zone"),
                ("/settings", ["dayStart": "6", "theme": "neon"], "The theme takes one of system, light, dark"),
                ("/settings/series", ["lead": "5", "shift": "0", "pastDays": "1"], "Days ahead takes a whole number"),
                ("/settings/calendar", ["action": "steal"], "The action takes one of new, revoke"),
                ("/theme", ["theme": "neon"], "The theme takes one of"),
                ("/favourites", ["channel": "one.uk", "favourite": "2"], "favourite (1 adds, 0 takes out) takes a whole number from 0 to 1"),
                ("/channels", ["clear": "1", "page": "nan"], "The page takes a whole number from 0 to 100,000"),
                ("/reminders", ["programme": "1", "lead": "99999999999999999999"], "The lead (minutes) takes a whole number"),
                ("/reminders/searches", ["words": "news", "lead": "-1"], "The lead (minutes) takes a whole number"),
                ("/shows/1/reminders", ["on": "2"], "on takes a whole number from 0 to 1"),
                ("/admin/profiles/delete", ["id": "9223372036854775808"], "The id takes a whole number of 1 or more"),
                ("/settings", ["dayStart": "1e308"], "The day start (hour) takes a whole number from 0 to 23"),
                ("/favourites", ["channel": "one.uk", "favourite": "9223372036854775807"], "favourite (1 adds, 0 takes out)"),
                ("/reminders", ["programme": "1", "lead": "nan"], "The lead (minutes) takes a whole number"),
            ]
            for (path, form, says) in cases {
                let response = try await admin.send(client, path, method: .post, form: form)
                #expect(response.status == .badRequest, "\(path) \(form): \(response.status)")
                #expect(String(buffer: response.body).contains(says), "\(path) \(form): \(String(buffer: response.body).prefix(2_000))")
            }
            // In the viewer's language and number formats, the field named as the form names it; the JSON API stays English.
            let worded: [(language: String, path: String, form: [String: String], says: String)] = [
                ("de", "/settings", ["dayStart": "24"], "Tagesbeginn (Stunde): eine ganze Zahl von 0 bis 23, nicht &quot;24&quot;"),
                ("de", "/channels", ["clear": "1", "page": "nan"], "Seite: eine ganze Zahl von 0 bis 100.000, nicht &quot;nan&quot;"),
                ("fr", "/admin/tokens", ["name": "Plex", "scope": "root"], "Portée : l’un de read, refresh, admin, pas &quot;root&quot;"),
                ("hu", "/admin/tokens", ["name": String(repeating: "x", count: 1_025)], "Név: legfeljebb 1024 karakter"),
                ("he", "/settings", ["dayStart": "6", "zone": "Mars/Olympus"], "Mars/Olympus אינו אזור זמן"),
                ("es", "/settings", ["dayStart": "6", "theme": "neon"], "Tema: uno de system, light, dark, no &quot;neon&quot;"),
            ]
            for (language, path, form, says) in worded {
                let response = try await admin.send(client, path, method: .post, form: form, headers: [.acceptLanguage: language])
                #expect(response.status == .badRequest, "\(language) \(path) \(form): \(response.status)")
                #expect(String(buffer: response.body).contains(says), "\(language) \(path): \(String(buffer: response.body).prefix(2_000))")
            }
            // What the store refuses is worded for the viewer too.
            let taken = try await admin.send(client, "/admin/profiles", method: .post, form: ["name": "Ada", "kind": "pin", "secret": "1234"],
                                             headers: [.acceptLanguage: "de"])
            #expect(String(buffer: taken.body).contains("Es gibt schon ein Profil namens Ada."), "\(taken.status) \(String(buffer: taken.body).prefix(2_000))")
            // The error page is the viewer's, though it is made before the session is read: a forged form's, in Hebrew.
            let forged = try await admin.send(client, "/settings", method: .post, form: ["dayStart": "6"], withToken: false,
                                              headers: [.acceptLanguage: "he"])
            let page = String(buffer: forged.body)
            #expect(forged.status == .forbidden && page.contains("הטופס הזה אינו עדכני") && page.contains(#"dir="rtl""#), "\(page.prefix(2_000))")
            let api = try await admin.send(client, "/api/search?q=news&limit=0", headers: [.acceptLanguage: "de"])
            #expect(api.status == .badRequest && String(buffer: api.body).contains("limit takes a whole number from 1 to 500"),
                    "\(String(buffer: api.body))")
            #expect(try await server.store.apiTokens(of: profile.id).isEmpty)
            #expect(try await server.store.profiles().count == 1)
            #expect(try await server.store.lineup(of: profile.id).isEmpty)
            #expect(try await server.store.reminders(of: profile.id, in: [.pending], limit: 10).isEmpty)
        }
    }

    /// A one-off import of a provider's URL with credentials once showed that URL to every guest.
    @Test func sourceNamesNeverShowSecretsOrServerPaths() async throws {
        #expect(SourceName(location: "https://user:pw@host.example:8080/xmltv.php?username=U&password=P#x").rawValue
                == "host.example/xmltv.php")
        #expect(SourceName(location: "/srv/private/epg/guide.xml.gz").rawValue == "guide.xml.gz")
        #expect(SourceName(location: "my-feed").rawValue == "my-feed")
        #expect(SourceName("https://host.example/get.php?password=P").shown == "host.example/get.php")
        // Stored under the whole URL (as one-off imports were named before): shown without its secrets.
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        try await server.importListings("""
            <tv><channel id="three.uk"><display-name>Three</display-name></channel>
            <programme channel="three.uk" start="20240101180000 +0000" stop="20240101230000 +0000"><title>Quiz Night</title></programme></tv>
            """, as: "http://host.example/xmltv.php?username=U&password=P")
        try await server.run { client in
            let api = try await client.execute(uri: "/api/search?q=quiz", method: .get)
            let page = try await client.execute(uri: "/search?q=quiz", method: .get)
            let id = try #require(String(buffer: api.body).firstMatch(of: /"id":(\d+)/)?.1)
            let details = try await client.execute(uri: "/programmes/\(id)", method: .get)
            let document = try await client.execute(uri: "/api/programmes/\(id)", method: .get)
            for body in [api.body, page.body, details.body, document.body] {
                #expect(!String(buffer: body).contains("password"))
            }
            #expect(String(buffer: document.body).contains(#""source":"host.example/xmltv.php""#))
        }
    }
}
