import Foundation
import GuideCore
import GuideStore
import XMLTV

/// What a configured source's listings go through on their way into the store: its channel plan (which channels,
/// as which guide channel) and its time shift. Its local zone is applied by the readers, which still see the
/// times as written.
struct ListingTransform: Sendable {
    var plan: ChannelPlan = .everything
    /// Seconds added to every start and stop.
    var timeShift = 0
    var localZone: TimeZone?

    /// The item as the guide stores it, or nil when its channel is not kept.
    func apply(_ item: XMLTVItem) -> XMLTVItem? {
        switch item {
        case .channel(var channel):
            guard let target = plan.guideChannel(for: channel.id) else { return nil }
            if target != channel.id {
                // A channel mapped onto an existing guide channel leaves that channel's own definition alone.
                guard !plan.existing.contains(target) else { return nil }
                channel.id = target
            }
            return .channel(channel)
        case .programme(var programme, let line):
            guard let target = plan.guideChannel(for: programme.channel) else { return nil }
            // Changed only when it differs: the item still holds the programme, so a change copies all its fields
            // (``Programme``'s box), which setting a channel to itself cost every programme of every import.
            if target != programme.channel { programme.channel = target }
            if timeShift != 0 {
                programme.start += TimeInterval(timeShift)
                programme.stop = programme.stop.map { $0 + TimeInterval(timeShift) }
            }
            return .programme(programme, line: line)
        }
    }
}
