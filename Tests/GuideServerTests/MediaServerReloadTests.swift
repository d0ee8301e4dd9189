import Foundation
import GuideCore
import GuideReminders
@testable import GuideServer
import GuideStore
import Hummingbird
import HummingbirdTesting
import TestReceivers
import Testing

/// Media servers told to reload a feed when its listings change: loopback servers acting as Jellyfin (its Refresh
/// Guide task, an API key) and Plex (each DVR's reloadGuide, a token), and a webhook, with the paths, methods and
/// headers their APIs document. On both stores.
@Suite struct MediaServerReloadTests {
    // SYNTHETIC answers in the shape Jellyfin's and Plex's APIs give (ids made up).
    static let jellyfinTasks = #"[{"Name":"Scan Media Library","Key":"RefreshLibrary","Id":"7738148ffcd07979c7ceb148e06b3aed"},"#
        + #"{"Name":"Refresh Guide","Key":"RefreshGuide","Id":"bea9b218c97bbf98c5dc1303bdb9a0ca","State":"Idle"}]"#
    static let plexDVRs = #"{"MediaContainer":{"size":1,"Dvr":[{"key":"16","uuid":"dvr-1","lineup":"lineup://tv.plex.providers.epg.xmltv/x"}]}}"#

    @Test func jellyfinPlexAndAWebhookAreToldWhenTheFeedsListingsChange() async throws {
        let server = try await TestServer(listings: LineupFeedTests.listings, now: LineupFeedTests.now)
        let jellyfin = try await Receiver(), plex = try await Receiver(), hook = try await Receiver()
        jellyfin.answer("/ScheduledTasks", json: Self.jellyfinTasks)
        jellyfin.answer("/ScheduledTasks/Running/bea9b218c97bbf98c5dc1303bdb9a0ca", with: [204])
        plex.answer("/livetv/dvrs", json: Self.plexDVRs)
        try await server.run { client in
            let admin = try await AccountTests.admin(client)
            _ = try await admin.send(client, "/admin/channels/groups", method: .post, form: ["name": "BBC", "channels": "bbc1.uk"])
            _ = try await admin.send(client, "/admin/feeds", method: .post, form: ["name": "Plex", "channels": "group:BBC", "days": "2", "shape": "media-server"])
            let feed = try #require(try await server.store.lineupFeeds().first)
            for (kind, address, secret) in [("jellyfin", jellyfin.url(""), "jf-key"), ("plex", plex.url("/"), "plex-token"),
                                            ("webhook", hook.url("/hook"), "shh")] {
                let added = try await admin.send(client, "/admin/feeds/reloads", method: .post,
                                                 form: ["feed": "\(feed.id)", "kind": kind, "address": address, "secret": secret])
                #expect(added.status == .ok, "\(kind)")
            }
            let refused = try await admin.send(client, "/admin/feeds/reloads", method: .post,
                                               form: ["feed": "\(feed.id)", "kind": "plex", "address": plex.url("/")])
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("Plex needs its token"))

            let reloads = server.services.reloads
            var told = try await reloads.tellChanged()
            #expect(told.count == 3 && told.allSatisfy(\.outcome.succeeded), "\(told)")
            // Jellyfin: the task list, then its Refresh Guide task started, with the API key as its API documents.
            #expect(jellyfin.requests.map { "\($0.method) \($0.path)" } == ["GET /ScheduledTasks", "POST /ScheduledTasks/Running/bea9b218c97bbf98c5dc1303bdb9a0ca"])
            #expect(jellyfin.requests.allSatisfy { $0.headers["authorization"]?.hasPrefix("MediaBrowser Client=\"tvguide\"") == true
                && $0.headers["authorization"]?.hasSuffix(#"Token="jf-key""#) == true })
            // Plex: the DVRs, then each one's guide reloaded, with the token.
            #expect(plex.requests.map { "\($0.method) \($0.path)" } == ["GET /livetv/dvrs", "POST /livetv/dvrs/16/reloadGuide"])
            #expect(plex.requests.allSatisfy { $0.headers["x-plex-token"] == "plex-token" && $0.headers["accept"] == "application/json" })
            // The webhook: what changed, signed.
            let posted = try #require(hook.requests.first)
            #expect(posted.method == "POST" && posted.json["event"] as? String == "listings-changed" && posted.json["feed"] as? String == "Plex")
            #expect(posted.headers["x-tvguide-signature"] == "sha256=" + ReminderSenders.signature(of: posted.body, secret: "shh"))

            // Nothing changed: nobody is told again. A change on a channel the feed does not carry: still nobody.
            #expect(try await reloads.tellChanged().isEmpty)
            try await server.importListings("""
                <tv><programme start="20260215220000 +0000" stop="20260215230000 +0000" channel="film4.uk"><title>Aliens</title></programme></tv>
                """, as: "more")
            #expect(try await reloads.tellChanged().isEmpty)
            // A change the feed carries: all three again. Plex refusing its token is shown, and tried again next round.
            plex.answer("/livetv/dvrs", with: [401, 200])
            try await server.importListings("""
                <tv><programme start="20260215220000 +0000" stop="20260215230000 +0000" channel="bbc1.uk"><title>Newsnight</title></programme></tv>
                """, as: "more")
            told = try await reloads.tellChanged()
            #expect(told.count == 3 && told.filter { !$0.outcome.succeeded }.map(\.outcome.text) == ["Plex answered 401 to the DVR list: check the token"])
            let page = String(buffer: try await admin.send(client, "/admin/feeds").body)
            #expect(page.contains("Plex answered 401 to the DVR list: check the token") && page.contains("Jellyfin started its Refresh Guide task"))
            told = try await reloads.tellChanged()
            #expect(told.map(\.outcome.text) == ["Plex reloads the guide of 1 DVR"])

            // "Tell now" calls one at once and says what happened.
            let target = try #require(try await server.store.reloadTargets().first { $0.kind == .jellyfin })
            let now = try await admin.send(client, "/admin/feeds/reloads/tell", method: .post, form: ["id": "\(target.id)"])
            #expect(String(buffer: now.body).contains("Jellyfin: Jellyfin started its Refresh Guide task."))
            #expect(jellyfin.requests.count == 6)
        }
        try await jellyfin.stop()
        try await plex.stop()
        try await hook.stop()
    }
}
