import Foundation
import GuideCore
import GuideStore
import Testing

/// What a refresh records of the channels a feed offers: each channel seen again is seen at this refresh, under the
/// name it has now, however many there are (a large provider offers 10,000 at every refresh).
@Suite struct OfferTests {
    static let t0 = Date(timeIntervalSince1970: 1_771_185_600)

    @Test func channelsSeenAgainAreSeenNowUnderTheirNewNames() async throws {
        let fixture = try await StoreFixture()
        let source = SourceName("feed")
        try await fixture.store.addSource(SourceDefinition(name: source, format: .xmltv, location: "/srv/feed.xml"))
        let offered = (0..<1_500).map { OfferedChannel(id: ChannelID("c\($0)"), name: "Channel \($0)") }
        _ = try await fixture.store.recordOffer(offered, of: source, at: Self.t0, complete: true)
        var renamed = offered
        renamed[7].name = "Channel seven"
        let t1 = Self.t0.addingTimeInterval(86_400)
        _ = try await fixture.store.recordOffer(renamed, of: source, at: t1, complete: true)
        let channels = Dictionary(uniqueKeysWithValues: try await fixture.store.sourceChannels(of: source).map { ($0.id, $0) })
        #expect(channels.count == 1_500)
        #expect(channels.values.allSatisfy { $0.lastSeen == t1 })
        #expect(channels[ChannelID("c7")]?.name == "Channel seven" && channels[ChannelID("c8")]?.name == "Channel 8")
    }

    /// New channels go in a thousand a statement: every one is stored with its name, kept as the source says and seen
    /// at this refresh; one offered twice keeps the name it was offered under last; a channel the provider renamed
    /// in the same offer moves and keeps feeding the guide channel it fed.
    @Test func newChannelsAreStoredSeenNowAlongsideARename() async throws {
        let fixture = try await StoreFixture()
        let source = SourceName("feed")
        try await fixture.store.addSource(SourceDefinition(name: source, format: .xmltv, location: "/srv/feed.xml"))
        let first = [OfferedChannel(id: ChannelID("a"), name: "Alpha"),
                     OfferedChannel(id: ChannelID("b"), name: "Beta")]
        _ = try await fixture.store.recordOffer(first, of: source, at: Self.t0, complete: true)
        let fresh = (0..<2_500).map { OfferedChannel(id: ChannelID("n\($0)"), name: "New \($0)") }
        let again = [OfferedChannel(id: ChannelID("a2"), name: "Alpha"), first[1]] + fresh
            + [OfferedChannel(id: ChannelID("n5"), name: "New five")]
        let t1 = Self.t0.addingTimeInterval(86_400)
        _ = try await fixture.store.recordOffer(again, of: source, at: t1, complete: true)
        let stored = try await fixture.store.sourceChannels(of: source)
        let channels = Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0) })
        #expect(channels.count == 2_502)
        #expect(channels.values.allSatisfy { $0.lastSeen == t1 && $0.keep })
        #expect(channels[ChannelID("n2499")]?.name == "New 2499" && channels[ChannelID("n5")]?.name == "New five")
        #expect(channels[ChannelID("a")] == nil && channels[ChannelID("a2")]?.mappedTo == ChannelID("a"))
    }
}
