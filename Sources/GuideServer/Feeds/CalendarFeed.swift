import Foundation
import GuideCore
import GuideStore
import Hummingbird
import NIOCore
import TVMaze

/// The iCalendar feed of a profile's followed episodes at a secret address (`/calendar/TOKEN.ics`, no sign-in: a
/// calendar app cannot sign in), and the settings behind it: reminder lead time, shift, the days the feed covers,
/// and making or revoking the address (POST `/settings/series`, `/settings/calendar`).
struct CalendarFeed: Sendable {
    let site: Site

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
        routes.open.get("calendar/:file") { request, context in try await feed(request, context) }
        routes.profile.post("settings/series") { request, context in try await saveSettings(request, context) }
        routes.profile.post("settings/calendar") { request, context in try await changeAddress(request, context) }
    }

    func feed(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let file = context.parameters.get("file") ?? ""
        guard file.hasSuffix(".ics") else { throw HTTPError(.notFound) }
        let token = String(file.dropLast(4))
        let site = self.site
        // An unknown or revoked address looks like any missing page.
        guard let id = try await site.store.calendarProfile(tokenHash: Accounts.digest(token)), let profile = try await site.store.profile(id) else {
            throw HTTPError(.notFound, message: "No such calendar. Its address may have been replaced in Settings.")
        }
        let settings = try await site.store.seriesSettings(of: id)
        let zone = profile.timeZone.flatMap(TimeZone.init(identifier:)) ?? site.settings.timeZone
        let now = site.settings.now()
        let today = CivilDate(now, in: zone)
        let airings = try await EpisodeSchedule(store: site.store, profile: id, zone: zone, settings: settings)
            .airings(from: today.adding(days: -settings.pastDays), through: today.adding(days: settings.futureDays))
        let body = EpisodeCalendar.feed(airings, calendarName: "tvguide: \(profile.name)'s shows", leadMinutes: settings.leadMinutes, now: now)
        return CompressibleBody.response(Array(body.utf8), for: request,
                                         headers: [.contentType: "text/calendar; charset=utf-8", .cacheControl: "private, max-age=300",
                                                   .contentDisposition: "inline; filename=\"tvguide.ics\""])
    }

    /// The settings as the page shows them; `newToken`, the address's secret just made, is shown this once.
    func view(of profile: Profile, request: Request, local: SocketAddress?, newToken: String? = nil) async throws -> SettingsView {
        let settings = try await site.store.seriesSettings(of: profile.id)
        let feed = newToken.map { "\(site.settings.publicAddress(for: request, local: local))/calendar/\($0).ics" }
        return SettingsView(lead: settings.leadMinutes, shift: settings.shiftMinutes, pastDays: settings.pastDays, futureDays: settings.futureDays,
                            feedURL: feed,
                            // webcal:// is the same address for calendar apps, which fetch it over https or http.
                            webcalURL: feed.map { "webcal" + $0.drop { $0 != ":" } },
                            hasFeed: settings.calendarTokenHash != nil)
    }

    func saveSettings(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await site.form(request, context)
        var settings = try await site.store.seriesSettings(of: profile.id)
        settings.leadMinutes = try Self.number(form, "lead", SeriesSettings.leadRange, "Remind me")
        settings.shiftMinutes = try Self.number(form, "shift", SeriesSettings.shiftRange, "Shift")
        settings.pastDays = try Self.number(form, "pastDays", SeriesSettings.pastRange, "Days back")
        settings.futureDays = try Self.number(form, "futureDays", SeriesSettings.futureRange, "Days ahead")
        try await site.store.saveSeriesSettings(settings, of: profile.id)
        await site.syncEpisodeReminders(profile)
        return .redirect(to: "/settings?saved=1#series")
    }

    /// `action=new` makes a new address (the old one stops working) and shows it this once; `action=revoke` removes it.
    func changeAddress(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await site.form(request, context)
        var settings = try await site.store.seriesSettings(of: profile.id)
        let token = form["action"] == "revoke" ? nil : Accounts.randomToken()
        settings.calendarTokenHash = token.map(Accounts.digest)
        try await site.store.saveSeriesSettings(settings, of: profile.id)
        guard let token else { return .redirect(to: "/settings?saved=1#calendar") }
        return try await SettingsPage(site: site).page(request, context, message: "Copy your feed address now: it is not shown again.",
                                                             newFeedToken: token).response(from: request, context: context)
    }

    static func number(_ form: FormFields, _ name: String, _ range: ClosedRange<Int>, _ label: String) throws -> Int {
        do throws(FieldError) {
            guard let value = try form.integer(name, in: range, label: label) else {
                throw FieldError(name: name, message: "\(label) takes a whole number \(Bounded.describe(range)).")
            }
            return value
        } catch {
            throw HTTPError(.badRequest, message: error.message)
        }
    }
}
