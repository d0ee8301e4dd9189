import Foundation

/// One airing of a programme on a channel, with everything from xmltv.dtd that a guide shows.
public struct Programme: Hashable, Codable, Sendable {
    public var channel: ChannelID
    public var start: Date
    /// When it ends; nil when the source gave no stop and none could be derived.
    public var stop: Date?
    /// Position in a clump of programmes sharing one slot, as XMLTV's `clumpidx` writes it (`1/3`).
    public var clumpIndex: String?

    public var titles: [LocalizedText]
    public var subTitles: [LocalizedText] = []
    public var descriptions: [LocalizedText] = []
    public var credits: [Credit] = []
    /// The date the programme was made or first shown, as the source wrote it (`YYYY`, `YYYYMMDD`, ...).
    public var date: String?
    public var categories: [LocalizedText] = []
    public var keywords: [LocalizedText] = []
    public var language: LocalizedText?
    public var originalLanguage: LocalizedText?
    /// Running time without adverts, in seconds.
    public var length: Int?

    /// The lengths a programme may state, in seconds: up to 31 days. A feed saying more is repaired (the length is
    /// ignored, and the stop comes from the next programme).
    public static let lengthRange = 0...(31 * 86_400)
    /// ``lengthRange`` in minutes, for feeds that count in minutes (Radio Times, TVmaze runtimes).
    public static let lengthMinutesRange = 0...(lengthRange.upperBound / 60)
    public var icons: [Icon] = []
    public var urls: [String] = []
    public var countries: [LocalizedText] = []
    public var episodeNumbers: [EpisodeNumber] = []
    public var video: Video?
    public var audio: Audio?
    public var previouslyShown: PreviouslyShown?
    /// Present when this is a premiere; the text says what kind ("First showing on national TV").
    public var premiere: LocalizedText?
    public var lastChance: LocalizedText?
    public var isNew: Bool = false
    public var subtitles: [Subtitles] = []
    public var ratings: [Rating] = []
    public var starRatings: [Rating] = []

    public init(channel: ChannelID, start: Date, stop: Date? = nil, titles: [LocalizedText]) {
        self.channel = channel
        self.start = start
        self.stop = stop
        self.titles = titles
    }

    /// The title to show.
    public var title: String { titles.preferred() ?? "" }
    public var subTitle: String? { subTitles.preferred() }
    public var description: String? { descriptions.preferred() }

    /// The programme with its titles, sub-titles and descriptions in `languages` first, as it reads to someone who
    /// reads those (its ``title`` is then the first of them it has): for a feed, an export, the command line.
    public func reading(_ languages: [String]) -> Programme {
        guard !languages.isEmpty else { return self }
        var programme = self
        programme.titles = titles.ordered(languages)
        programme.subTitles = subTitles.ordered(languages)
        programme.descriptions = descriptions.ordered(languages)
        return programme
    }

    /// The title in the first of `languages` the listings give it in, else the first title.
    public func title(in languages: [String]) -> String { titles.preferred(languages) ?? "" }
    public func subTitle(in languages: [String]) -> String? { subTitles.preferred(languages) }
    public func description(in languages: [String]) -> String? { descriptions.preferred(languages) }

    /// Season and episode from the first readable `xmltv_ns` number.
    public var numbering: XMLTVNSNumber? { episodeNumbers.lazy.compactMap(\.xmltvNS).first }
    /// The episode number as the broadcaster shows it on screen.
    public var onScreenNumber: String? { episodeNumbers.first(where: { $0.system == "onscreen" })?.value }

    /// How a guide labels the episode: "S2 E5 of 8" from the numbering, else the on-screen number; nil if neither.
    public var episodeLabel: String? {
        numbering.map(\.label).flatMap { $0.isEmpty ? nil : $0 } ?? onScreenNumber
    }

    public var isPremiere: Bool { premiere != nil }
    public var isRepeat: Bool { previouslyShown != nil }
    public var isLastChance: Bool { lastChance != nil }
    public var hasSubtitles: Bool { !subtitles.isEmpty }

    /// Whether it is on the air at `instant` (`start <= instant < stop`).
    public func isOn(at instant: Date) -> Bool {
        guard let stop else { return false }
        return start <= instant && instant < stop
    }
}

/// Picture details (`video` element).
public struct Video: Hashable, Codable, Sendable {
    public var isPresent: Bool?
    public var isColour: Bool?
    public var aspect: String?
    public var quality: String?

    public init(isPresent: Bool? = nil, isColour: Bool? = nil, aspect: String? = nil, quality: String? = nil) {
        self.isPresent = isPresent
        self.isColour = isColour
        self.aspect = aspect
        self.quality = quality
    }
}

/// Sound details (`audio` element).
public struct Audio: Hashable, Codable, Sendable {
    public var isPresent: Bool?
    /// `mono`, `stereo`, `dolby`, `dolby digital`, `bilingual` or `surround`.
    public var stereo: String?

    public init(isPresent: Bool? = nil, stereo: String? = nil) {
        self.isPresent = isPresent
        self.stereo = stereo
    }
}

/// A repeat's earlier showing, when the source says when and where.
public struct PreviouslyShown: Hashable, Codable, Sendable {
    /// As the source wrote it (an XMLTV timestamp).
    public var start: String?
    public var channel: String?

    public init(start: String? = nil, channel: String? = nil) {
        self.start = start
        self.channel = channel
    }
}

/// Subtitles offered with the programme.
public struct Subtitles: Hashable, Codable, Sendable {
    /// `teletext`, `onscreen` or `deaf-signed`.
    public var type: String?
    public var language: LocalizedText?

    public init(type: String? = nil, language: LocalizedText? = nil) {
        self.type = type
        self.language = language
    }
}

/// A classification (`rating`) or a critic's score (`star-rating`), in the system it belongs to.
public struct Rating: Hashable, Codable, Sendable {
    public var system: String?
    public var value: String
    public var icons: [Icon]

    public init(system: String? = nil, value: String, icons: [Icon] = []) {
        self.system = system
        self.value = value
        self.icons = icons
    }
}
