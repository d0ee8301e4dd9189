import Foundation
import GuideCore
import GuideIngest
import GuideStore
import Hummingbird

/// `/admin/health`: each source's last refresh and the channels that need a look.
extension SourcePages {
    struct HealthModel: PageModel {
        var chrome: Chrome
        var title: String
        var sources: [SourceEntry]
        var channels: [HealthEntry]
        var summary: String
        var showsAll: Bool
        var hiddenCount: Int
        var showHidden: String
    }

    struct HealthEntry {
        var id: String
        var name: String
        var sources: String
        var ending: String
        var endsSoon: Bool
        var gaps: String?
        var warnings: [String]
    }

    func healthPage(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let (clock, words) = (settings.clock(context), pages.words(context))
        let instant = settings.now()
        let showsAll = request.uri.queryParameters.get("all") != nil
        let (statuses, health) = (try await store.sources(), try await store.channelHealth(at: instant))
        let busy = try await scheduler.refreshing()
        let attention = health.filter { $0.needsAttention(at: instant) }
        // Problems first: the soonest ending, then by name.
        let listed = (showsAll ? health : attention).sorted {
            ($0.needsAttention(at: instant) ? 0 : 1, $0.listingsEnd ?? .distantPast, $0.name) < ($1.needsAttention(at: instant) ? 0 : 1, $1.listingsEnd ?? .distantPast, $1.name)
        }
        let soon = instant.addingTimeInterval(24 * 3600)
        let model = await HealthModel(
            chrome: pages.chrome(context, section: "admin"), title: words("Health"),
            sources: statuses.map { Self.entry($0, clock: clock, words: words, now: instant, refreshing: busy) },
            channels: listed.map { channel in
                HealthEntry(
                    id: channel.channel.rawValue, name: channel.name, sources: channel.sources.joined(separator: ", "),
                    ending: channel.ending(from: instant, words: words), endsSoon: (channel.listingsEnd ?? .distantPast) < soon,
                    gaps: channel.gapsAhead(words, clock: clock),
                    warnings: channel.warnings)
            },
            summary: ChannelHealth.summary(health, at: instant, words),
            showsAll: showsAll, hiddenCount: health.count - attention.count,
            showHidden: words.plural("Show the {count} channel that is fine too", "Show the {count} channels that are fine too",
                                     count: health.count - attention.count))
        return try pages.page("health", model)
    }
}
