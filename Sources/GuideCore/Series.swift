import Foundation

// TV series as tvguide shows them: shows, seasons, episodes, people and their credits. TVmaze's client (the TVMaze
// module) maps its answers to these at the edge; nothing here knows TVmaze's JSON. Unknown is nil (TVmaze's "" and
// null alike).

/// A show, with what was asked for alongside it (its episodes, seasons, cast, crew).
public struct Show: Hashable, Sendable, Identifiable {
    public var id: Int
    public var name: String
    /// Its page at the source (TVmaze).
    public var url: String?
    /// Scripted, Reality, Documentary and the like.
    public var type: String?
    public var language: String?
    public var genres: [String] = []
    /// Running, Ended, To Be Determined or In Development. A cancelled show is Ended.
    public var status: String?
    /// Minutes: its stated runtime, else its average.
    public var runtime: Int?
    public var premiered: CivilDate?
    public var ended: CivilDate?
    public var officialSite: String?
    /// When it airs each week, in its channel's zone.
    public var airs: WeeklyAiring?
    /// Out of 10.
    public var rating: Double?
    public var channel: ShowChannel?
    public var image: String?
    /// HTML (`<p>`, `<b>`, `<i>`).
    public var summary: String?
    /// The source's time of its last change to it or anything under it (Unix seconds).
    public var updated: Int?
    public var previousEpisodeID: Int?
    public var nextEpisodeID: Int?
    public var episodes: [Episode] = []
    public var seasons: [Season] = []
    /// Its regular cast: each credit's person and character.
    public var cast: [Role] = []
    /// Creators, producers and the like: each credit's person and job.
    public var crew: [Role] = []
    /// Its other titles, by country.
    public var akas: [AlsoKnownAs] = []

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    public var hasEnded: Bool { status == "Ended" }
    /// The zone its episodes' air dates and times are local to; nil for global web channels.
    public var timeZone: TimeZone? { channel?.timeZone }
    /// The show as other values name it.
    public var reference: ShowReference {
        ShowReference(id: id, name: name, premiered: premiered, ended: ended, channel: channel)
    }
}

/// A show named by another value (an episode's, a credit's): no cast or episodes of its own.
public struct ShowReference: Hashable, Sendable {
    public var id: Int?
    public var name: String?
    public var premiered: CivilDate?
    public var ended: CivilDate?
    public var channel: ShowChannel?

    public init(id: Int?, name: String?, premiered: CivilDate? = nil, ended: CivilDate? = nil, channel: ShowChannel? = nil) {
        (self.id, self.name, self.premiered, self.ended, self.channel) = (id, name, premiered, ended, channel)
    }

    /// "2013" or "2013–2015".
    public var years: String? {
        let years = [premiered, ended].compactMap { $0.map { String($0.year) } }
        return years.isEmpty ? nil : years.joined(separator: "–")
    }
}

/// A network, or a web channel (a streaming service), with the zone its times are local to.
public struct ShowChannel: Hashable, Sendable {
    public var id: Int?
    public var name: String
    public var isWebChannel: Bool
    public var country: String?
    /// An IANA zone, e.g. America/New_York; nil for a global web channel.
    public var zone: String?

    public init(id: Int?, name: String, isWebChannel: Bool, country: String? = nil, zone: String? = nil) {
        (self.id, self.name, self.isWebChannel, self.country, self.zone) = (id, name, isWebChannel, country, zone)
    }

    public var timeZone: TimeZone? { zone.flatMap(TimeZone.init(identifier:)) }
}

/// The days and time a show airs each week.
public struct WeeklyAiring: Hashable, Sendable {
    /// Monday, Tuesday, ...
    public var days: [String]
    /// "HH:MM".
    public var time: String

    public init(days: [String], time: String) {
        (self.days, self.time) = (days, time)
    }
}

public struct Season: Hashable, Sendable, Identifiable {
    public var id: Int
    public var number: Int?
    public var name: String?
    /// How many episodes it has (or is to have).
    public var episodeCount: Int?
    public var premiered: CivilDate?
    public var ended: CivilDate?

    public init(id: Int, number: Int? = nil, name: String? = nil, episodeCount: Int? = nil, premiered: CivilDate? = nil,
                ended: CivilDate? = nil) {
        (self.id, self.number, self.name, self.episodeCount, self.premiered, self.ended) = (id, number, name, episodeCount, premiered, ended)
    }
}

public struct Episode: Hashable, Sendable, Identifiable {
    public var id: Int
    public var url: String?
    public var name: String?
    /// May be a year (2012) for daily shows.
    public var season: Int?
    /// Nil for specials.
    public var number: Int?
    /// regular, significant_special or insignificant_special.
    public var type: String?
    /// "YYYY-MM-DD" in the show's zone. After-midnight episodes keep the previous day's date.
    public var airdate: String?
    /// "HH:MM" in the show's zone; nil for global streaming releases.
    public var airtime: String?
    /// The instant, ISO 8601 with an offset.
    public var airstamp: String?
    public var runtime: Int?
    public var rating: Double?
    public var image: String?
    /// HTML.
    public var summary: String?
    /// Its show, when it came with it.
    public var show: ShowReference?
    /// Guest cast and crew, when asked for.
    public var guests: [Role] = []
    public var crew: [Role] = []

    public init(id: Int) {
        self.id = id
    }

    /// When it airs: an instant, a day (no time known), or nothing known (times read in `zone`, else its show's).
    public func airTime(zone: TimeZone? = nil) -> AirTime {
        AirTime(airdate: airdate, airtime: airtime, airstamp: airstamp, zone: zone ?? show?.channel?.timeZone)
    }

    public var isSpecial: Bool { number == nil || (type ?? "regular") != "regular" }
    /// The first episode of a season (season 1's is the series premiere).
    public var isPremiere: Bool { number == 1 }

    /// "S02E05", or "Special" for specials.
    public var code: String { Self.code(season: season, number: number) }

    /// "S02E05" from a season and number ("E5" without a season); "Special" without a number.
    public static func code(season: Int?, number: Int?) -> String {
        guard let number else { return "Special" }
        // Not String(format: "%02d"): %d is 32 bits, and would show a large number as another.
        let twoDigits = { (value: Int) in (0..<10).contains(value) ? "0\(value)" : String(value) }
        return season.map { "S\(twoDigits($0))E\(twoDigits(number))" } ?? "E\(number)"
    }

    /// Seasons (a year, for daily shows) and episode numbers as TVmaze can mean them; others are read as unknown.
    public static let numberRange = 0...99_999
}

/// A person, with their credits when asked for.
public struct Person: Hashable, Sendable, Identifiable {
    public var id: Int
    public var url: String?
    public var name: String
    public var country: String?
    public var birthday: CivilDate?
    public var deathday: CivilDate?
    public var gender: String?
    public var image: String?
    /// Their parts in shows (cast credits), each naming its show.
    public var credits: [Role] = []

    public init(id: Int, name: String) {
        (self.id, self.name) = (id, name)
    }

    public var reference: PersonReference { PersonReference(id: id, name: name, image: image) }
}

/// A person named by a credit.
public struct PersonReference: Hashable, Sendable {
    public var id: Int
    public var name: String
    public var image: String?

    public init(id: Int, name: String, image: String? = nil) {
        (self.id, self.name, self.image) = (id, name, image)
    }
}

/// Someone's part in a show or an episode (a credit; GuideCore's ``Credit`` is an XMLTV programme's): who (``person``), in what (``show`` or ``episode``, as seen from the
/// person), and as what (a ``character``, or a crew ``job``).
public struct Role: Hashable, Sendable {
    public var person: PersonReference?
    public var show: ShowReference?
    public var episode: EpisodeReference?
    public var character: String?
    /// Creator, Director, Writer and the like, for crew.
    public var job: String?
    public var isVoice: Bool

    public init(person: PersonReference? = nil, show: ShowReference? = nil, episode: EpisodeReference? = nil,
                character: String? = nil, job: String? = nil, isVoice: Bool = false) {
        (self.person, self.show, self.episode, self.character, self.job, self.isVoice) = (person, show, episode, character, job, isVoice)
    }
}

/// An episode named by a credit (a guest part).
public struct EpisodeReference: Hashable, Sendable {
    public var id: Int
    public var code: String
    public var name: String?
    public var show: ShowReference?

    public init(id: Int, code: String, name: String?, show: ShowReference?) {
        (self.id, self.code, self.name, self.show) = (id, code, name, show)
    }
}
