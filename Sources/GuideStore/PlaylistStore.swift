import Foundation
import GuideCore

/// Where IPTV playlists (sources of format ``SourceFormat/m3u``) keep their entries: the numbers, logos, groups and
/// stream addresses they add to the guide's channels.
public protocol PlaylistStore: Sendable {
    /// Replaces the entries of the playlist source `source` with those `next` hands over, batch by batch until it
    /// answers nil, in one transaction (a failure keeps the entries there were), then `header()`; how many it holds
    /// now. Bumps the listings' generation: feeds and pages show what playlists say.
    func replacePlaylist(of source: SourceName, next: () async throws -> [PlaylistEntry]?,
                         header: () -> PlaylistHeader?) async throws -> Int
    /// Every playlist's entries: sources by priority (highest first), then name, each in playlist order, with the
    /// guide channel an admin mapped each to and whether it is kept (the source's channel choices).
    func playlistEntries() async throws -> [StoredPlaylistEntry]
    /// What a playlist's `#EXTM3U` line said on its last refresh.
    func playlistHeader(of source: SourceName) async throws -> PlaylistHeader?
}

/// A playlist entry as stored: its source, its place, the channel id it is offered as (``PlaylistEntry/offeredID``)
/// and the admin's choice for that channel.
public struct StoredPlaylistEntry: Hashable, Sendable {
    public var source: SourceName
    public var position: Int
    public var entry: PlaylistEntry
    public var keep: Bool
    public var mappedTo: ChannelID?

    public init(source: SourceName, position: Int, entry: PlaylistEntry, keep: Bool, mappedTo: ChannelID?) {
        (self.source, self.position, self.entry, self.keep, self.mappedTo) = (source, position, entry, keep, mappedTo)
    }
}

extension PlaylistEntry {
    /// The channel id a playlist offers this entry as (on the source's channel page, where an admin keeps or maps
    /// it): its `tvg-id`, else its `tvg-name`, else its title.
    public var offeredID: ChannelID {
        ChannelID(guideID ?? guideName ?? name)
    }
}

/// Which playlist entry describes each guide channel. Among the kept entries (sources by priority): one an admin
/// mapped to the channel; else one whose `tvg-id` is the channel's id; else one whose name
/// (``PlaylistEntry/matchKey(_:)`` of its `tvg-name`, else its title) matches one of the channel's names.
///
/// An entry with a `tvg-shift` describes not the channel it matches (by its mapping or `tvg-id`) but that channel moved
/// by its hours: a timeshift channel (``timeshifts(_:for:)``, made like an admin's), which it gives its name, number,
/// logo, groups and stream.
public enum PlaylistMatch {
    public static func entries(_ stored: [StoredPlaylistEntry], for channels: [Channel]) -> [ChannelID: PlaylistEntry] {
        let (plain, shifted) = matched(stored, for: channels)
        var found = plain
        for (timeshift, entry) in shifted where found[timeshift.id] == nil { found[timeshift.id] = entry }
        return found
    }

    /// The timeshift channels the kept entries with a `tvg-shift` (of at least a minute) make, each the channel it
    /// matches moved by its hours.
    public static func timeshifts(_ stored: [StoredPlaylistEntry], for channels: [Channel]) -> [TimeshiftChannel] {
        matched(stored, for: channels).shifted.map(\.0)
    }

    private static func matched(_ stored: [StoredPlaylistEntry], for channels: [Channel])
        -> (plain: [ChannelID: PlaylistEntry], shifted: [(TimeshiftChannel, PlaylistEntry)]) {
        let ids = Set(channels.map(\.id))
        var byName: [String: ChannelID] = [:]
        for channel in channels {
            for name in channel.displayNames.map(\.text) where !name.allSatisfy(\.isNumber) {
                let key = PlaylistEntry.matchKey(name)
                if !key.isEmpty, byName[key] == nil { byName[key] = channel.id }
            }
        }
        let kept = stored.filter(\.keep)
        var found: [ChannelID: PlaylistEntry] = [:]
        var shifted: [(TimeshiftChannel, PlaylistEntry)] = []
        var shiftedIDs: Set<ChannelID> = []
        let passes: [(StoredPlaylistEntry) -> ChannelID?] = [
            { $0.mappedTo.flatMap { ids.contains($0) ? $0 : nil } },
            { $0.mappedTo == nil ? $0.entry.guideID.map { ChannelID($0) }.flatMap { ids.contains($0) ? $0 : nil } : nil },
            { $0.mappedTo == nil ? byName[PlaylistEntry.matchKey($0.entry.guideName ?? $0.entry.name)] : nil },
        ]
        for (pass, target) in passes.enumerated() {
            for stored in kept {
                let minutes = Int(((stored.entry.shiftHours ?? 0) * 60).rounded())
                // A shifted entry names its channel by id (or an admin's mapping): by name, "BBC One +1" would find the
                // timeshift channel it made itself.
                guard minutes == 0 || pass < 2, let channel = target(stored) else { continue }
                if minutes == 0 {
                    if found[channel] == nil { found[channel] = stored.entry }
                } else if TimeshiftChannel.offsetRange.contains(minutes) {
                    let id = TimeshiftChannel.defaultID(base: channel, offsetMinutes: minutes)
                    guard shiftedIDs.insert(id).inserted else { continue }
                    let entry = stored.entry
                    shifted.append((TimeshiftChannel(id: id, base: channel, offsetMinutes: minutes, name: entry.name, number: entry.number,
                                                     logo: entry.logo), entry))
                }
            }
        }
        return (found, shifted)
    }
}

extension Channel {
    /// The channel as a playlist describes it: the playlist's number and logo (first) where it gives them.
    public func described(by entry: PlaylistEntry?) -> Channel {
        guard let entry else { return self }
        var channel = withLogo(entry.logo)
        if let number = entry.number { channel.number = number }
        return channel
    }
}
