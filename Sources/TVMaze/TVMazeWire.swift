import Foundation
import GuideCore
import GuideStore

// What TVmaze sends, decoded leniently: the fixtures span 2017 to 2024 and fields came and went (API-NOTES §3).
// Everything but ids and names is optional; "" and null mean "not known" alike. These types stay inside the TVMaze
// module: the client maps them to GuideCore's series values (TVMazeMapping.swift).

/// A network or web channel, with the country (and so the zone) its times are local to.
struct TVMazeChannel: Codable, Hashable, Sendable {
    var id: Int?
    var name: String
    var country: TVMazeCountry?
}

struct TVMazeCountry: Codable, Hashable, Sendable {
    var name: String?
    var code: String?
    /// An IANA zone, e.g. America/New_York.
    var timezone: String?
}

/// Another title of a show (`/shows/:id/akas`); `country` null for the show's own country.
struct TVMazeAka: Codable, Hashable, Sendable {
    var name: String?
    var country: TVMazeCountry?
}

/// An image in two sizes; URLs never change their content (API-NOTES §7), so they are cached for good.
struct TVMazeImage: Codable, Hashable, Sendable {
    var medium: String?
    var original: String?

    /// The smaller one when there is one.
    var preferred: String? { medium ?? original }
}

struct TVMazeSchedule: Codable, Hashable, Sendable {
    /// "HH:MM", or "" for binge releases.
    var time: String?
    var days: [String]?
}

struct TVMazeExternals: Codable, Hashable, Sendable {
    var tvrage: Int?
    var thetvdb: Int?
    var imdb: String?
}

/// `_links`: the ids of the linked resources, taken from the hrefs (never followed: they name api.tvmaze.com).
struct TVMazeLinks: Codable, Hashable, Sendable {
    struct Link: Codable, Hashable, Sendable {
        var href: String?
        var name: String?

        /// The number at the end of the href (`.../episodes/1767393` -> 1767393).
        var id: Int? {
            guard let href, let last = href.split(separator: "/").last else { return nil }
            return Bounded.integer(last, in: TVMazeClient.idRange)
        }
    }

    var show: Link?
    var previousepisode: Link?
    var nextepisode: Link?
    var character: Link?
    var episode: Link?
}

struct TVMazeShow: Codable, Hashable, Sendable, Identifiable {
    var id: Int
    var url: String?
    var name: String
    var type: String?
    var language: String?
    var genres: [String]?
    /// Running, Ended, To Be Determined or In Development. A cancelled show is Ended.
    var status: String?
    var runtime: Int?
    var averageRuntime: Int?
    var premiered: String?
    var ended: String?
    var officialSite: String?
    var schedule: TVMazeSchedule?
    var rating: TVMazeRating?
    var weight: Int?
    var network: TVMazeChannel?
    var webChannel: TVMazeChannel?
    var externals: TVMazeExternals?
    var image: TVMazeImage?
    /// HTML (`<p>`, `<b>`, `<i>`), null or "".
    var summary: String?
    /// Unix time of TVmaze's last change to it or anything under it.
    var updated: Int?
    var _links: TVMazeLinks?
    var _embedded: Embedded?

    struct Embedded: Codable, Hashable, Sendable {
        var episodes: [TVMazeEpisode]?
        var seasons: [TVMazeSeason]?
        var cast: [TVMazeCastMember]?
        var crew: [TVMazeCrewMember]?
        var nextepisode: TVMazeEpisode?
        var previousepisode: TVMazeEpisode?
    }

    /// The channel it airs on: its network, else its web channel.
    var channel: TVMazeChannel? { network ?? webChannel }
}

struct TVMazeRating: Codable, Hashable, Sendable {
    var average: Double?
}

struct TVMazeEpisode: Codable, Hashable, Sendable, Identifiable {
    var id: Int
    var url: String?
    var name: String?
    /// May be a year (2012) for daily shows.
    var season: Int?
    /// Null for specials.
    var number: Int?
    /// regular, significant_special or insignificant_special (2022 on).
    var type: String?
    /// "YYYY-MM-DD" in the show's zone, or "". After-midnight episodes keep the previous day's date.
    var airdate: String?
    /// "HH:MM" in the show's zone, or "" (global streaming releases).
    var airtime: String?
    /// The instant, ISO 8601 with an offset; null when unknown.
    var airstamp: String?
    var runtime: Int?
    var rating: TVMazeRating?
    var image: TVMazeImage?
    var summary: String?
    var _links: TVMazeLinks?
    var _embedded: Embedded?
    /// On schedule items only: the whole show, inline.
    @Indirect var show: TVMazeShow?

    struct Embedded: Codable, Hashable, Sendable {
        @Indirect var show: TVMazeShow?
        var guestcast: [TVMazeCastMember]?
        var guestcrew: [TVMazeGuestCrew]?
    }
}

struct TVMazeSeason: Codable, Hashable, Sendable, Identifiable {
    var id: Int
    var url: String?
    var number: Int?
    var name: String?
    var episodeOrder: Int?
    var premiereDate: String?
    var endDate: String?
    var network: TVMazeChannel?
    var webChannel: TVMazeChannel?
    var image: TVMazeImage?
    var summary: String?
}

struct TVMazePerson: Codable, Hashable, Sendable, Identifiable {
    var id: Int
    var url: String?
    var name: String
    var country: TVMazeCountry?
    var birthday: String?
    var deathday: String?
    var gender: String?
    var image: TVMazeImage?
    var updated: Int?
    var _embedded: Embedded?

    struct Embedded: Codable, Hashable, Sendable {
        var castcredits: [TVMazeCastCredit]?
    }
}

struct TVMazeCharacter: Codable, Hashable, Sendable {
    var id: Int?
    var url: String?
    var name: String?
    var image: TVMazeImage?
}

/// One role in a show's cast (or an episode's guest cast).
struct TVMazeCastMember: Codable, Hashable, Sendable {
    var person: TVMazePerson
    var character: TVMazeCharacter?
    var `self`: Bool?
    var voice: Bool?
}

/// A show's crew member: `type` is Creator, Executive Producer and the like.
struct TVMazeCrewMember: Codable, Hashable, Sendable {
    var type: String?
    var person: TVMazePerson
}

/// An episode's crew member: `guestCrewType` (not `type`) is Director, Writer, Story, Teleplay.
struct TVMazeGuestCrew: Codable, Hashable, Sendable {
    var guestCrewType: String?
    var person: TVMazePerson
}

/// A person's role in a show, with the show embedded when asked for (`embed=show`).
struct TVMazeCastCredit: Codable, Hashable, Sendable {
    var `self`: Bool?
    var voice: Bool?
    var _links: TVMazeLinks?
    var _embedded: Embedded?

    struct Embedded: Codable, Hashable, Sendable {
        var show: TVMazeShow?
        var character: TVMazeCharacter?
    }
}

/// A person's guest role in one episode, with the episode (and its show, when TVmaze embeds it) and character.
struct TVMazeGuestCastCredit: Codable, Hashable, Sendable {
    var _links: TVMazeLinks?
    var _embedded: Embedded?

    struct Embedded: Codable, Hashable, Sendable {
        var episode: TVMazeEpisode?
        var character: TVMazeCharacter?
    }
}

struct TVMazeShowResult: Codable, Hashable, Sendable {
    /// Opaque: its scale changed over the years; only the order means something.
    var score: Double?
    var show: TVMazeShow
}

struct TVMazePersonResult: Codable, Hashable, Sendable {
    var score: Double?
    var person: TVMazePerson
}

/// Holds a value out of line, so an episode can carry its show, which can carry episodes.
@propertyWrapper
struct Indirect<Value: Codable & Hashable & Sendable>: Codable, Hashable, Sendable {
    // An array's storage is on the heap: the struct stays one pointer wide whatever Value is.
    private var storage: [Value]

    init(wrappedValue: Value) { storage = [wrappedValue] }

    var wrappedValue: Value {
        get { storage[0] }
        set { storage[0] = newValue }
    }

    init(from decoder: any Decoder) throws { storage = [try Value(from: decoder)] }
    func encode(to encoder: any Encoder) throws { try storage[0].encode(to: encoder) }
}

extension KeyedDecodingContainer {
    /// A missing key is nil, as for a plain optional property.
    func decode<Wrapped>(_ type: Indirect<Wrapped?>.Type, forKey key: Key) throws -> Indirect<Wrapped?> {
        Indirect(wrappedValue: try decodeIfPresent(Wrapped.self, forKey: key))
    }
}
