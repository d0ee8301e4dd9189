import GuideApplication
import GuideCore
import GuideStore

/// The channels each viewer sees, in their order.
struct Lineups: Sendable {
    let directory: ChannelDirectory
    let store: any AccountStore

    /// The viewer's chosen channels that still exist, else every channel with listings (a feed describing 3,000
    /// channels may list programmes for 160 of them).
    func of(_ context: some GuideContext) async throws -> (channels: [Channel], isChosen: Bool) {
        let snapshot = try await directory.snapshot()
        guard let profile = context.viewer?.profile else { return (snapshot.listed, false) }
        let chosen = try await store.lineup(of: profile.id).compactMap(snapshot.channel)
        return chosen.isEmpty ? (snapshot.listed, false) : (chosen, true)
    }
}
