import Foundation
import GuideApplication
import GuideCore

/// A path of the site, as one description: the route groups register each route by it (``Routes``), and every link
/// the server writes to it is built from it, so a link and its handler cannot drift. The templates name the paths they
/// link to (`{@show showID}`), resolved from these when they load (``SiteLinks``).
struct SitePath: Sendable, Hashable, CustomStringConvertible {
    /// As the router takes it, without the leading slash: `shows/:id/seasons/:number`; "" for the guide at `/`.
    let pattern: String

    init(_ pattern: String) {
        self.pattern = pattern
    }

    var description: String { "/" + pattern }

    /// The path: `SitePath.now()` is `/now`. (A path with values is a ``One`` or a ``Two``, built from typed values.)
    func callAsFunction() -> String {
        filled([])
    }

    /// The path with `query` after a `?` (a leading `&` dropped; none when empty).
    func callAsFunction(query: String) -> String {
        filled([], query: query)
    }

    /// The names of its `:name` segments, in order.
    var names: [String] {
        pattern.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
    }

    /// The path with `values` in its `:name` segments, in order, each percent-encoded, and `query` after a `?`.
    func filled(_ values: [String], query: String = "") -> String {
        var remaining = values[...]
        let path = "/" + pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.hasPrefix(":"), let value = remaining.popFirst() else { return String(segment) }
            return value.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? ""
        }.joined(separator: "/")
        let query = query.hasPrefix("&") ? query.dropFirst() : query[...]
        return path + (query.isEmpty ? "" : "?" + query)
    }

    /// `path` (a page of this site, perhaps with a query) with `done=MESSAGE` added: the page a form leads back to,
    /// saying what was done.
    static func done(_ path: String, _ message: String) -> String {
        path + (path.contains("?") ? "&" : "?") + "done=" + encoded(message)
    }

    /// `text` as one value of a query: percent-encoded, `&`, `=`, `+` and `#` included.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))) ?? text
    }

    private static let segmentCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;?#"))

    /// Whether `path` (a request's, without its query) is one this pattern takes.
    func matches(_ path: some StringProtocol) -> Bool {
        Self.pattern(pattern, fits: path)
    }

    /// Whether a route's `pattern` (`shows/:id`) takes `path` (`/shows/12`): a `:name` segment takes any one segment.
    static func pattern(_ pattern: some StringProtocol, fits path: some StringProtocol) -> Bool {
        let parts = pattern.split(separator: "/"), segments = path.split(separator: "/")
        return parts.count == segments.count && zip(parts, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
    }

    // MARK: The guide, for everyone

    static let guide = SitePath("")
    static let gridRows = SitePath("grid/rows")
    static let now = SitePath("now")
    static let search = SitePath("search")
    static let programme = one("programmes/:id", ProgrammeID.self)
    static let programmeCalendar = one("programmes/:id/calendar.ics", ProgrammeID.self)
    static let logo = SitePath("logo")
    static let artwork = SitePath("artwork")
    static let images = SitePath("images")
    static let asset = one("static/:file", PathText.self)
    static let manifest = SitePath("manifest.webmanifest")
    static let serviceWorker = SitePath("sw.js")
    static let offline = SitePath("offline")
    static let offlineListings = SitePath("offline/listings")
    static let theme = SitePath("theme")
    static let signIn = SitePath("signin")
    static let signOut = SitePath("signout")
    static let setup = SitePath("setup")

    // MARK: Shows and people, from TVmaze

    static let shows = SitePath("shows")
    static let show = one("shows/:id", TVMazeNumber.self)
    static let season = two("shows/:id/seasons/:number", TVMazeNumber.self, SeasonNumber.self)
    static let follow = one("shows/:id/follow", TVMazeNumber.self)
    static let unfollow = one("shows/:id/unfollow", TVMazeNumber.self)
    static let watched = one("shows/:id/watched", TVMazeNumber.self)
    static let upNext = SitePath("up-next")
    static let history = SitePath("history")
    static let historyJSON = SitePath("history/export.json")
    static let historyCSV = SitePath("history/export.csv")
    static let historyImport = SitePath("history/import")
    static let historyConfirm = SitePath("history/import/confirm")
    static let historyImportJob = one("history/imports/:token", PathText.self)
    static let historyTVMaze = SitePath("history/tvmaze")
    static let historyTVMazeSync = SitePath("history/tvmaze/sync")
    static let historyTVMazeDisconnect = SitePath("history/tvmaze/disconnect")
    static let showReminders = one("shows/:id/reminders", TVMazeNumber.self)
    static let episode = one("episodes/:id", TVMazeNumber.self)
    static let people = SitePath("people")
    static let person = one("people/:id", TVMazeNumber.self)

    // MARK: A profile's own

    static let lineup = SitePath("channels")
    static let favourites = SitePath("favourites")
    static let settings = SitePath("settings")
    static let seriesSettings = SitePath("settings/series")
    static let calendarAddress = SitePath("settings/calendar")
    static let upcoming = SitePath("upcoming")
    static let calendar = SitePath("calendar")
    static let reminders = SitePath("reminders")
    static let recordings = SitePath("recordings")
    static let cancelRecording = one("recordings/:id/cancel", RowNumber.self)
    static let cancelReminder = one("reminders/:id/cancel", RowNumber.self)
    static let deliveryChannels = SitePath("reminders/channels")
    static let testDeliveryChannel = one("reminders/channels/:id/test", RowNumber.self)
    static let removeDeliveryChannel = one("reminders/channels/:id/remove", RowNumber.self)
    static let savedSearches = SitePath("reminders/searches")
    static let removeSavedSearch = one("reminders/searches/:id/remove", RowNumber.self)

    // MARK: Admin

    static let admin = SitePath("admin")
    static let adminProfiles = SitePath("admin/profiles")
    static let removeProfile = SitePath("admin/profiles/delete")
    static let adminTokens = SitePath("admin/tokens")
    static let revokeToken = SitePath("admin/tokens/revoke")
    static let adminImport = SitePath("admin/import")
    static let adminChannels = SitePath("admin/channels")
    static let channelLogo = SitePath("admin/channels/logo")
    static let channelGroups = SitePath("admin/channels/groups")
    static let removeChannelGroup = SitePath("admin/channels/groups/remove")
    static let guestGroup = SitePath("admin/channels/guests")
    static let timeshift = SitePath("admin/channels/timeshift")
    static let removeTimeshift = SitePath("admin/channels/timeshift/remove")
    static let adminFeeds = SitePath("admin/feeds")
    static let removeFeed = SitePath("admin/feeds/remove")
    static let feedTunerPort = SitePath("admin/feeds/tuner-port")
    static let reloadTargets = SitePath("admin/feeds/reloads")
    static let tellReloadTarget = SitePath("admin/feeds/reloads/tell")
    static let removeReloadTarget = SitePath("admin/feeds/reloads/remove")
    static let sources = SitePath("admin/sources")
    static let source = SitePath("admin/source")
    static let removeSource = SitePath("admin/source/remove")
    static let sourceChannels = SitePath("admin/source/channels")
    static let schedulesDirect = SitePath("admin/schedules-direct")
    static let schedulesDirectSignIn = SitePath("admin/schedules-direct/signin")
    static let schedulesDirectSignOut = SitePath("admin/schedules-direct/signout")
    static let schedulesDirectLineup = SitePath("admin/schedules-direct/lineup")
    static let schedulesDirectArtwork = SitePath("admin/schedules-direct/artwork")
    static let boxes = SitePath("admin/boxes")
    static let tvheadendPreset = SitePath("admin/boxes/tvheadend")
    static let hdhomerunPreset = SitePath("admin/boxes/hdhomerun")
    static let enigma2Preset = SitePath("admin/boxes/enigma2")
    static let grabbers = SitePath("admin/grabbers")
    static let grabber = SitePath("admin/grabber")
    static let grabberStage = SitePath("admin/grabber/stage")
    static let grabberChannels = SitePath("admin/grabber/channels")
    static let grabberConfiguration = SitePath("admin/grabber/configuration")
    static let refresh = SitePath("admin/refresh")
    static let refreshEvents = SitePath("admin/refresh/events")
    static let health = SitePath("admin/health")
    static let adminRecorder = SitePath("admin/recorder")
    static let recorderChannels = SitePath("admin/recorder/channels")
    static let recorderProfiles = SitePath("admin/recorder/profiles")

    // MARK: Feeds, each with the credential it documents

    static let xmltv = SitePath("xmltv.xml")
    static let xmltvCompressed = SitePath("xmltv.xml.gz")
    static let lineupFeed = one("xmltv/:file", FeedFile.self)
    /// A feed as an HDHomeRun tuner: `discover.json`, `lineup.json`, `lineup_status.json`, `device.xml` under it.
    static let tuner = two("hdhomerun/:token/:file", PathText.self, PathText.self)
    static let calendarFeed = one("calendar/:file", CalendarFile.self)
    static let metrics = SitePath("metrics")
    static let healthz = SitePath("healthz")
    static let readyz = SitePath("readyz")

    // MARK: The JSON API (docs/api.md, openapi.json)

    static let openAPI = SitePath("openapi.json")
    static let apiChannels = SitePath("api/channels")
    static let apiCoverage = SitePath("api/coverage")
    static let apiNow = SitePath("api/now")
    static let apiGuide = SitePath("api/guide")
    static let apiProgramme = one("api/programmes/:id", PathText.self)
    static let apiSearch = SitePath("api/search")
    static let apiUnknown = SitePath("api/**")
    static let apiLineup = SitePath("api/lineup")
    static let apiImports = SitePath("api/imports")
    static let apiSources = SitePath("api/sources")
    static let apiHealth = SitePath("api/health")
    static let apiRefresh = SitePath("api/refresh")
    static let apiReminders = SitePath("api/reminders")
    static let apiReminder = one("api/reminders/:id", RowNumber.self)
    static let apiPushKey = SitePath("api/push-key")
    static let apiDeliveryChannels = SitePath("api/delivery-channels")
    static let apiDeliveryChannel = one("api/delivery-channels/:id", RowNumber.self)
    static let apiTestDeliveryChannel = one("api/delivery-channels/:id/test", RowNumber.self)
    static let apiSavedSearches = SitePath("api/saved-searches")
    static let apiSavedSearch = one("api/saved-searches/:id", RowNumber.self)
    static let apiProgress = SitePath("api/progress")
    static let apiHistory = SitePath("api/history")
    static let apiHistoryImport = SitePath("api/history/import")
    static let apiTVMaze = SitePath("api/tvmaze")
    static let apiTVMazeSync = SitePath("api/tvmaze/sync")
    static let apiWatched = one("api/shows/:id/watched", TVMazeNumber.self)
}
