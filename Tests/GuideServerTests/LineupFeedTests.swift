import Foundation
import GuideCore
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import TestReceivers
import Testing

/// Feeds cut for media servers: a lineup or a group for some days at a secret address, written for Plex and
/// Jellyfin (films told from episodes, numbers in both systems, categories they recognise, logos from tvguide's
/// cache), valid for tv_validate_file, with ETag. On both stores.
@Suite struct LineupFeedTests {
    static let now = Date(timeIntervalSince1970: 1_771_185_600)   // 2026-02-15 20:00 UTC
    static let listings = """
        <tv><channel id="bbc1.uk"><display-name lang="">BBC One</display-name><display-name>101</display-name><icon src="https://logos.example/bbc1.png"/></channel>
        <channel id="film4.uk"><display-name>Film4</display-name></channel>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="bbc1.uk"><title lang="">Doctor Who</title>
          <category lang="en">Drama</category><episode-num system="xmltv_ns">1.4/10.</episode-num></programme>
        <programme start="20260215210000 +0000" stop="20260215213000 +0000" channel="bbc1.uk"><title>Casualty</title>
          <episode-num system="onscreen">S38 E7</episode-num><date>2026-02-15</date></programme>
        <programme start="20260215213000 +0000" stop="20260215220000 +0000" channel="bbc1.uk"><title>News at Ten</title><category>News</category></programme>
        <programme start="20260215200000 +0000" stop="20260215220000 +0000" channel="film4.uk"><title>Alien</title><category>Film</category>
          <category>Science fiction</category><date>1979</date></programme>
        <programme start="20260220200000 +0000" stop="20260220220000 +0000" channel="film4.uk"><title>Later</title><category>Film</category></programme>
        </tv>
        """


    /// Adds a feed on the admin page as an admin does, `channels` as the form names them ("lineup:ID", "group:Films");
    /// the path of its plain XMLTV address.
    static func addFeed(_ admin: CookieJar, _ client: some TestClientProtocol, name: String, channels: String, days: Int = 2,
                        shape: String = "media-server") async throws -> String {
        let page = String(buffer: try await admin.send(client, "/admin/feeds", method: .post,
                                                       form: ["name": name, "channels": channels, "days": String(days), "shape": shape]).body)
        #expect(page.contains("Added the feed."))
        let address = try #require(page.components(separatedBy: "Plain: <code>").dropFirst().first?.components(separatedBy: "</code>").first)
        return try #require(URL(string: address)?.path)
    }

    @Test func aPlexFeedForALineupIsShapedAndValid() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            let ada = try #require(try await server.store.profiles().first)
            let path = try await Self.addFeed(admin, client, name: "Living room Plex", channels: "lineup:\(ada.id.rawValue)")
            #expect(path.hasPrefix("/xmltv/") && path.hasSuffix(".xml"))

            let response = try await client.execute(uri: path, method: .get)
            #expect(response.status == .ok && response.headers[.contentType] == "application/xml; charset=utf-8")
            let feed = String(buffer: response.body)
            // Films: Movie first, no episode number. Episodes: both systems; none given: the air date.
            #expect(feed.contains(#"<category lang="en">Movie</category>"#) && feed.contains("<category>Science fiction</category>"))
            #expect(feed.contains(#"<episode-num system="xmltv_ns">1.4/10.</episode-num>"#) && feed.contains(#"<episode-num system="onscreen">S02E05</episode-num>"#))
            #expect(feed.contains(#"<episode-num system="xmltv_ns">37.6.</episode-num>"#) && feed.contains(#"<episode-num system="onscreen">S38E07</episode-num>"#))
            #expect(feed.contains(#"<episode-num system="original-air-date">2026-02-15 21:30:00</episode-num>"#))
            #expect(feed.contains(#"<category lang="en">News</category>"#) && feed.contains(#"<category lang="en">Drama</category>"#))
            let alien = try #require(feed.components(separatedBy: "<title>Alien</title>").last?.components(separatedBy: "</programme>").first)
            #expect(!alien.contains("episode-num") && alien.contains("<date>1979</date>"))
            #expect(feed.contains("<date>20260215</date>") && !feed.contains(#"lang="""#))
            // Only the feed's days (today and tomorrow), the number as a display name, the logo from tvguide's cache.
            #expect(!feed.contains("Later"))
            #expect(feed.contains("<display-name>101</display-name>") && feed.contains(#"<icon src="http://localhost/logo?c=bbc1.uk&amp;v="#))
            #expect(!feed.contains("logos.example"))

            // Valid XMLTV, read by the XMLTV project's own validator.
            if XMLTVValidator.isAvailable {
                let complaints = try await XMLTVValidator.complaints(about: Data(feed.utf8))
                #expect(complaints.isEmpty, "\(complaints)")
            }

            // Unchanged: 304. The token reads this feed and nothing else.
            let tag = try #require(response.headers[.eTag])
            #expect(try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: tag]).status == .notModified)
            let token = String(path.dropFirst("/xmltv/".count).dropLast(4))
            #expect(try await client.execute(uri: path + ".gz", method: .get).headers[.contentType] == "application/gzip")
            #expect(try await client.execute(uri: "/api/profiles", method: .get, headers: [.authorization: "Bearer \(token)"]).status != .ok)
            #expect(try await client.execute(uri: "/xmltv/nothing.xml", method: .get).status == .notFound)

            // The admin page shows what it carries, its channels and size.
            let listed = String(buffer: try await admin.send(client, "/admin/feeds").body)
            #expect(listed.contains("Ada&#39;s channels") || listed.contains("Ada's channels"))
            #expect(listed.contains("<td>2</td><td>Plex and Jellyfin</td><td>2</td>"))
            // A listings change is a new version; removed, the address answers no more.
            _ = try await admin.send(client, "/admin/channels/logo", method: .post, form: ["channel": "film4.uk", "logo": "https://logos.example/film4.png"])
            let changed = try await client.execute(uri: path, method: .get, headers: [.ifNoneMatch: tag])
            #expect(changed.status == .ok && String(buffer: changed.body).contains("logo?c=film4.uk"))
            let id = try #require(try await server.store.lineupFeeds().first?.id)
            _ = try await admin.send(client, "/admin/feeds/remove", method: .post, form: ["id": "\(id)"])
            #expect(try await client.execute(uri: path, method: .get).status == .notFound)
        }
    }

    @Test func aGroupFeedCarriesTheGroupAsListed() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/channels/groups", method: .post, form: ["name": "Films", "channels": "film4.uk"])
            let path = try await Self.addFeed(admin, client, name: "Kodi", channels: "group:Films", days: 14, shape: "xmltv")
            let feed = String(buffer: try await client.execute(uri: path, method: .get).body)
            #expect(feed.contains(#"<channel id="film4.uk">"#) && !feed.contains(#"<channel id="bbc1.uk">"#))
            #expect(feed.contains("<title>Later</title>") && !feed.contains("<category lang=\"en\">Movie</category>"), "as listed, 14 days")
            let refused = try await admin.send(client, "/admin/feeds", method: .post, form: ["name": "Kodi", "channels": "group:Films", "days": "30", "shape": "xmltv"])
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("Days takes a whole number"))
            // Hostile numbers: refused or ignored, never a crash.
            for days in ["9223372036854775807", "-1", "1e308", "nan", "99999999999999999999"] {
                let hostile = try await admin.send(client, "/admin/feeds", method: .post, form: ["name": "X", "channels": "group:Films", "days": days, "shape": "xmltv"])
                #expect(hostile.status == .badRequest, "\(days)")
            }
            for id in ["9223372036854775807", "9223372036854775808", "-1", "nan"] {
                #expect(try await admin.send(client, "/admin/feeds/remove", method: .post, form: ["id": id]).status.code < 500, "\(id)")
                #expect(try await admin.send(client, "/admin/feeds/reloads/tell", method: .post, form: ["id": id]).status == .badRequest, "\(id)")
                #expect(try await admin.send(client, "/admin/feeds/reloads", method: .post,
                                             form: ["feed": id, "kind": "plex", "address": "http://127.0.0.1:9", "secret": "x"]).status == .badRequest, "\(id)")
            }
            #expect(try await client.execute(uri: "/logo?c=" + String(repeating: "a", count: 5000) + "&v=9223372036854775808", method: .get).status == .notFound)
        }
    }
}
