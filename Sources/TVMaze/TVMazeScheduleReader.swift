import Foundation
import GuideCore
import GuideWebFormats
import XMLTV

/// Reads one day of TVmaze's country schedule (`/schedule?country=XX&date=`): a JSON array of episodes, each with
/// its show inline. Networks (and local web channels) become channels, episodes programmes.
///
/// A day's schedule is one JSON document of a few hundred KB, so it is read whole at the end (up to 64 MB). The
/// quirks documented in ../shared/data/tvmaze/API-NOTES.md: an episode with no air time (`airtime` empty, a
/// streaming release whose `airstamp` is a noon placeholder or null) has no place in a grid and is skipped and
/// reported; `runtime` may be null (the stop then comes from the next programme); summaries are HTML.
public struct TVMazeScheduleReader {
    /// What is not a day's schedule.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    public private(set) var issues = IssueLog()
    private var bytes: [UInt8] = []
    /// When set, `airdate` and `airtime` are read as wall-clock times there instead of using `airstamp`.
    let localZone: TimeZone?
    static let maximumBytes = 64 << 20

    public init(localZone: TimeZone?) {
        self.localZone = localZone
    }

    public mutating func feed(_ chunk: UnsafeRawBufferPointer) throws {
        bytes.append(contentsOf: chunk)
        try checkSize()
    }

    public mutating func feed(_ chunk: [UInt8]) throws {
        bytes.append(contentsOf: chunk)
        try checkSize()
    }

    private func checkSize() throws {
        if bytes.count > Self.maximumBytes {
            throw Unreadable(description: "a TVmaze schedule of over \(Self.maximumBytes >> 20) MB: not a day's schedule")
        }
    }

    public mutating func finish(_ emit: (XMLTVItem) throws -> Void) throws {
        let episodes: [TVMazeEpisode]
        do {
            episodes = try JSONDecoder().decode([TVMazeEpisode].self, from: Data(bytes))
        } catch {
            throw Unreadable(description: "not a TVmaze schedule (a JSON array of episodes): \(error)")
        }
        bytes = []
        var sent: Set<ChannelID> = []
        for (index, episode) in episodes.enumerated() {
            guard let show = episode.show, let outlet = show.channel, let outletID = outlet.id else {
                issues.record(ListingIssue(kind: .skipped, line: index + 1, title: episode.show?.name,
                                           message: Sentence(saying: "episode {id} names no network or web channel; skipped", ["id": "\(episode.id)"])))
                continue
            }
            let channel = ChannelID("tvmaze.\(show.network != nil ? "network" : "web").\(outletID)")
            guard let start = start(of: episode) else {
                issues.record(ListingIssue(kind: .skipped, line: index + 1, channel: channel, title: show.name,
                                           message: Sentence(saying: "no air time (a streaming release?); not placed in the guide")))
                continue
            }
            if sent.insert(channel).inserted {
                try emit(.channel(Channel(id: channel, displayNames: [LocalizedText(outlet.name)])))
            }
            var programme = Programme(channel: channel, start: start,
                                      stop: episode.runtime.flatMap { Bounded.clamped($0, to: Programme.lengthMinutesRange) }.map { start.addingTimeInterval(TimeInterval($0) * 60) },
                                      titles: [LocalizedText(show.name)])
            if let name = episode.name, !name.isEmpty, name != show.name { programme.subTitles = [LocalizedText(name)] }
            if let summary = episode.summary.map(HTMLText.plain), !summary.isEmpty {
                programme.descriptions = [LocalizedText(summary)]
            }
            programme.categories = (show.genres ?? []).map { LocalizedText($0) }
            if let season = episode.season, let number = episode.number, season > 0, number > 0 {
                programme.episodeNumbers = [EpisodeNumber(system: "xmltv_ns", value: "\(season - 1).\(number - 1)."),
                                            EpisodeNumber(system: "onscreen", value: "S\(season)E\(number)")]
            }
            if let image = episode.image?.medium ?? show.image?.medium { programme.icons = [Icon(src: image)] }
            if let url = episode.url { programme.urls = [url] }
            try emit(.programme(programme, line: index + 1))
        }
    }

    /// `airstamp`, unless the episode has no air time or the source says its local times are in another zone.
    private func start(of episode: TVMazeEpisode) -> Date? {
        guard let airtime = episode.airtime, !airtime.isEmpty else { return nil }
        if let localZone, let airdate = episode.airdate,
           let local = CivilTime.parseISO8601("\(airdate)T\(airtime)Z") {
            let seconds = local.unixSeconds
            return Date(unixSeconds: seconds - Int64(XMLTVTimestamp.offset(in: localZone, localSeconds: seconds)))
        }
        return episode.airstamp.flatMap(CivilTime.parseISO8601)
    }
}
