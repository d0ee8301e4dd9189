import Foundation

// Schedules Direct's answers (API 20141201) as they are read. Every field SD may leave out is optional, and fields
// tvguide does not use are not read. The shapes are those of the real answers in Sources/SchedulesDirectReplay/Fixtures
// (../shared/data/schedulesdirect/API-NOTES.md, section 3).

/// `POST token`.
public struct SDTokenAnswer: Decodable, Sendable {
    public var code: Int
    public var message: String?
    public var token: String?
    /// Epoch seconds (since 2025); absent in older answers, when a token lasts 24 hours.
    public var tokenExpires: Int64?
    public var serverTime: Int64?
}

/// `GET status`: the account, its lineups and whether SD is online.
public struct SDStatus: Decodable, Sendable {
    public struct Account: Decodable, Sendable {
        public var expires: String?
        public var messages: [SDMessage]?
        public var maxLineups: Int?
    }

    public struct LineupEntry: Decodable, Sendable {
        public var lineup: String
        public var modified: String?
        public var uri: String?
    }

    public struct SystemStatus: Decodable, Sendable {
        public var date: String?
        public var status: String
        public var message: String?
    }

    public var account: Account?
    public var lineups: [LineupEntry]?
    public var lastDataUpdate: String?
    public var notifications: [SDMessage]?
    public var systemStatus: [SystemStatus]?
    public var code: Int?

    /// Whether SD says it is online (the first system status; none said counts as online).
    public var isOnline: Bool { systemStatus?.first.map { $0.status.lowercased() == "online" } ?? true }
}

/// A message of SD's to the account (account messages, notifications): text, or an object with one.
public struct SDMessage: Decodable, Sendable {
    public var text: String

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self.text = text
            return
        }
        let fields = try decoder.container(keyedBy: Key.self)
        text = (try? fields.decode(String.self, forKey: .message)) ?? (try? fields.decode(String.self, forKey: .msg)) ?? ""
    }

    private enum Key: String, CodingKey { case message, msg }
}

/// `GET lineups`: the lineups on the account.
public struct SDLineups: Decodable, Sendable {
    public var lineups: [SDLineup]?
}

/// A lineup on the account or found for a place.
public struct SDLineup: Decodable, Sendable, Equatable {
    public var lineup: String
    public var name: String?
    public var transport: String?
    public var location: String?
    public var uri: String?
    public var isDeleted: Bool?
}

/// One of `GET available`: a kind of list SD has (COUNTRIES, LANGUAGES, DVB-S, DVB-T) and what it is.
public struct SDAvailable: Decodable, Sendable {
    public var type: String
    public var description: String?
}

/// One of `GET available/countries`: a country SD has lineups in (ISO 3166 alpha-3 `shortName`), with an example of its
/// postal codes.
public struct SDCountry: Decodable, Sendable, Equatable {
    public var fullName: String
    public var shortName: String
    public var postalCodeExample: String?
}

/// `GET headends?country=&postalcode=`: the providers serving a place, each with its lineups.
public struct SDHeadend: Decodable, Sendable {
    public var headend: String
    public var transport: String?
    public var location: String?
    public var lineups: [SDLineup]
}

/// `PUT` or `DELETE lineups/{id}`: how many more changes the account may make today.
public struct SDLineupChange: Decodable, Sendable {
    public var code: Int
    public var message: String?
    public var changesRemaining: Int?
}

/// `GET lineups/{id}`: which station is on which channel, and the stations.
public struct SDLineupMap: Codable, Sendable {
    public struct Entry: Codable, Sendable {
        public var stationID: String
        public var channel: String?
        public var virtualChannel: String?
        public var logicalChannelNumber: String?
        public var atscMajor: Int?
        public var atscMinor: Int?
        public var uhfVhf: Int?
        public var providerCallsign: String?

        /// The number a viewer dials: the virtual channel, else ATSC major.minor, else the channel, else an antenna
        /// station's RF channel (`uhfVhf` alone, as some `USA-OTA-*` maps give it), else the logical number, without
        /// leading zeros. Numbers out of a channel's range (ATSC majors 1-999, minors 0-999, RF channels 1-999) are not one.
        public var number: String? {
            if let virtualChannel, !virtualChannel.isEmpty { return Self.trimmed(virtualChannel) }
            if let atscMajor, let atscMinor, (1...999).contains(atscMajor), (0...999).contains(atscMinor) { return "\(atscMajor).\(atscMinor)" }
            if let channel, !channel.isEmpty { return Self.trimmed(channel) }
            if let uhfVhf, (1...999).contains(uhfVhf) { return String(uhfVhf) }
            return logicalChannelNumber.map(Self.trimmed)
        }

        private static func trimmed(_ text: String) -> String {
            let digits = text.drop { $0 == "0" }
            return digits.isEmpty ? text : String(digits)
        }
    }

    public struct Station: Codable, Sendable {
        public var stationID: String
        public var name: String?
        public var callsign: String?
        public var affiliate: String?
        public var broadcastLanguage: [String]?
        public var logo: SDLogo?
        public var stationLogo: [SDLogo]?
        public var isRadioStation: Bool?
    }

    public struct Metadata: Codable, Sendable {
        public var lineup: String?
        public var modified: String?
        public var transport: String?
    }

    public var map: [Entry]
    public var stations: [Station]?
    public var metadata: Metadata?
}

/// A station's logo: a plain address on SD's image host (no token needed).
public struct SDLogo: Codable, Sendable {
    public var URL: String
    public var height: Int?
    public var width: Int?
    public var md5: String?
}

/// `POST schedules/md5`: per station, per UTC day, the hash of the day's schedule (or a code saying there is none).
public typealias SDScheduleHashes = [String: [String: SDDayHash]]

public struct SDDayHash: Decodable, Sendable, Equatable {
    public var code: Int
    public var message: String?
    public var lastModified: String?
    public var md5: String?
}

/// One element of `POST schedules`: a station's day, or an error about it.
public struct SDScheduleDay: Codable, Sendable {
    public struct Metadata: Codable, Sendable {
        public var modified: String?
        public var md5: String?
        /// The UTC day; absent on an error element (2201).
        public var startDate: String?
        public var isDeleted: Bool?
    }

    public var stationID: String
    public var programs: [SDAiring]?
    public var metadata: Metadata?
    public var code: Int?
    public var message: String?
    /// For 7020: the days SD has (either may be null).
    public var minDate: String?
    public var maxDate: String?
    public var requestedDate: String?
    /// For 7100: when to ask again.
    public var retryTime: String?
}

/// An airing of a programme on a station.
public struct SDAiring: Codable, Sendable {
    public struct Rating: Codable, Sendable {
        public var body: String?
        public var code: String
    }

    public struct Multipart: Codable, Sendable {
        public var partNumber: Int
        public var totalParts: Int
    }

    public var programID: String
    public var airDateTime: String
    /// Seconds.
    public var duration: Int
    public var md5: String
    public var new: Bool?
    public var premiere: Bool?
    public var isPremiereOrFinale: String?
    public var liveTapeDelay: String?
    public var audioProperties: [String]?
    public var videoProperties: [String]?
    public var ratings: [Rating]?
    public var multipart: Multipart?
}

/// One element of `POST programs`: a programme, or an error about one (6000 invalid, 6001 queued).
public struct SDProgram: Codable, Sendable {
    public struct Title: Codable, Sendable {
        public var title120: String?
    }

    public struct Description: Codable, Sendable {
        public var descriptionLanguage: String?
        public var description: String
    }

    public struct Descriptions: Codable, Sendable {
        public var description100: [Description]?
        public var description255: [Description]?
        public var description1000: [Description]?
    }

    /// A provider's season and episode numbers; Gracenote's is the one SD fills.
    public struct Numbering: Codable, Sendable {
        public var season: Int?
        public var episode: Int?
        public var totalEpisodes: Int?
        public var totalSeasons: Int?
    }

    public struct ContentRating: Codable, Sendable {
        public var body: String?
        public var code: String
        public var country: String?
    }

    public struct Person: Codable, Sendable {
        public var billingOrder: String?
        public var role: String?
        public var name: String
        public var characterName: String?
    }

    public struct Movie: Codable, Sendable {
        public struct QualityRating: Codable, Sendable {
            public var ratingsBody: String?
            public var rating: String
            public var maxRating: String?
        }

        public var year: String?
        public var duration: Int?
        public var qualityRating: [QualityRating]?
    }

    public var programID: String
    public var md5: String?
    public var titles: [Title]?
    public var episodeTitle150: String?
    public var descriptions: Descriptions?
    public var originalAirDate: String?
    public var genres: [String]?
    /// `[{"Gracenote": {...}}, {"OtherProvider": {...}}]`.
    public var metadata: [[String: Numbering]]?
    public var contentRating: [ContentRating]?
    public var duration: Int?
    public var cast: [Person]?
    public var crew: [Person]?
    public var movie: Movie?
    public var entityType: String?
    public var showType: String?
    public var officialURL: String?
    public var hasImageArtwork: Bool?
    /// For an element that is an error.
    public var code: Int?
    public var message: String?

    /// Gracenote's numbering, else the first provider's.
    public var numbering: Numbering? {
        metadata?.lazy.compactMap { $0["Gracenote"] }.first ?? metadata?.first?.values.first
    }
}

/// One entry of `metadata/programs/`: a series' images, or an error about it. `data` is an array of images, or an
/// object when the entry is an error (`{code, message}` as 5001 IMAGE_QUEUED, `{errorCode, errorMessage}` as 1013);
/// an entry can also carry `code` and `message` itself (5003 mid-batch). Jellyfin broke on the object form (PR #16220).
public struct SDArtwork: Decodable, Sendable {
    public struct Image: Decodable, Sendable {
        public var uri: String
        public var width: Int?
        public var height: Int?
        public var aspect: String?
        public var category: String?
        public var primary: String?
        public var tier: String?

        enum CodingKeys: String, CodingKey {
            case uri, width, height, aspect, category, primary, tier
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            uri = try container.decode(String.self, forKey: .uri)
            // SD writes sizes as strings ("1920"); read either, within a screen's range.
            func size(_ key: CodingKeys) -> Int? {
                let value = (try? container.decode(Int.self, forKey: key)) ?? (try? container.decode(String.self, forKey: key)).flatMap { Int($0) }
                return value.flatMap { (1...100_000).contains($0) ? $0 : nil }
            }
            (width, height) = (size(.width), size(.height))
            aspect = try? container.decode(String.self, forKey: .aspect)
            category = try? container.decode(String.self, forKey: .category)
            primary = try? container.decode(String.self, forKey: .primary)
            tier = try? container.decode(String.self, forKey: .tier)
        }
    }

    public var programID: String
    public var images: [Image]
    public var code: Int?
    public var message: String?

    private enum CodingKeys: String, CodingKey {
        case programID, data, code, message
    }

    private struct Failure: Decodable {
        var code: Int?
        var errorCode: Int?
        var message: String?
        var errorMessage: String?
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        programID = try container.decode(String.self, forKey: .programID)
        code = try container.decodeIfPresent(Int.self, forKey: .code)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        if let images = try? container.decode([Image].self, forKey: .data) {
            self.images = images
        } else {
            images = []
            if let failure = try? container.decode(Failure.self, forKey: .data) {
                code = code ?? failure.code ?? failure.errorCode
                message = message ?? failure.message ?? failure.errorMessage
            }
        }
    }
}
