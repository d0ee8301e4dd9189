import Foundation
import GuideCore
import GuideIngest
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Timeshift channels: another channel's programmes an hour later, with a name and number of their own, in the
/// guide, search and the XMLTV feed, following the base channel's next import. On both stores.
@Suite struct TimeshiftChannelTests {
    @Test func aPlusOneChannelFollowsItsBaseChannel() async throws {
        let server = try await TestServer(listings: PlaylistSourceTests.listings, now: PlaylistSourceTests.now)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            // Refused: no such channel, no offset, more than a day, an id the listings use.
            for (form, message) in [(["base": "No Such TV", "offset": "60"], "No channel is called"),
                                    (["base": "BBC One", "offset": "0"], "1 to 1,440 minutes"),
                                    (["base": "BBC One", "offset": "5000"], "from -1,440 to 1,440"),
                                    (["base": "BBC One", "offset": "9223372036854775807"], "from -1,440 to 1,440"),
                                    (["base": "BBC One", "offset": "-9223372036854775809"], "from -1,440 to 1,440"),
                                    (["base": "BBC One", "offset": "1e308"], "from -1,440 to 1,440"),
                                    (["base": "BBC One", "offset": "nan"], "from -1,440 to 1,440"),
                                    (["base": "BBC One", "offset": "60", "id": "itv1.uk"], "is a channel from the listings already")] {
                let refused = try await admin.send(client, "/admin/channels/timeshift", method: .post, form: form)
                #expect(refused.status == .badRequest && String(buffer: refused.body).contains(message), "\(form)")
            }
            let saved = try await admin.send(client, "/admin/channels/timeshift", method: .post,
                                             form: ["base": "BBC One", "offset": "60", "number": "801"])
            #expect(String(buffer: saved.body).contains("BBC One +1 shows the programmes of BBC One +1: 1 now."))
            let plusOne = ChannelID("bbc1.uk+1")
            let described = try #require(try await TestServer.apiChannels(client)["bbc1.uk+1"])
            #expect(described["name"] as? String == "BBC One +1" && described["number"] as? String == "801")
            var shifted = try await server.store.programmes(on: plusOne, in: TimeWindow(start: PlaylistSourceTests.now, end: PlaylistSourceTests.now + 86_400))
            #expect(shifted.map(\.programme.title) == ["News"] && shifted.first?.programme.start == PlaylistSourceTests.now + 3600)
            #expect(shifted.first?.end == PlaylistSourceTests.now + 7200)
            // In search, On now (next hour) and the XMLTV feed like any channel.
            #expect(Set(try await server.store.search(SearchQuery(["news"])).map(\.programme.channel)) == [ChannelID("bbc1.uk"), plusOne])
            #expect(String(buffer: try await client.execute(uri: "/now", method: .get).body).contains("BBC One +1"))
            let feed = String(buffer: try await client.execute(uri: "/xmltv.xml", method: .get).body)
            #expect(feed.contains(#"<channel id="bbc1.uk+1">"#) && feed.contains(#"start="20260215210000 +0000" stop="20260215220000 +0000" channel="bbc1.uk+1""#))

            // The base channel's next import: the timeshift channel follows.
            try await server.importListings("""
                <tv><channel id="bbc1.uk"><display-name>BBC One</display-name></channel>
                <programme start="20260215200000 +0000" stop="20260215203000 +0000" channel="bbc1.uk"><title>Late News</title></programme>
                <programme start="20260215203000 +0000" stop="20260215210000 +0000" channel="bbc1.uk"><title>Weather</title></programme>
                </tv>
                """, as: "test")
            shifted = try await server.store.programmes(on: plusOne, in: TimeWindow(start: PlaylistSourceTests.now, end: PlaylistSourceTests.now + 86_400))
            #expect(shifted.map(\.programme.title) == ["Late News", "Weather"] && shifted.last?.programme.start == PlaylistSourceTests.now + 5400)

            // Removed: its programmes go with it.
            let page = String(buffer: try await admin.send(client, "/admin/channels").body)
            #expect(page.contains("<td>BBC One +1") && page.contains("BBC One +1</td>"))
            _ = try await admin.send(client, "/admin/channels/timeshift/remove", method: .post, form: ["id": "bbc1.uk+1"])
            #expect(try await server.store.programmes(on: plusOne, in: TimeWindow(start: PlaylistSourceTests.now, end: PlaylistSourceTests.now + 86_400)).isEmpty)
            #expect(try await server.store.timeshiftChannels().isEmpty)
        }
    }
}
