import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/settings`: each profile's own day start, zone and calendar feed.
struct SettingsPage: Sendable {
    let store: any AccountStore
    let pages: Pages
    let settings: ServerSettings
    let calendar: CalendarFeed

    struct SettingsModel: PageModel {
        var chrome: Chrome
        var title: String
        var hours: [Choice]
        var zones: [Choice]
        var themes: [Choice]
        var languages: [Choice]
        var clocks: [Choice]
        /// The profile's listings languages as the field shows them ("de, en").
        var listingLanguages: String
        var series: CalendarFeed.SettingsView
        var message: String?
    }

    func register(on routes: RouteGroups) {
        routes.profile.get(.settings) { request, context in
            let words = pages.words(context)
            return try await page(request, context, message: request.uri.queryParameters.get("saved") == nil ? nil : words("Saved."))
        }
        routes.profile.post(.settings) { request, context in try await save(request, context) }
        routes.profile.post(.seriesSettings) { request, context in
            try await calendar.save(SeriesSettingsForm(request, context), of: context.profile)
            return Response.redirect(to: SitePath.settings(query: "saved=1#series"))
        }
        routes.profile.post(.calendarAddress) { request, context in try await changeCalendarAddress(request, context) }
        routes.open.post(.theme) { request, context in try await switchTheme(request, context) }
    }

    func page(_ request: Request, _ context: ProfileRequestContext, message: String?,
                      newFeedToken: String? = nil) async throws -> HTMLPage {
        let profile = context.profile
        let words = pages.words(context)
        let model = await SettingsModel(
            chrome: pages.chrome(context, section: "settings"), title: words("Settings"),
            hours: (0...23).map { Choice(value: String($0), label: ($0 < 10 ? "0\($0)" : "\($0)") + ":00", isSelected: $0 == profile.dayStartHour) },
            zones: [Choice(value: "", label: words("My browser's zone"), isSelected: profile.timeZone == nil)]
                + TimeZone.knownTimeZoneIdentifiers.sorted().map { Choice(value: $0, label: $0, isSelected: $0 == profile.timeZone) },
            themes: Profile.Theme.allCases.map { Choice(value: $0.rawValue, label: Self.label($0, words), isSelected: $0 == profile.theme) },
            languages: [Choice(value: "", label: words("My browser's language"), isSelected: profile.language == nil)]
                + Language.supported.map { Choice(value: $0.code, label: $0.nativeName, isSelected: $0 == profile.language) },
            clocks: ViewerClock.HourCycle.allCases.map { Choice(value: $0.rawValue, label: Self.label($0, words), isSelected: $0 == profile.hours) },
            listingLanguages: profile.listingLanguages.joined(separator: ", "),
            series: try await calendar.view(of: profile, request: request, local: context.local, newToken: newFeedToken), message: message)
        return try pages.page("settings", model)
    }

    func save(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await SettingsForm(request, context)
        try await store.updateSettings(of: profile.id, dayStartHour: form.dayStart, timeZone: form.zone)
        if let theme = form.theme { try await store.setTheme(theme, of: profile.id) }
        if form.hasLanguage { try await store.setLanguage(form.language, hours: form.hours ?? profile.hours, of: profile.id) }
        if let languages = form.listingLanguages { try await store.setListingLanguages(languages, of: profile.id) }
        return Response.redirect(to: SitePath.settings(query: "saved=1"))
    }

    /// A new address for the calendar feed, shown this once on the page; or none, when revoked.
    func changeCalendarAddress(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let form = try await CalendarAddressForm(request, context)
        guard let token = try await calendar.replaceAddress(of: context.profile, revoke: form.action == .revoke) else {
            return .redirect(to: SitePath.settings(query: "saved=1#calendar"))
        }
        let words = pages.words(context)
        return try await page(request, context, message: words("Copy your feed address now: it is not shown again."), newFeedToken: token)
            .response(from: request, context: context)
    }

    static func label(_ hours: ViewerClock.HourCycle, _ words: Localizer) -> String {
        switch hours {
        case .locale: words("As my language writes it")
        case .twelve: words("12 hours (8:30 PM)")
        case .twentyFour: words("24 hours (20:30)")
        }
    }

    static func label(_ theme: Profile.Theme, _ words: Localizer) -> String {
        switch theme {
        case .system: words("As this device is set (light or dark)")
        case .light: words("Light")
        case .dark: words("Dark")
        }
    }

    /// `POST /theme` (the header's button): a profile's theme is saved with it; a guest's is a cookie of this browser.
    /// Back to the page it came from (its path, from Referer), else the guide.
    func switchTheme(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let theme = try await ThemeForm(request, context).theme
        var response = Response.redirect(to: request.returnPath)
        if let profile = context.viewer?.profile {
            try await store.setTheme(theme, of: profile.id)
        } else {
            response.setCookie(Cookie(name: SessionMiddleware.themeCookie, value: theme.rawValue, maxAge: 366 * 86_400, path: "/",
                                      secure: settings.secureCookies, httpOnly: true, sameSite: .lax))
        }
        return response
    }
}

/// Settings: the hour the day starts (required), a zone from the list (else the browser's), a theme, the
/// language (blank: the browser's) with its clock, and the listings' languages in order (blank: the pages').
struct SettingsForm: PostedForm {
    let dayStart: Int
    let zone: String?
    let theme: Profile.Theme?
    /// Whether the form had the language field at all (an older page's form did not).
    let hasLanguage: Bool
    let language: Language?
    let hours: ViewerClock.HourCycle?
    /// Nil when the form had no such field (an older page's).
    let listingLanguages: [String]?

    init(_ form: FormFields) throws(FieldError) {
        dayStart = try form.required("dayStart", in: 0...23, called: "The day start (hour)")
        zone = try form.text("zone", limit: 64, called: "The zone")
        if let zone, TimeZone(identifier: zone) == nil {
            throw FieldError(name: "zone", saying: "{zone} is not a time zone; choose one from the list", ["zone": zone])
        }
        theme = try form.choice("theme", called: "The theme")
        // Sent blank, it is the browser's language; not sent at all, an older page's form, it is left as it was.
        hasLanguage = form.isTicked("language")
        let code = try form.text("language", limit: 8, called: "The language")
        language = code.flatMap(Language.init(tag:))
        if let code, language == nil {
            throw FieldError(name: "language", label: "The language", problem: .oneOf(choices: Language.supported.map(\.code), got: code))
        }
        hours = try form.choice("hours", called: "The clock")
        let listed = try form.text("listingLanguages", limit: 100, called: "The listings' languages")
        if let listed, LocalizedText.languages(in: listed) == nil {
            throw FieldError(name: "listingLanguages", saying: "{languages} is not a list of language codes; write them in order, like de, en",
                             ["languages": listed])
        }
        listingLanguages = form.isTicked("listingLanguages") ? listed.flatMap(LocalizedText.languages(in:)) ?? [] : nil
    }
}

/// The header's theme button: the theme to switch to.
struct ThemeForm: PostedForm {
    let theme: Profile.Theme

    init(_ form: FormFields) throws(FieldError) {
        guard let theme = try form.choice("theme", as: Profile.Theme.self, called: "The theme") else {
            throw FieldError(name: "theme", saying: "The theme takes one of system, light, dark")
        }
        self.theme = theme
    }
}
