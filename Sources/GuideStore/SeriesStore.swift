import Foundation
import GuideCore

/// The shows profiles follow, as last fetched from TVmaze, with their episodes; and each profile's reminder and
/// calendar settings. Shows are kept while anyone follows them or has watched one of their episodes.
public protocol SeriesStore: Sendable {
    /// Saves a show and replaces its episodes with `show.episodes`, in one transaction, noting it was fetched at
    /// `checked`. What is kept of a show is ``TrackedShow/show``'s; of an episode, its number, name, type, air date,
    /// time and stamp, runtime and page.
    func saveShow(_ show: Show, checked: Date) async throws
    /// Notes that TVmaze was asked about a show at `instant` and nothing had changed.
    func markChecked(show id: Int, at instant: Date) async throws
    /// Every show someone follows.
    func trackedShows() async throws -> [TrackedShow]
    func trackedShow(_ id: Int) async throws -> TrackedShow?

    /// Follows a saved show (again: keeps the first date and the reminder choice).
    func follow(show id: Int, by profile: ProfileID, at instant: Date) async throws
    /// Stops following; forgets the show when nobody else follows it and nobody has watched one of its episodes.
    func unfollow(show id: Int, by profile: ProfileID) async throws
    func setReminders(_ on: Bool, show id: Int, by profile: ProfileID) async throws
    /// The shows a profile follows, by name.
    func following(_ profile: ProfileID) async throws -> [FollowedShow]

    /// Episodes of the shows a profile follows whose air date (TVmaze's, in the network's zone) is within `from`
    /// through `through` (`YYYY-MM-DD`, both included), by air date.
    /// Each names its show (id, name and channel, so ``Episode/airTime(zone:)`` reads it in the show's zone).
    func episodes(followedBy profile: ProfileID, from: String, through: String) async throws -> [Episode]
    /// A show's saved episodes in air order, each naming its show.
    func episodes(ofShow id: Int) async throws -> [Episode]
    /// Shows' saved episodes in air order, by show: one read for many (Up next's followed shows).
    func episodes(ofShows ids: [Int]) async throws -> [Int: [Episode]]

    func seriesSettings(of profile: ProfileID) async throws -> SeriesSettings
    func saveSeriesSettings(_ settings: SeriesSettings, of profile: ProfileID) async throws
    /// The profile whose calendar feed opens with the token of this SHA-256 hash; nil when unknown or revoked.
    func calendarProfile(tokenHash: String) async throws -> ProfileID?
}

/// A show kept for following, and when TVmaze was last asked about it.
public struct TrackedShow: Hashable, Sendable {
    /// What is kept of it: its name, status, channel (name, zone, whether a web channel), page, image and TVmaze's
    /// time of its last change (compared with `/updates/shows`); not its episodes (``SeriesStore/episodes(ofShow:)``).
    public var show: Show
    /// When tvguide last asked TVmaze about it.
    public var checked: Date

    public init(show: Show, checked: Date) {
        (self.show, self.checked) = (show, checked)
    }
}

/// A show a profile follows.
public struct FollowedShow: Hashable, Sendable {
    public var show: Show
    /// Whether the calendar feed reminds before its episodes.
    public var reminders: Bool
    public var added: Date

    public init(show: Show, reminders: Bool, added: Date) {
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
