import Foundation
import GuideCore
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import Testing

/// Channel groups made by hand, each viewer's favourites, the group a viewer chose last and the group guests see. On
/// both stores.
@Suite struct ChannelGroupTests {
    static func names(_ html: String) -> [String] {
        html.components(separatedBy: #"<span class="name" dir="auto">"#).dropFirst().compactMap { $0.components(separatedBy: "</span>").first }
    }

    @Test func groupsFavouritesAndTheGuestsGroup() async throws {
        let server = try await TestServer(listings: PlaylistSourceTests.listings, now: PlaylistSourceTests.now)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            // A group by ids and names, in the admin's order; a line naming no channel keeps what was typed.
            let wrong = try await admin.send(client, "/admin/channels/groups", method: .post, form: ["name": "Evening", "channels": "bbc1.uk\nNo Such TV"])
            #expect(wrong.status == .badRequest && String(buffer: wrong.body).contains("No channel is called “No Such TV”"))
            #expect(String(buffer: wrong.body).contains("bbc1.uk\nNo Such TV</textarea>"))
            let saved = try await admin.send(client, "/admin/channels/groups", method: .post, form: ["name": "Evening", "channels": "channel 5\nbbc1.uk"])
            #expect(saved.status == .ok && String(buffer: saved.body).contains("Saved the group Evening (2 channels)."))
            #expect(try await server.store.channelGroups() == [ChannelGroup(name: "Evening", channels: [ChannelID("five.uk"), ChannelID("bbc1.uk")])])
            let reserved = try await admin.send(client, "/admin/channels/groups", method: .post, form: ["name": "Favourites", "channels": "bbc1.uk"])
            #expect(reserved.status == .badRequest)

            // Guests: every channel until an admin chooses their group; then that group, with "All channels" a tap away.
            let guest = CookieJar()
            #expect(Self.names(String(buffer: try await guest.send(client, "/now").body)) == ["BBC One", "ITV1", "Channel 5"])
            _ = try await admin.send(client, "/admin/channels/guests", method: .post, form: ["group": "Evening"])
            let guestNow = String(buffer: try await guest.send(client, "/now").body)
            #expect(Self.names(guestNow) == ["BBC One", "Channel 5"])
            #expect(guestNow.contains(#"<a href="/now?group=" class="chip">All channels</a>"#) && !guestNow.contains("Favourites"))
            #expect(Self.names(String(buffer: try await guest.send(client, "/now?group=").body)) == ["BBC One", "ITV1", "Channel 5"])
            #expect(!String(buffer: try await guest.send(client, "/now").body).contains(#"class="favourite"#), "no star without a profile")

            // A viewer's favourites: one click, back to the page; a group of their own.
            let starred = try await admin.send(client, "/favourites", method: .post, form: ["channel": "itv1.uk", "favourite": "1"],
                                               headers: [.referer: "http://localhost/now?page=0"])
            #expect(starred.status == .seeOther && starred.headers[.location] == "/now?page=0")
            let favourites = String(buffer: try await admin.send(client, "/now?group=Favourites").body)
            #expect(Self.names(favourites) == ["ITV1"] && favourites.contains(#"aria-pressed="true""#))
            #expect(favourites.contains(#"<a href="/now?group=Favourites" class="chip current" aria-current="true">★ Favourites</a>"#))
            let news = try #require(try await server.store.search(SearchQuery(["soap"])).first)
            #expect(String(buffer: try await admin.send(client, "/programmes/\(news.id.rawValue)").body).contains(#"aria-pressed="true""#))
            let guestStar = try await guest.send(client, "/favourites", method: .post, form: ["channel": "itv1.uk", "favourite": "1"])
            #expect(guestStar.status == .seeOther && guestStar.headers[.location]?.hasPrefix("/signin") == true)

            // Remembered per profile when chosen on this site; a link from another site changes nothing.
            #expect(Self.names(String(buffer: try await admin.send(client, "/now").body)) == ["BBC One", "ITV1", "Channel 5"])
            _ = try await admin.send(client, "/now?group=Favourites", headers: [HeaderNames.fetchSite!: "same-origin"])
            #expect(Self.names(String(buffer: try await admin.send(client, "/now").body)) == ["ITV1"])
            _ = try await admin.send(client, "/now?group=Evening", headers: [HeaderNames.fetchSite!: "cross-site"])
            let remembered = String(buffer: try await admin.send(client, "/").body)
            #expect(remembered.contains(#"data-group="Favourites""#) && remembered.contains(#"data-total="1""#))
            // The grid's script names its group, blank for every channel, whatever is remembered.
            let rows = try await admin.send(client, "/grid/rows?day=2026-02-15&group=")
            #expect(String(buffer: rows.body).components(separatedBy: #""html":"#).count - 1 == 3)
            _ = try await admin.send(client, "/now?group=", headers: [HeaderNames.fetchSite!: "same-origin"])
            #expect(try await server.store.rememberedGroup(of: try #require(try await server.store.profiles().first).id) == nil)

            // Taken out again; a removed group is no longer the guests'.
            _ = try await admin.send(client, "/favourites", method: .post, form: ["channel": "itv1.uk", "favourite": "0"])
            #expect(Self.names(String(buffer: try await admin.send(client, "/now?group=Favourites").body)).isEmpty)
            _ = try await admin.send(client, "/admin/channels/groups/remove", method: .post, form: ["name": "Evening"])
            #expect(try await server.store.guestGroup() == nil)
            #expect(Self.names(String(buffer: try await guest.send(client, "/now").body)).count == 3)
        }
    }
}
