import Foundation
import GuideCore
import GuideStore

// What TVmaze sends, decoded leniently: the fixtures span 2017 to 2024 and fields came and went (API-NOTES §3).
// Everything but ids and names is optional; "" and null mean "not known" alike.

/// A network or web channel, with the country (and so the zone) its times are local to.
public struct TVMazeChannel: Codable, Hashable, Sendable {
    public var id: Int?
    public var name: String
    public var country: TVMazeCountry?
}

public struct TVMazeCountry: Codable, Hashable, Sendable {
    public var name: String?
    public var code: String?
    /// An IANA zone, e.g. America/New_York.
    public var timezone: String?
}

/// An image in two sizes; URLs never change their content (API-NOTES §7), so they are cached for good.
public struct TVMazeImage: Codable, Hashable, Sendable {
    public var medium: String?
    public var original: String?

    /// The smaller one when there is one.
    public var preferred: String? { medium ?? original }
}

public struct TVMazeSchedule: Codable, Hashable, Sendable {
    /// "HH:MM", or "" for binge releases.
    public var time: String?
    public var days: [String]?
}

public struct TVMazeExternals: Codable, Hashable, Sendable {
    public var tvrage: Int?
    public var thetvdb: Int?
    public var imdb: String?
}

/// `_links`: the ids of the linked resources, taken from the hrefs (never followed: they name api.tvmaze.com).
public struct TVMazeLinks: Codable, Hashable, Sendable {
    public struct Link: Codable, Hashable, Sendable {
        public var href: String?
        public var name: String?

        /// The number at the end of the href (`.../episodes/1767393` -> 1767393).
        public var id: Int? {
            guard let href, let last = href.split(separator: "/").last else { return nil }
            return Bounded.integer(last, in: TVMazeClient.idRange)
        }
    }

    public var show: Link?
    public var previousepisode: Link?
    public var nextepisode: Link?
    public var character: Link?
    public var episode: Link?
}

public struct TVMazeShow: Codable, Hashable, Sendable, Identifiable {
    public var id: Int
    public var url: String?
    public var name: String
    public var type: String?
    public var language: String?
    public var genres: [String]?
    /// Running, Ended, To Be Determined or In Development. A cancelled show is Ended.
    public var status: String?
    public var runtime: Int?
    public var averageRuntime: Int?
    public var premiered: String?
    public var ended: String?
    public var officialSite: String?
    public var schedule: TVMazeSchedule?
    public var rating: TVMazeRating?
    public var weight: Int?
    public var network: TVMazeChannel?
    public var webChannel: TVMazeChannel?
    public var externals: TVMazeExternals?
    public var image: TVMazeImage?
    /// HTML (`<p>`, `<b>`, `<i>`), null or "".
    public var summary: String?
    /// Unix time of TVmaze's last change to it or anything under it.
    public var updated: Int?
    public var _links: TVMazeLinks?
    public var _embedded: Embedded?

    public struct Embedded: Codable, Hashable, Sendable {
        public var episodes: [TVMazeEpisode]?
        public var seasons: [TVMazeSeason]?
        public var cast: [TVMazeCastMember]?
        public var crew: [TVMazeCrewMember]?
        public var nextepisode: TVMazeEpisode?
        public var previousepisode: TVMazeEpisode?
    }

    /// The channel it airs on: its network, else its web channel.
    public var channel: TVMazeChannel? { network ?? webChannel }

    /// The zone its episodes' `airdate` and `airtime` are local to; nil for global web channels (Netflix).
    public var timeZone: TimeZone? { channel?.country?.timezone.flatMap(TimeZone.init(identifier:)) }

    public var hasEnded: Bool { status == "Ended" }
    public var nextEpisodeID: Int? { _links?.nextepisode?.id }
    public var previousEpisodeID: Int? { _links?.previousepisode?.id }
}

public struct TVMazeRating: Codable, Hashable, Sendable {
    public var average: Double?
}

public struct TVMazeEpisode: Codable, Hashable, Sendable, Identifiable {
    public var id: Int
    public var url: String?
    public var name: String?
    /// May be a year (2012) for daily shows.
    public var season: Int?
    /// Null for specials.
    public var number: Int?
    /// regular, significant_special or insignificant_special (2022 on).
    public var type: String?
    /// "YYYY-MM-DD" in the show's zone, or "". After-midnight episodes keep the previous day's date.
    public var airdate: String?
    /// "HH:MM" in the show's zone, or "" (global streaming releases).
    public var airtime: String?
    /// The instant, ISO 8601 with an offset; null when unknown.
    public var airstamp: String?
    public var runtime: Int?
    public var rating: TVMazeRating?
    public var image: TVMazeImage?
    public var summary: String?
    public var _links: TVMazeLinks?
    public var _embedded: Embedded?
    /// On schedule items only: the whole show, inline.
    @Indirect public var show: TVMazeShow?

    public struct Embedded: Codable, Hashable, Sendable {
        @Indirect public var show: TVMazeShow?
        public var guestcast: [TVMazeCastMember]?
        public var guestcrew: [TVMazeGuestCrew]?
    }

    /// When it airs: an instant, a day (no time known), or nothing known. See ``AirTime``.
    public var airTime: AirTime { AirTime(airdate: airdate, airtime: airtime, airstamp: airstamp) }

    public var isSpecial: Bool { number == nil || (type ?? "regular") != "regular" }

    /// "S02E05", or "Special" for specials.
    public var code: String { TrackedEpisode.code(season: season, number: number) }
}

public struct TVMazeSeason: Codable, Hashable, Sendable, Identifiable {
    public var id: Int
    public var url: String?
    public var number: Int?
    public var name: String?
    public var episodeOrder: Int?
    public var premiereDate: String?
    public var endDate: String?
    public var network: TVMazeChannel?
    public var webChannel: TVMazeChannel?
    public var image: TVMazeImage?
    public var summary: String?
}

public struct TVMazePerson: Codable, Hashable, Sendable, Identifiable {
    public var id: Int
    public var url: String?
    public var name: String
    public var country: TVMazeCountry?
    public var birthday: String?
    public var deathday: String?
    public var gender: String?
    public var image: TVMazeImage?
    public var updated: Int?
    public var _embedded: Embedded?

    public struct Embedded: Codable, Hashable, Sendable {
        public var castcredits: [TVMazeCastCredit]?
    }
}

public struct TVMazeCharacter: Codable, Hashable, Sendable {
    public var id: Int?
    public var url: String?
    public var name: String?
    public var image: TVMazeImage?
}

/// One role in a show's cast (or an episode's guest cast).
public struct TVMazeCastMember: Codable, Hashable, Sendable {
    public var person: TVMazePerson
    public var character: TVMazeCharacter?
    public var `self`: Bool?
    public var voice: Bool?
}

/// A show's crew member: `type` is Creator, Executive Producer and the like.
public struct TVMazeCrewMember: Codable, Hashable, Sendable {
    public var type: String?
    public var person: TVMazePerson
}

/// An episode's crew member: `guestCrewType` (not `type`) is Director, Writer, Story, Teleplay.
public struct TVMazeGuestCrew: Codable, Hashable, Sendable {
    public var guestCrewType: String?
    public var person: TVMazePerson
}

/// A person's role in a show, with the show embedded when asked for (`embed=show`).
public struct TVMazeCastCredit: Codable, Hashable, Sendable {
    public var `self`: Bool?
    public var voice: Bool?
    public var _links: TVMazeLinks?
    public var _embedded: Embedded?

    public struct Embedded: Codable, Hashable, Sendable {
        public var show: TVMazeShow?
        public var character: TVMazeCharacter?
    }

    public var showID: Int? { _embedded?.show?.id ?? _links?.show?.id }
}

/// A person's guest role in one episode, with the episode (and its show, when TVmaze embeds it) and character.
public struct TVMazeGuestCastCredit: Codable, Hashable, Sendable {
    public var _links: TVMazeLinks?
    public var _embedded: Embedded?

    public struct Embedded: Codable, Hashable, Sendable {
        public var episode: TVMazeEpisode?
        public var character: TVMazeCharacter?
    }
}

public struct TVMazeShowResult: Codable, Hashable, Sendable {
    /// Opaque: its scale changed over the years; only the order means something.
    public var score: Double?
    public var show: TVMazeShow
}

public struct TVMazePersonResult: Codable, Hashable, Sendable {
    public var score: Double?
    public var person: TVMazePerson
}

/// Holds a value out of line, so an episode can carry its show, which can carry episodes.
@propertyWrapper
public struct Indirect<Value: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
    // An array's storage is on the heap: the struct stays one pointer wide whatever Value is.
    private var storage: [Value]

    public init(wrappedValue: Value) { storage = [wrappedValue] }

    public var wrappedValue: Value {
        get { storage[0] }
        set { storage[0] = newValue }
    }

    public init(from decoder: any Decoder) throws { storage = [try Value(from: decoder)] }
    public func encode(to encoder: any Encoder) throws { try storage[0].encode(to: encoder) }
}

extension KeyedDecodingContainer {
    /// A missing key is nil, as for a plain optional property.
    public func decode<Wrapped>(_ type: Indirect<Wrapped?>.Type, forKey key: Key) throws -> Indirect<Wrapped?> {
        Indirect(wrappedValue: try decodeIfPresent(Wrapped.self, forKey: key))
    }
}
