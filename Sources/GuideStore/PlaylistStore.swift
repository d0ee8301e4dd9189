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
    /// Every playlist's entries as matching needs them (no stream, logo or attributes): sources by priority (highest
    /// first), then name, each in playlist order, with the admin's choice for each (the source's channel choices).
    func playlistCandidates() async throws -> [PlaylistCandidate]
    /// The whole entries at `keys` (``PlaylistCandidate/key``): what matching chose, read once it has.
    func playlistEntries(_ keys: [Int64]) async throws -> [Int64: PlaylistEntry]
    /// A playlist source's entries, whole, in playlist order (at most `limit`): what the channel matcher reads.
    func playlistEntries(of source: SourceName, limit: Int) async throws -> [PlaylistEntry]
    /// Whether any playlist has an entry with a `tvg-shift`: one index-free look, so an import without timeshift
    /// channels does not match playlists.
    func hasShiftedPlaylistEntries() async throws -> Bool
    /// What a playlist's `#EXTM3U` line said on its last refresh.
    func playlistHeader(of source: SourceName) async throws -> PlaylistHeader?
}

/// A playlist entry as matching reads it: where it is (its ``key``), the channel id it is offered as
/// (``PlaylistEntry/offeredID``), its `tvg-id`, its name's match key, its `tvg-shift` in minutes, and the admin's choice
/// for that channel. A 100,000-entry playlist is matched from these, and only the entries chosen are read whole.
public struct PlaylistCandidate: Hashable, Sendable {
    /// The entry's source and place in one number: ``PlaylistStore/playlistEntries(_:)`` reads it by this.
    public var key: Int64
    public var offeredID: ChannelID
    public var guideID: String?
    public var matchKey: String
    public var shiftMinutes: Int
    public var keep: Bool
    public var mappedTo: ChannelID?

    public init(key: Int64, offeredID: ChannelID, guideID: String?, matchKey: String, shiftMinutes: Int, keep: Bool, mappedTo: ChannelID?) {
        (self.key, self.offeredID, self.guideID, self.matchKey) = (key, offeredID, guideID, matchKey)
        (self.shiftMinutes, self.keep, self.mappedTo) = (shiftMinutes, keep, mappedTo)
    }

    /// A source's id and an entry's position as one key (positions stay below 2^32).
    public static func key(source: Int64, position: Int64) -> Int64 { source << 32 | position }
}

extension PlaylistEntry {
    /// The channel id a playlist offers this entry as (on the source's channel page, where an admin keeps or maps
    /// it): its `tvg-id`, else its `tvg-name`, else its title.
    public var offeredID: ChannelID {
        ChannelID(guideID ?? guideName ?? name)
    }

    /// `tvg-shift` in whole minutes (0 without one).
    public var shiftMinutes: Int {
        Int(((shiftHours ?? 0) * 60).rounded())
    }
}

/// Which playlist entry describes each guide channel. Among the kept entries (sources by priority): one an admin
/// mapped to the channel; else one whose `tvg-id` is the channel's id; else one whose name
/// (``PlaylistEntry/matchKey(_:)`` of its `tvg-name`, else its title) matches one of the channel's names.
///
/// An entry with a `tvg-shift` describes not the channel it matches (by its mapping or `tvg-id`) but that channel moved
/// by its hours: a timeshift channel (``Result/timeshifts``, made like an admin's), which it gives its name, number,
/// logo, groups and stream.
public enum PlaylistMatch {
    /// What the playlists say about the guide's channels.
    public struct Result: Sendable {
        /// The entry describing each channel (timeshift channels included).
        public var entries: [ChannelID: PlaylistEntry] = [:]
        /// The timeshift channels shifted entries make.
        public var timeshifts: [TimeshiftChannel] = []

        public init(entries: [ChannelID: PlaylistEntry] = [:], timeshifts: [TimeshiftChannel] = []) {
            self.entries = entries
            self.timeshifts = timeshifts
        }
    }

    /// Matches `store`'s playlists to `channels`, reading whole only the entries chosen.
    public static func read(_ store: any PlaylistStore, for channels: [Channel]) async throws -> Result {
        let (plain, shifted) = chosen(try await store.playlistCandidates(), for: channels)
        let entries = try await store.playlistEntries(Array(Set(plain.values).union(shifted.map(\.key))))
        var result = Result()
        for (channel, key) in plain { result.entries[channel] = entries[key] }
        for shift in shifted {
            guard let entry = entries[shift.key] else { continue }
            let id = TimeshiftChannel.defaultID(base: shift.base, offsetMinutes: shift.minutes)
            result.timeshifts.append(TimeshiftChannel(id: id, base: shift.base, offsetMinutes: shift.minutes, name: entry.name,
                                                      number: entry.number, logo: entry.logo))
            if result.entries[id] == nil { result.entries[id] = entry }
        }
        return result
    }

    /// The key of the entry describing each channel, and the shifted entries with the channel each moves.
    static func chosen(_ candidates: [PlaylistCandidate], for channels: [Channel])
        -> (plain: [ChannelID: Int64], shifted: [(key: Int64, base: ChannelID, minutes: Int)]) {
        let ids = Set(channels.map(\.id))
        var byName: [String: ChannelID] = [:]
        for channel in channels {
            for name in channel.displayNames.map(\.text) where !name.allSatisfy(\.isNumber) {
                let key = PlaylistEntry.matchKey(name)
                if !key.isEmpty, byName[key] == nil { byName[key] = channel.id }
            }
        }
        let kept = candidates.filter(\.keep)
        var found: [ChannelID: Int64] = [:]
        var shifted: [(key: Int64, base: ChannelID, minutes: Int)] = []
        var shiftedIDs: Set<ChannelID> = []
        let passes: [(PlaylistCandidate) -> ChannelID?] = [
            { $0.mappedTo.flatMap { ids.contains($0) ? $0 : nil } },
            { $0.mappedTo == nil ? $0.guideID.map { ChannelID($0) }.flatMap { ids.contains($0) ? $0 : nil } : nil },
            { $0.mappedTo == nil ? byName[$0.matchKey] : nil },
        ]
        for (pass, target) in passes.enumerated() {
            for candidate in kept {
                let minutes = candidate.shiftMinutes
                // A shifted entry names its channel by id (or an admin's mapping): by name, "BBC One +1" would find the
                // timeshift channel it made itself.
                guard minutes == 0 || pass < 2, let channel = target(candidate) else { continue }
                if minutes == 0 {
                    if found[channel] == nil { found[channel] = candidate.key }
                } else if TimeshiftChannel.offsetRange.contains(minutes),
                          shiftedIDs.insert(TimeshiftChannel.defaultID(base: channel, offsetMinutes: minutes)).inserted {
                    shifted.append((candidate.key, channel, minutes))
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
