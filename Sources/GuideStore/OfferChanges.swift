import Foundation
import GuideCore

/// What recording a refresh's offer changes in a source's channel list, worked out without a database: every store
/// applies ``changes`` in order and returns ``plan``.
package struct OfferChanges {
    package enum Change {
        /// The provider renamed a channel's id: its row (and choices) move to the new id.
        case rename(old: ChannelID, new: ChannelID)
        /// A channel seen for the first time.
        case add(ChannelID, name: String, keep: Bool)
        /// A renamed channel keeps feeding the guide channel it fed before.
        case map(ChannelID, to: ChannelID)
        /// An offered channel's current name, seen now.
        case seen(ChannelID, name: String)
    }

    package private(set) var changes: [Change] = []
    package let plan: ChannelPlan

    /// `known`: the source's channels as stored; `existing`: the guide's channels.
    package init(known stored: [SourceChannel], offered: [OfferedChannel], complete: Bool, keepNewChannels: Bool,
         existing: Set<ChannelID>) {
        var known = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let offeredIDs = Set(offered.map(\.id))
        // A known channel no longer offered whose name is offered under a new id was renamed by the provider.
        var vanished: [String: SourceChannel] = [:]
        for channel in known.values where complete && !offeredIDs.contains(channel.id) && channel.lastSeen != nil {
            vanished[SearchText.fold(channel.name), default: channel] = channel
        }
        var renamed: [ChannelID: ChannelID] = [:]
        for channel in offered where known[channel.id] == nil {
            if let old = vanished.removeValue(forKey: SearchText.fold(channel.name)) {
                renamed[old.id] = channel.id
                changes.append(.rename(old: old.id, new: channel.id))
                known[old.id] = nil
                known[channel.id] = SourceChannel(id: channel.id, name: channel.name, keep: old.keep, mappedTo: old.mappedTo ?? old.id)
            } else {
                changes.append(.add(channel.id, name: channel.name, keep: keepNewChannels))
                known[channel.id] = SourceChannel(id: channel.id, name: channel.name, keep: keepNewChannels)
            }
        }
        for (old, new) in renamed {
            changes.append(.map(new, to: known[new]?.mappedTo ?? old))
        }
        for channel in offered {
            changes.append(.seen(channel.id, name: channel.name))
        }
        var kept: [ChannelID: ChannelID] = [:]
        for channel in known.values where channel.keep { kept[channel.id] = channel.guideChannel }
        plan = ChannelPlan(kept: kept, renamed: renamed, existing: existing)
    }
}
