import Foundation
import GuideCore
import GuideStore
import Hummingbird

/// `/settings`: each profile's own day start, zone and calendar feed.
struct SettingsPage: Sendable {
    let site: Site

    struct SettingsModel {
        var chrome: Chrome
        var title: String
        var hours: [Choice]
        var zones: [Choice]
        var themes: [Choice]
        var series: CalendarFeed.SettingsView
        var message: String?
    }

    func register(on routes: RouteGroups) {
        routes.profile.get("settings") { request, context in
            try await page(request, context, message: request.uri.queryParameters.get("saved") == nil ? nil : "Saved.")
        }
        routes.profile.post("settings") { request, context in try await save(request, context) }
        routes.open.post("theme") { request, context in try await switchTheme(request, context) }
    }

    func page(_ request: Request, _ context: ProfileRequestContext, message: String?,
                      newFeedToken: String? = nil) async throws -> HTMLPage {
        let profile = context.profile
        let model = await SettingsModel(
            chrome: site.chrome(context, section: "settings"), title: "Settings",
            hours: (0...23).map { Choice(value: String($0), label: ($0 < 10 ? "0\($0)" : "\($0)") + ":00", isSelected: $0 == profile.dayStartHour) },
            zones: [Choice(value: "", label: "My browser's zone", isSelected: profile.timeZone == nil)]
                + TimeZone.knownTimeZoneIdentifiers.sorted().map { Choice(value: $0, label: $0, isSelected: $0 == profile.timeZone) },
            themes: Profile.Theme.allCases.map { Choice(value: $0.rawValue, label: Self.label($0), isSelected: $0 == profile.theme) },
            series: try await CalendarFeed(site: site).view(of: profile, request: request, local: context.local, newToken: newFeedToken), message: message)
        return try site.page("settings", model)
    }

    func save(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await site.form(request, context)
        guard let hour = form["dayStart"].flatMap({ Bounded.integer($0, in: 0...23) }) else {
            throw HTTPError(.badRequest, message: "The day starts at an hour from 0 to 23.")
        }
        let zone = form["zone"]
        if let zone, TimeZone(identifier: zone) == nil {
            throw HTTPError(.badRequest, message: "\(zone) is not a time zone; choose one from the list.")
        }
        let site = self.site
        try await site.store.updateSettings(of: profile.id, dayStartHour: hour, timeZone: zone)
        if let theme = form["theme"].flatMap(Profile.Theme.init(rawValue:)) { try await site.store.setTheme(theme, of: profile.id) }
        return Response.redirect(to: "/settings?saved=1")
    }

    static func label(_ theme: Profile.Theme) -> String {
        switch theme {
        case .system: "As this device is set (light or dark)"
        case .light: "Light"
        case .dark: "Dark"
        }
    }

    /// `POST /theme` (the header's button): a profile's theme is saved with it; a guest's is a cookie of this browser.
    /// Back to the page it came from (its path, from Referer), else the guide.
    func switchTheme(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let form = try await site.form(request, context)
        guard let theme = form["theme"].flatMap(Profile.Theme.init(rawValue:)) else {
            throw HTTPError(.badRequest, message: "theme is system, light or dark")
        }
        var response = Response.redirect(to: site.returnPath(request))
        if let profile = context.viewer?.profile {
            try await site.store.setTheme(theme, of: profile.id)
        } else {
            response.setCookie(Cookie(name: SessionMiddleware.themeCookie, value: theme.rawValue, maxAge: 366 * 86_400, path: "/",
                                      secure: site.settings.secureCookies, httpOnly: true, sameSite: .lax))
        }
        return response
    }
}
