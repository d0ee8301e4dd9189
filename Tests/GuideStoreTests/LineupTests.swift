import Foundation
import GuideCore
import GuideStore
import Testing

/// A profile's lineup keeps its order and drops repeats, however long (it is written a thousand rows a statement).
@Suite struct LineupTests {
    @Test func aLongLineupKeepsItsOrderAndDropsRepeats() async throws {
        let fixture = try await StoreFixture()
        let store = fixture.store
        let profile = try await store.createProfile(name: "Viewer", role: .viewer, secretKind: .password, secretHash: "x")
        let channels = (0..<2_500).map { ChannelID("channel-\(2_499 - $0).example") }
        try await store.setLineup(channels + [channels[0], channels[1_234]], of: profile.id)
        #expect(try await store.lineup(of: profile.id) == channels)
        try await store.setLineup([channels[7]], of: profile.id)
        #expect(try await store.lineup(of: profile.id) == [channels[7]])
        try await store.setLineup([], of: profile.id)
        #expect(try await store.lineup(of: profile.id).isEmpty)
    }
}
