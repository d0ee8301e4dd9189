import Foundation
import GuideCore

/// The shows profiles follow, as last fetched from TVmaze, with their episodes; and each profile's reminder and
/// calendar settings. Shows are kept while anyone follows them.
public protocol SeriesStore: Sendable {
    /// Saves a show and replaces its episodes, in one transaction.
    func saveShow(_ show: TrackedShow, episodes: [TrackedEpisode]) async throws
    /// Notes that TVmaze was asked about a show at `instant` and nothing had changed.
    func markChecked(show id: Int, at instant: Date) async throws
    /// Every show someone follows.
    func trackedShows() async throws -> [TrackedShow]
    func trackedShow(_ id: Int) async throws -> TrackedShow?

    /// Follows a saved show (again: keeps the first date and the reminder choice).
    func follow(show id: Int, by profile: ProfileID, at instant: Date) async throws
    /// Stops following; forgets the show when nobody else follows it.
    func unfollow(show id: Int, by profile: ProfileID) async throws
    func setReminders(_ on: Bool, show id: Int, by profile: ProfileID) async throws
    /// The shows a profile follows, by name.
    func following(_ profile: ProfileID) async throws -> [FollowedShow]

    /// Episodes of the shows a profile follows whose air date (TVmaze's, in the network's zone) is within `from`
    /// through `through` (`YYYY-MM-DD`, both included), by air date.
    func episodes(followedBy profile: ProfileID, from: String, through: String) async throws -> [TrackedEpisode]
    /// A show's saved episodes in air order.
    func episodes(ofShow id: Int) async throws -> [TrackedEpisode]

    func seriesSettings(of profile: ProfileID) async throws -> SeriesSettings
    func saveSeriesSettings(_ settings: SeriesSettings, of profile: ProfileID) async throws
    /// The profile whose calendar feed opens with the token of this SHA-256 hash; nil when unknown or revoked.
    func calendarProfile(tokenHash: String) async throws -> ProfileID?
}

/// A show as tvguide keeps it for following: what the upcoming list, the grid and the calendar need.
public struct TrackedShow: Hashable, Sendable, Codable {
    /// TVmaze's id.
    public var id: Int
    public var name: String
    /// "Running", "Ended", "To Be Determined", "In Development".
    public var status: String?
    /// The network or web channel.
    public var channel: String?
    /// The network's IANA zone: TVmaze's air dates and times are in it.
    public var zone: String?
    /// The show's TVmaze page.
    public var url: String?
    public var image: String?
    /// TVmaze's time of its last change (Unix seconds), compared with `/updates/shows`.
    public var updated: Int?
    /// When tvguide last asked TVmaze about it.
    public var checked: Date

    public init(id: Int, name: String, status: String? = nil, channel: String? = nil, zone: String? = nil, url: String? = nil,
                image: String? = nil, updated: Int? = nil, checked: Date) {
        self.id = id
        self.name = name
        self.status = status
        self.channel = channel
        self.zone = zone
        self.url = url
        self.image = image
        self.updated = updated
        self.checked = checked
    }

    public var hasEnded: Bool { status == "Ended" }
}

/// One episode of a tracked show, with TVmaze's air date, time and stamp as given (AirTime reads them).
public struct TrackedEpisode: Hashable, Sendable, Codable {
    public var id: Int
    public var showID: Int
    public var season: Int?
    public var number: Int?
    public var name: String?
    /// "regular", "significant_special", "insignificant_special".
    public var type: String?
    public var airdate: String?
    public var airtime: String?
    public var airstamp: String?
    public var runtime: Int?
    public var url: String?

    public init(id: Int, showID: Int, season: Int? = nil, number: Int? = nil, name: String? = nil, type: String? = nil,
                airdate: String? = nil, airtime: String? = nil, airstamp: String? = nil, runtime: Int? = nil, url: String? = nil) {
        self.id = id
        self.showID = showID
        self.season = season
        self.number = number
        self.name = name
        self.type = type
        self.airdate = airdate
        self.airtime = airtime
        self.airstamp = airstamp
        self.runtime = runtime
        self.url = url
    }

    /// The first episode of a season (season 1's is the series premiere).
    public var isPremiere: Bool { number == 1 }

    /// `S01E02`, or `Special` for episodes without a number.
    public var code: String { Episode.code(season: season, number: number) }
}

/// A show a profile follows.
public struct FollowedShow: Hashable, Sendable {
    public var show: TrackedShow
    /// Whether the calendar feed reminds before its episodes.
    public var reminders: Bool
    public var added: Date

    public init(show: TrackedShow, reminders: Bool, added: Date) {
        self.show = show
        self.reminders = reminders
        self.added = added
    }
}

/// How a profile wants its episodes: reminder lead time, a shift for a local broadcaster airing later (as in the
/// original app), how far the calendar feed reaches, and the feed's secret.
public struct SeriesSettings: Hashable, Sendable, Codable {
    /// Minutes before airing a reminder fires (0-1440).
    public var leadMinutes = 15
    /// Minutes added to every air time (-1440...10080): a local channel showing US episodes a day later.
    public var shiftMinutes = 0
    /// Days back and ahead the calendar feed covers.
    public var pastDays = 7
    public var futureDays = 60
    /// The SHA-256 of the calendar feed's secret (the secret itself is shown once, like an API token's); nil until
    /// made, and replaced to revoke the old address.
    public var calendarTokenHash: String?

    public init() {}

    public static let leadRange = 0...1440
    public static let shiftRange = -1440...10080
    public static let pastRange = 0...365
    public static let futureRange = 1...365
}
