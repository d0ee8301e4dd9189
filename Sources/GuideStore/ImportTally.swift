import GuideCore

/// What an import session keeps track of, whichever store it writes: the integer keys of the channels it touched,
/// the span its programmes cover on each (what they replace of the source's older listings), and its counts.
package struct ImportTally {
    /// Channels the file described; a channel its programmes only name gets a row named by its id.
    package private(set) var describedChannels: Set<ChannelID> = []
    private var channelKeys: [ChannelID: Int64] = [:]
    package private(set) var channelIDs: [Int64: ChannelID] = [:]
    private var lastChannel: (id: ChannelID, key: Int64)?
    package private(set) var programmeCount = 0
    /// Per channel key, the span the new listings cover.
    package private(set) var coverage: [Int64: (start: Int64, end: Int64)] = [:]

    package init() {}

    /// The key of a channel seen before; files list a channel's programmes together, so most lookups are the last.
    package mutating func key(of channel: ChannelID) -> Int64? {
        if let last = lastChannel, last.id == channel { return last.key }
        guard let key = channelKeys[channel] else { return nil }
        lastChannel = (channel, key)
        return key
    }

    package mutating func remember(_ channel: ChannelID, key: Int64, described: Bool = false) {
        channelKeys[channel] = key
        channelIDs[key] = channel
        lastChannel = (channel, key)
        if described { describedChannels.insert(channel) }
    }

    /// Counts a programme on channel `key` from `start` to `stop` (a zero-length one covers its second).
    package mutating func add(channel key: Int64, start: Int64, stop: Int64) {
        programmeCount += 1
        let end = max(stop, start + 1)
        if let span = coverage[key] {
            coverage[key] = (min(span.start, start), max(span.end, end))
        } else {
            coverage[key] = (start, end)
        }
    }

    /// Channels the import stored: those it described and those its programmes name.
    package var channelCount: Int {
        describedChannels.union(coverage.keys.compactMap { channelIDs[$0] }).count
    }

    /// Each channel's span: the new listings' coverage, widened by what a channel read in part covers in its feed.
    package func spans(with parts: [Int64: ListingPart]) -> [Int64: (start: Int64, end: Int64)] {
        var spans = coverage
        for (key, part) in parts {
            let span = spans[key]
            spans[key] = (min(span?.start ?? part.first, part.first), max(span?.end ?? part.end, part.end))
        }
        return spans
    }
}
