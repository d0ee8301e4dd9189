import Foundation
import GuideCore
@testable import GuideServer
import GuideStore
import TestReceivers
import GuideReminders
import Hummingbird
import HummingbirdTesting
import Metrics
import Prometheus
import StoreTestSupport
import Testing

/// `/metrics` in Prometheus' text format: requests by route pattern and status, refreshes, what the store holds; who
/// may read it. On both stores.
@Suite struct MetricsTests {
    /// The process's one registry: swift-metrics is bootstrapped once a process.
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    @Test func requestsRefreshesAndTheStoreAreMeasured() async throws {
        let registry = Self.registry  // Bootstrapped before anything is measured.
        let server = try await TestServer(listings: PlaylistSourceTests.listings, now: PlaylistSourceTests.now)
        let path = server.folder + "/guide.xml"
        try PlaylistSourceTests.listings.write(toFile: path, atomically: true, encoding: .utf8)
        try await server.store.addSource(SourceDefinition(name: SourceName("metered"), format: .xmltv, location: path))
        _ = try await server.scheduler.refresh([SourceName("metered")])
        try await server.run(.live, change: { $0.metrics = registry }) { client in
            for uri in ["/now", "/now", "/programmes/999999"] { _ = try await client.execute(uri: uri, method: .get) }
            let answer = try await client.execute(uri: "/metrics", method: .get)
            #expect(answer.status == .ok && answer.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(buffer: answer.body)
            // By route pattern, never the path asked for: a missing programme is its pattern's 404.
            #expect(text.contains(#"hb_requests{http_route="/now",http_request_method="GET",http_response_status_code="200"}"#))
            #expect(text.contains(#"http_route="/programmes/{id}",http_request_method="GET",http_response_status_code="404""#))
            #expect(text.contains("http_server_request_duration_bucket{") && !text.contains("/programmes/999999"))
            #expect(text.contains(#"tvguide_refreshes_total{source="metered",outcome="imported"} 1"#), "\(text.prefix(3000))")
            #expect(text.contains("tvguide_refresh_duration_seconds"))
            #expect(text.contains("tvguide_programmes 3.0") && text.contains("tvguide_channels 3.0"))
            #expect(text.contains(#"tvguide_source_programmes{source="metered"}"#))
            #expect(text.contains(#"tvguide_source_listings_end_seconds{source="metered"}"#))
            // The store's pool: its limit, connections lent now, and the waits for one (every store this test process
            // opens counts under one label, so the number lent now is not this store's alone).
            let store = TestDatabase.postgres == nil ? "sqlite" : "postgres"
            #expect(text.contains(#"tvguide_store_connections_limit{store="\#(store)"}"#))
            #expect(text.contains(#"tvguide_store_connections_in_use{store="\#(store)"} "#))
            #expect(text.contains(#"tvguide_store_connection_wait_seconds_count{store="\#(store)"}"#))
        }
        // Who may read it.
        try await server.run(.router, change: { $0.metrics = registry; $0.settings.metrics = .token }) { client in
            let status = try await client.execute(uri: "/metrics", method: .get).status
            #expect(status == .unauthorized)
        }
    }

    /// Each reminder delivery counted by channel kind and outcome: sent to a receiver that takes it, given up on one
    /// that answers 410, failed (to be retried) on one that answers 500.
    @Test func reminderDeliveriesAreCountedByChannelAndOutcome() async throws {
        // A registry of the test's own: other tests in this process deliver reminders at the same time.
        let registry = PrometheusCollectorRegistry()
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let store = try await TestDatabase.open(TestDatabase.location(in: TestScratch.folder("metrics")))
        let receiver = try await Receiver()
        receiver.answer("/gone", with: [410])
        receiver.answer("/broken", with: [500])
        let profile = try await store.createProfile(name: "Sam", role: .admin, secretKind: .password, secretHash: "x", onlyIfFirst: false)
        for (kind, name, path) in [(NewDeliveryChannel.Kind.ntfy, "Phone", "/alerts"), (.webhook, "Gone", "/gone"), (.webhook, "Broken", "/broken")] {
            _ = try await store.addDeliveryChannel(NewDeliveryChannel(profile: profile.id, kind: kind, name: name, target: receiver.url(path),
                                                                      secret: nil), at: t0)
        }
        let start = t0.addingTimeInterval(15 * 60)
        _ = try await store.addReminder(NewReminder(profile: profile.id, kind: .programme, channel: ChannelID("bbc1.uk"), channelName: "BBC One",
                                                    title: "Film", start: start, stop: start.addingTimeInterval(3600), leadMinutes: 15), at: t0)
        let counted = { (channel: String, outcome: String) -> Double in
            let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
            let prefix = #"tvguide_reminder_deliveries_total{channel="\#(channel)",outcome="\#(outcome)"} "#
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) } ?? 0
        }
        let dispatcher = ReminderDispatcher(store: store, senders: ReminderSenders(transport: TestHTTP.outbound), clock: ContinuousClock(),
                                            now: { t0 }, metrics: PrometheusMetricsFactory(registry: registry))
        #expect(try await dispatcher.sendDue().claimed == 1)
        #expect(counted("ntfy", "sent") == 1)
        #expect(counted("webhook", "given-up") == 1)
        #expect(counted("webhook", "failed") == 1)
        #expect(counted("webhook", "sent") == 0)
    }
}
