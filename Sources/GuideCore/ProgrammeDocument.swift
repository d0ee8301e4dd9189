import Foundation

/// The JSON form of a programme that the CLI and the API share: times in ISO 8601 UTC, flags spelled out,
/// empty fields left out.
public struct ProgrammeDocument: Codable, Hashable, Sendable {
    public struct Numbering: Codable, Hashable, Sendable {
        public var season: Int?
        public var seasons: Int?
        public var episode: Int?
        public var episodes: Int?
        public var part: Int?
        public var parts: Int?
        public var label: String
    }

    public struct Person: Codable, Hashable, Sendable {
        public var role: String
        public var name: String
        public var character: String?
        public var guest: Bool?
    }

    public var id: Int64?
    public var channel: String
    public var start: String
    public var stop: String
    /// True when the source gave no stop and none could be derived: `stop` is the start plus its length or an hour.
    public var stopEstimated: Bool?
    public var title: String
    public var subTitle: String?
    public var description: String?
    public var categories: [String]?
    public var keywords: [String]?
    public var numbering: Numbering?
    public var onScreenNumber: String?
    public var date: String?
    public var credits: [Person]?
    public var icon: String?
    public var url: String?
    public var length: Int?
    public var country: [String]?
    public var language: String?
    public var ratings: [String]?
    public var starRatings: [String]?
    public var video: Video?
    public var audio: Audio?
    public var isNew: Bool?
    public var isPremiere: Bool?
    public var isRepeat: Bool?
    public var isLastChance: Bool?
    public var subtitles: [String]?
    public var source: String?

    public init(_ stored: StoredProgramme) {
        self.init(stored.programme, end: stored.end)
        id = stored.id.rawValue
        source = stored.source.shown
    }

    public init(_ programme: Programme, end: Date? = nil) {
        channel = programme.channel.rawValue
        start = CivilTime.iso8601(programme.start)
        stop = CivilTime.iso8601(programme.stop ?? end ?? programme.start)
        stopEstimated = programme.stop == nil ? true : nil
        title = programme.title
        subTitle = programme.subTitle
        description = programme.description
        categories = Self.nonEmpty(programme.categories.map(\.text))
        keywords = Self.nonEmpty(programme.keywords.map(\.text))
        if let number = programme.numbering {
            numbering = Numbering(season: number.season, seasons: number.seasonCount, episode: number.episode,
                                  episodes: number.episodeCount, part: number.part, parts: number.partCount,
                                  label: number.label)
        }
        onScreenNumber = programme.onScreenNumber
        date = programme.date
        credits = Self.nonEmpty(programme.credits.map {
            Person(role: $0.role.rawValue, name: $0.name, character: $0.character, guest: $0.isGuest ? true : nil)
        })
        icon = programme.icons.first?.src
        url = programme.urls.first
        length = programme.length
        country = Self.nonEmpty(programme.countries.map(\.text))
        language = programme.language?.text
        ratings = Self.nonEmpty(programme.ratings.map { ($0.system.map { "\($0) " } ?? "") + $0.value })
        starRatings = Self.nonEmpty(programme.starRatings.map(\.value))
        video = programme.video
        audio = programme.audio
        isNew = programme.isNew ? true : nil
        isPremiere = programme.isPremiere ? true : nil
        isRepeat = programme.isRepeat ? true : nil
        isLastChance = programme.isLastChance ? true : nil
        subtitles = Self.nonEmpty(programme.subtitles.map { $0.type ?? "yes" })
    }

    static func nonEmpty<T>(_ values: [T]) -> [T]? { values.isEmpty ? nil : values }
}

/// A channel's current and next programme as `tvguide now --json` and `GET /api/now` write it: both keys are always
/// there, null when nothing is on or follows.
public struct NowNextDocument: Encodable, Sendable {
    public var channel: String
    public var name: String
    public var now: ProgrammeDocument?
    public var next: ProgrammeDocument?

    public init(channel: String, name: String, now: ProgrammeDocument?, next: ProgrammeDocument?) {
        self.channel = channel
        self.name = name
        self.now = now
        self.next = next
    }

    enum CodingKeys: String, CodingKey { case channel, name, now, next }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(channel, forKey: .channel)
        try container.encode(name, forKey: .name)
        try container.encode(now, forKey: .now)
        try container.encode(next, forKey: .next)
    }
}
