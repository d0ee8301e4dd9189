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
            guard place(&programme) else { return nil }
            return .programme(programme, line: line)
        case .remembered(var programme, let line, let content):
            guard place(&programme) else { return nil }
            return .remembered(programme, line: line, content: content)
        case .repeated(var repeated):
            guard let placed = placed(repeated.channel, repeated.start, repeated.stop) else { return nil }
            (repeated.channel, repeated.start, repeated.stop) = placed
            return .repeated(repeated)
        }
    }

    /// Puts `programme` on its guide channel at its shifted times; false when its channel is not kept.
    private func place(_ programme: inout Programme) -> Bool {
        guard let placed = placed(programme.channel, programme.start, programme.stop) else { return false }
        // Changed only when it differs: the item still holds the programme, so a change copies all its fields
        // (``Programme``'s box), which setting a channel to itself cost every programme of every import.
        if placed.channel != programme.channel { programme.channel = placed.channel }
        if timeShift != 0 { (programme.start, programme.stop) = (placed.start, placed.stop) }
        return true
    }

    /// The guide channel and times of a programme on `channel` from `start` to `stop`; nil when its channel is not
    /// kept.
    private func placed(_ channel: ChannelID, _ start: Date, _ stop: Date?)
        -> (channel: ChannelID, start: Date, stop: Date?)? {
        guard let target = plan.guideChannel(for: channel) else { return nil }
        let shift = TimeInterval(timeShift)
        return timeShift == 0 ? (target, start, stop) : (target, start + shift, stop.map { $0 + shift })
    }
}
