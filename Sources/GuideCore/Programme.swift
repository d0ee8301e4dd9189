import Foundation

/// One airing of a programme on a channel, with everything from xmltv.dtd that a guide shows.
///
/// Its fields live in one box that copies of the programme share until one of them is changed (copy-on-write): a
/// programme is passed along far more often than it is changed, and copying thirty fields retained each of its texts
/// (a third of `/api/now`'s time for 10,000 channels, issue 46). It reads, writes, compares and encodes as before.
public struct Programme: Hashable, Codable, Sendable {
    /// Everything the programme says, one property each below.
    @usableFromInline struct Fields: Hashable, Codable, Sendable {
        @usableFromInline var channel: ChannelID
        @usableFromInline var start: Date
        @usableFromInline var stop: Date?
        @usableFromInline var clumpIndex: String?
        @usableFromInline var titles: [LocalizedText]
        @usableFromInline var subTitles: [LocalizedText] = []
        @usableFromInline var descriptions: [LocalizedText] = []
        @usableFromInline var credits: [Credit] = []
        @usableFromInline var date: String?
        @usableFromInline var categories: [LocalizedText] = []
        @usableFromInline var keywords: [LocalizedText] = []
        @usableFromInline var language: LocalizedText?
        @usableFromInline var originalLanguage: LocalizedText?
        @usableFromInline var length: Int?
        @usableFromInline var icons: [Icon] = []
        @usableFromInline var urls: [String] = []
        @usableFromInline var countries: [LocalizedText] = []
        @usableFromInline var episodeNumbers: [EpisodeNumber] = []
        @usableFromInline var video: Video?
        @usableFromInline var audio: Audio?
        @usableFromInline var previouslyShown: PreviouslyShown?
        @usableFromInline var premiere: LocalizedText?
        @usableFromInline var lastChance: LocalizedText?
        @usableFromInline var isNew: Bool = false
        @usableFromInline var subtitles: [Subtitles] = []
        @usableFromInline var ratings: [Rating] = []
        @usableFromInline var starRatings: [Rating] = []

        init(channel: ChannelID, start: Date, stop: Date? = nil, titles: [LocalizedText]) {
            (self.channel, self.start, self.stop, self.titles) = (channel, start, stop, titles)
        }

        /// Makes these a new programme's fields with no titles (as ``init(channel:start:stop:titles:)`` leaves them),
        /// the lists a programme most often has keeping their room (``Programme/startOver(channel:start:stop:)``).
        mutating func startOver(channel: ChannelID, start: Date, stop: Date?) {
            let kept = (Self.emptied(&titles), Self.emptied(&subTitles), Self.emptied(&descriptions),
                        Self.emptied(&categories), Self.emptied(&episodeNumbers), Self.emptied(&icons),
                        Self.emptied(&credits))
            self = Fields(channel: channel, start: start, stop: stop, titles: kept.0)
            (subTitles, descriptions, categories, episodeNumbers, icons, credits)
                = (kept.1, kept.2, kept.3, kept.4, kept.5, kept.6)
        }

        /// `list`'s buffer, emptied, taken from it (so that emptying it does not copy it).
        private static func emptied<Element>(_ list: inout [Element]) -> [Element] {
            var taken: [Element] = []
            swap(&taken, &list)
            taken.removeAll(keepingCapacity: true)
            return taken
        }
    }

    /// Changed only while one programme holds it (``fields``), so sharing it between threads is safe. For the same
    /// reason no access to its fields can overlap a change: the run-time check of each (a call and a thread-local
    /// lookup for every field read, 3% of an import's reading thread) is left out.
    @usableFromInline final class Box: @unchecked Sendable {
        @usableFromInline @exclusivity(unchecked) var fields: Fields
        @usableFromInline init(_ fields: consuming Fields) { self.fields = fields }
    }

    @usableFromInline var box: Box

    /// The fields, for a change: the box is copied first when another programme shares it.
    ///
    /// It and the properties below are inlined where they are used: a change through an accessor of another module
    /// allocated the accessor's frame, two for each change, 17 a programme in the XMLTV reader: two fifths of all it
    /// allocated.
    @inlinable var fields: Fields {
        get { box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            yield &box.fields
        }
    }

    @inlinable public var channel: ChannelID { get { box.fields.channel } _modify { yield &fields.channel } }
    @inlinable public var start: Date { get { box.fields.start } _modify { yield &fields.start } }
    /// When it ends; nil when the source gave no stop and none could be derived.
    @inlinable public var stop: Date? { get { box.fields.stop } _modify { yield &fields.stop } }
    /// Position in a clump of programmes sharing one slot, as XMLTV's `clumpidx` writes it (`1/3`).
    @inlinable public var clumpIndex: String? { get { box.fields.clumpIndex } _modify { yield &fields.clumpIndex } }

    @inlinable public var titles: [LocalizedText] { get { box.fields.titles } _modify { yield &fields.titles } }
    @inlinable public var subTitles: [LocalizedText] {
        get { box.fields.subTitles } _modify { yield &fields.subTitles }
    }
    @inlinable public var descriptions: [LocalizedText] {
        get { box.fields.descriptions } _modify { yield &fields.descriptions }
    }
    @inlinable public var credits: [Credit] { get { box.fields.credits } _modify { yield &fields.credits } }
    /// The date the programme was made or first shown, as the source wrote it (`YYYY`, `YYYYMMDD`, ...).
    @inlinable public var date: String? { get { box.fields.date } _modify { yield &fields.date } }
    @inlinable public var categories: [LocalizedText] {
        get { box.fields.categories } _modify { yield &fields.categories }
    }
    @inlinable public var keywords: [LocalizedText] { get { box.fields.keywords } _modify { yield &fields.keywords } }
    @inlinable public var language: LocalizedText? { get { box.fields.language } _modify { yield &fields.language } }
    @inlinable public var originalLanguage: LocalizedText? {
        get { box.fields.originalLanguage } _modify { yield &fields.originalLanguage }
    }
    /// Running time without adverts, in seconds.
    @inlinable public var length: Int? { get { box.fields.length } _modify { yield &fields.length } }

    @inlinable public var icons: [Icon] { get { box.fields.icons } _modify { yield &fields.icons } }
    @inlinable public var urls: [String] { get { box.fields.urls } _modify { yield &fields.urls } }
    @inlinable public var countries: [LocalizedText] {
        get { box.fields.countries } _modify { yield &fields.countries }
    }
    @inlinable public var episodeNumbers: [EpisodeNumber] {
        get { box.fields.episodeNumbers } _modify { yield &fields.episodeNumbers }
    }
    @inlinable public var video: Video? { get { box.fields.video } _modify { yield &fields.video } }
    @inlinable public var audio: Audio? { get { box.fields.audio } _modify { yield &fields.audio } }
    @inlinable public var previouslyShown: PreviouslyShown? {
        get { box.fields.previouslyShown } _modify { yield &fields.previouslyShown }
    }
    /// Present when this is a premiere; the text says what kind ("First showing on national TV").
    @inlinable public var premiere: LocalizedText? { get { box.fields.premiere } _modify { yield &fields.premiere } }
    @inlinable public var lastChance: LocalizedText? {
        get { box.fields.lastChance } _modify { yield &fields.lastChance }
    }
    @inlinable public var isNew: Bool { get { box.fields.isNew } _modify { yield &fields.isNew } }
    @inlinable public var subtitles: [Subtitles] { get { box.fields.subtitles } _modify { yield &fields.subtitles } }
    @inlinable public var ratings: [Rating] { get { box.fields.ratings } _modify { yield &fields.ratings } }
    @inlinable public var starRatings: [Rating] { get { box.fields.starRatings } _modify { yield &fields.starRatings } }

    /// The lengths a programme may state, in seconds: up to 31 days. A feed saying more is repaired (the length is
    /// ignored, and the stop comes from the next programme).
    public static let lengthRange = 0...(31 * 86_400)
    /// ``lengthRange`` in minutes, for feeds that count in minutes (Radio Times, TVmaze runtimes).
    public static let lengthMinutesRange = 0...(lengthRange.upperBound / 60)

    public init(channel: ChannelID, start: Date, stop: Date? = nil, titles: [LocalizedText]) {
        box = Box(Fields(channel: channel, start: start, stop: stop, titles: titles))
    }

    /// Makes this a new programme with no titles, as ``init(channel:start:stop:titles:)`` does, in the memory it holds
    /// when no other copy shares it: its box, and the room its lists most often used had
    /// (``Fields/startOver(channel:start:stop:)``). A reader of a large guide makes millions of programmes, each handed
    /// on and let go before the next begins. False, and nothing changed, when another copy shares it.
    public mutating func startOver(channel: ChannelID, start: Date, stop: Date?) -> Bool {
        guard isKnownUniquelyReferenced(&box) else { return false }
        box.fields.startOver(channel: channel, start: start, stop: stop)
        return true
    }

    public static func == (left: Programme, right: Programme) -> Bool {
        left.box === right.box || left.box.fields == right.box.fields
    }

    public func hash(into hasher: inout Hasher) {
        box.fields.hash(into: &hasher)
    }

    public init(from decoder: any Decoder) throws {
        box = Box(try Fields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try box.fields.encode(to: encoder)
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
