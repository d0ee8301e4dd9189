import Catalogs
import Foundation
import GuideApplication
import GuideCore
import GuideHTTPServing
import GuideStore
import GuideWebFormats
import Hummingbird
import NIOCore
import TVMaze

/// The iCalendar feed of a profile's followed episodes at a secret address (`/calendar/TOKEN.ics`, no sign-in: a
/// calendar app cannot sign in), and the settings behind it: reminder lead time, shift, the days the feed covers,
/// and making or revoking the address (POST `/settings/series`, `/settings/calendar`).
struct CalendarFeed: Sendable {
    let store: any SeriesStore & AccountStore
    let settings: ServerSettings
    let episodes: FollowedEpisodes
    let translations: Translations

    /// What the settings page shows of it.
    struct SettingsView {
        var lead: Int
        var shift: Int
        var pastDays: Int
        var futureDays: Int
        /// The address, only right after it was made: only its hash is stored.
        var feedURL: String?
        var webcalURL: String?
        /// Whether an address exists (shown or not).
        var hasFeed: Bool
    }

    func register(on routes: RouteGroups) {
        routes.open.get(SitePath.calendarFeed) { request, context, file in try await feed(request, context, token: file.token) }
    }

    func feed(_ request: Request, _ context: some GuideContext, token: String) async throws -> Response {
        // An unknown or revoked address looks like any missing page.
        guard let id = try await store.calendarProfile(tokenHash: Accounts.digest(token)), let profile = try await store.profile(id) else {
            throw Refusal(.notFound, saying: "No such calendar. Its address may have been replaced in Settings.")
        }
        let series = try await store.seriesSettings(of: id)
        let zone = profile.timeZone.flatMap(TimeZone.init(identifier:)) ?? settings.timeZone
        let now = settings.now()
        let today = CivilDate(now, in: zone)
        let airings = try await EpisodeSchedule(store: store, profile: id, zone: zone, settings: series)
            .airings(from: today.adding(days: -series.pastDays), through: today.adding(days: series.futureDays))
        // In the profile's language, else the calendar app's.
        let words = translations.localizer(profile.language ?? context.acceptLanguage.flatMap(Language.preferred) ?? .english)
        let body = EpisodeCalendar.feed(airings, calendarName: words("tvguide: {name}'s shows", ["name": profile.name]),
                                        leadMinutes: series.leadMinutes, now: now, words: words)
        return CompressibleBody.response(Array(body.utf8), for: request,
                                         headers: [.contentType: "text/calendar; charset=utf-8", .cacheControl: "private, max-age=300",
                                                   .contentDisposition: "inline; filename=\"tvguide.ics\""])
    }

    /// The settings as the page shows them; `newToken`, the address's secret just made, is shown this once.
    func view(of profile: Profile, request: Request, local: SocketAddress?, newToken: String? = nil) async throws -> SettingsView {
        let series = try await store.seriesSettings(of: profile.id)
        let feed = newToken.map { settings.publicAddress(for: request, local: local) + SitePath.calendarFeed(CalendarFile($0)) }
        return SettingsView(lead: series.leadMinutes, shift: series.shiftMinutes, pastDays: series.pastDays, futureDays: series.futureDays,
                            feedURL: feed,
                            // webcal:// is the same address for calendar apps, which fetch it over https or http.
                            webcalURL: feed.map { "webcal" + $0.drop { $0 != ":" } },
                            hasFeed: series.calendarTokenHash != nil)
    }

    /// Saves the profile's reminder lead, shift and the days its feed covers, and brings its episode reminders in line.
    func save(_ form: SeriesSettingsForm, of profile: Profile) async throws {
        var series = try await store.seriesSettings(of: profile.id)
        (series.leadMinutes, series.shiftMinutes, series.pastDays, series.futureDays) = (form.lead, form.shift, form.pastDays, form.futureDays)
        try await store.saveSeriesSettings(series, of: profile.id)
        await episodes.syncReminders(profile)
    }

    /// A new address for the profile's feed (the old one stops working), or none; the new address's secret, shown once.
    func replaceAddress(of profile: Profile, revoke: Bool) async throws -> String? {
        var series = try await store.seriesSettings(of: profile.id)
        let token = revoke ? nil : Accounts.randomToken()
        series.calendarTokenHash = token.map(Accounts.digest)
        try await store.saveSeriesSettings(series, of: profile.id)
        return token
    }
}

/// Settings, "Followed shows": the reminder lead, the shift, and the days the calendar feed covers, each required.
struct SeriesSettingsForm: PostedForm {
    let lead: Int
    let shift: Int
    let pastDays: Int
    let futureDays: Int

    init(_ form: FormFields) throws(FieldError) {
        lead = try form.required("lead", in: SeriesSettings.leadRange, called: "Remind me")
        shift = try form.required("shift", in: SeriesSettings.shiftRange, called: "Shift")
        pastDays = try form.required("pastDays", in: SeriesSettings.pastRange, called: "Days back")
        futureDays = try form.required("futureDays", in: SeriesSettings.futureRange, called: "Days ahead")
    }
}

/// Settings, "Calendar feed": `action=new` makes a new address, `action=revoke` removes it.
struct CalendarAddressForm: PostedForm {
    enum Action: String, CaseIterable { case new, revoke }
    let action: Action

    init(_ form: FormFields) throws(FieldError) {
        action = try form.choice("action", called: "The action") ?? .new
    }
}
