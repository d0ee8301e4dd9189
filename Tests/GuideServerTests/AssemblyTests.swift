import Foundation
import GuideApplication
import GuideHTTP
@testable import GuideHomeAssistant
import GuideReminders
@testable import GuideServer
import Hummingbird
import HummingbirdTesting
import Testing

/// The assembly (issue 42, point 1): `GuideServices(parts)`, as `serve` and the tests call it, builds each shared service
/// once, and every door uses that one: the web routes, the feeds, media-server reloads and Home Assistant.
@Suite struct AssemblyTests {
    @Test func everyDoorUsesTheOneInstanceOfEachService() async throws {
        // Given the services assembled once, as serve assembles them.
        let server = try await TestServer(listings: WebTests.listings, now: WebTests.evening)
        let services = server.services
        let bridge = HomeAssistantBridge(broker: MQTTSettings(host: "127.0.0.1", port: 9, tls: false), guide: services,
                                         clock: ContinuousClock(), site: nil, profile: nil)

        // Then Home Assistant, the feeds, the reloader and the reminder actions hold the same directory, export cache,
        // desk and quota.
        #expect(bridge.directory === services.directory)
        #expect(bridge.reminders.testSends === services.reminderActions.testSends)
        #expect(bridge.reminders.directory === services.directory)
        #expect(services.reminderActions.directory === services.directory)
        #expect(services.lineupFeeds.directory === services.directory)
        #expect(services.lineupFeeds.cache === services.exports)
        #expect(services.reloads.feeds.directory === services.directory)
        #expect(services.reloads.feeds.cache === services.exports)
        #expect(services.directory.reads == 0)

        // When the router made from them serves the grid, On now and the XMLTV feed.
        let router = try GuideServer.router(services)
        try await Application(router: router).test(.router) { client in
            for path in ["/", "/now", "/xmltv.xml", "/xmltv.xml.gz"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .ok, "\(path)")
            }
        }

        // Then they read the channels through that one directory, once for this version of the listings.
        #expect(services.directory.reads == 1)
        _ = try await services.directory.snapshot()
        #expect(services.directory.reads == 1)
    }
}
