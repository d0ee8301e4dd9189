import Foundation
import GuideApplication

/// A path of the site, as one description: the route groups register each route by it (``Routes``), and every link
/// the server writes to it is built from it, so a link and its handler cannot drift. The templates' own links are
/// checked against the same table (`RouteTableTests.everyTemplateLinkNamesARoute`: path and method).
struct SitePath: Sendable, Hashable, CustomStringConvertible {
    /// As the router takes it, without the leading slash: `shows/:id/seasons/:number`; "" for the guide at `/`.
    let pattern: String

    private init(_ pattern: String) {
        self.pattern = pattern
    }

    var description: String { "/" + pattern }

    /// The path with `values` in its `:name` segments, in order, each percent-encoded: `SitePath.season(12, 3)` is
    /// `/shows/12/seasons/3`. A segment with no value left is kept as written (a programming error the tests show).
    func callAsFunction(_ values: any CustomStringConvertible...) -> String {
        filled(values)
    }

    /// The path with `values`, and `query` after a `?` (a leading `&` dropped; none when empty).
    func callAsFunction(_ values: any CustomStringConvertible..., query: String) -> String {
        let query = query.hasPrefix("&") ? query.dropFirst() : query[...]
        return filled(values) + (query.isEmpty ? "" : "?" + query)
    }

    private func filled(_ values: [any CustomStringConvertible]) -> String {
        var remaining = values[...]
        return "/" + pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.hasPrefix(":"), let value = remaining.popFirst() else { return String(segment) }
            return value.description.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? ""
        }.joined(separator: "/")
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
    static let programme = SitePath("programmes/:id")
    static let programmeCalendar = SitePath("programmes/:id/calendar.ics")
    static let logo = SitePath("logo")
    static let artwork = SitePath("artwork")
    static let images = SitePath("images")
    static let asset = SitePath("static/:file")
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
    static let show = SitePath("shows/:id")
    static let season = SitePath("shows/:id/seasons/:number")
    static let follow = SitePath("shows/:id/follow")
    static let unfollow = SitePath("shows/:id/unfollow")
    static let watched = SitePath("shows/:id/watched")
    static let upNext = SitePath("up-next")
    static let history = SitePath("history")
    static let historyJSON = SitePath("history/export.json")
    static let historyCSV = SitePath("history/export.csv")
    static let historyImport = SitePath("history/import")
    static let historyConfirm = SitePath("history/import/confirm")
    static let historyImportJob = SitePath("history/imports/:token")
    static let historyTVMaze = SitePath("history/tvmaze")
    static let historyTVMazeSync = SitePath("history/tvmaze/sync")
    static let historyTVMazeDisconnect = SitePath("history/tvmaze/disconnect")
    static let showReminders = SitePath("shows/:id/reminders")
    static let episode = SitePath("episodes/:id")
    static let people = SitePath("people")
    static let person = SitePath("people/:id")

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
    static let cancelRecording = SitePath("recordings/:id/cancel")
    static let cancelReminder = SitePath("reminders/:id/cancel")
    static let deliveryChannels = SitePath("reminders/channels")
    static let testDeliveryChannel = SitePath("reminders/channels/:id/test")
    static let removeDeliveryChannel = SitePath("reminders/channels/:id/remove")
    static let savedSearches = SitePath("reminders/searches")
    static let removeSavedSearch = SitePath("reminders/searches/:id/remove")

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
    static let lineupFeed = SitePath("xmltv/:file")
    /// A feed as an HDHomeRun tuner: `discover.json`, `lineup.json`, `lineup_status.json`, `device.xml` under it.
    static let tuner = SitePath("hdhomerun/:token/:file")
    static let calendarFeed = SitePath("calendar/:file")
    static let metrics = SitePath("metrics")
    static let healthz = SitePath("healthz")
    static let readyz = SitePath("readyz")

    // MARK: The JSON API (docs/api.md, openapi.json)

    static let openAPI = SitePath("openapi.json")
    static let apiChannels = SitePath("api/channels")
    static let apiCoverage = SitePath("api/coverage")
    static let apiNow = SitePath("api/now")
    static let apiGuide = SitePath("api/guide")
    static let apiProgramme = SitePath("api/programmes/:id")
    static let apiSearch = SitePath("api/search")
    static let apiUnknown = SitePath("api/**")
    static let apiLineup = SitePath("api/lineup")
    static let apiImports = SitePath("api/imports")
    static let apiSources = SitePath("api/sources")
    static let apiHealth = SitePath("api/health")
    static let apiRefresh = SitePath("api/refresh")
    static let apiReminders = SitePath("api/reminders")
    static let apiReminder = SitePath("api/reminders/:id")
    static let apiPushKey = SitePath("api/push-key")
    static let apiDeliveryChannels = SitePath("api/delivery-channels")
    static let apiDeliveryChannel = SitePath("api/delivery-channels/:id")
    static let apiTestDeliveryChannel = SitePath("api/delivery-channels/:id/test")
    static let apiSavedSearches = SitePath("api/saved-searches")
    static let apiSavedSearch = SitePath("api/saved-searches/:id")
    static let apiProgress = SitePath("api/progress")
    static let apiHistory = SitePath("api/history")
    static let apiHistoryImport = SitePath("api/history/import")
    static let apiTVMaze = SitePath("api/tvmaze")
    static let apiTVMazeSync = SitePath("api/tvmaze/sync")
    static let apiWatched = SitePath("api/shows/:id/watched")
}
