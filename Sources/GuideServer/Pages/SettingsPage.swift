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
        var series: CalendarFeed.SettingsView
        var message: String?
    }

    func register(on router: Router<GuideRequestContext>) {
        router.get("settings") { request, context in
            try await page(request, context, message: request.uri.queryParameters.get("saved") == nil ? nil : "Saved.")
        }
        router.post("settings") { request, context in try await save(request, context) }
    }

    func page(_ request: Request, _ context: GuideRequestContext, message: String?,
                      newFeedToken: String? = nil) async throws -> HTMLPage {
        let profile = try site.requireProfile(request, context)
        let model = await SettingsModel(
            chrome: site.chrome(context, section: "settings"), title: "Settings",
            hours: (0...23).map { Choice(value: String($0), label: ($0 < 10 ? "0\($0)" : "\($0)") + ":00", isSelected: $0 == profile.dayStartHour) },
            zones: [Choice(value: "", label: "My browser's zone", isSelected: profile.timeZone == nil)]
                + TimeZone.knownTimeZoneIdentifiers.sorted().map { Choice(value: $0, label: $0, isSelected: $0 == profile.timeZone) },
            series: try await CalendarFeed(site: site).view(of: profile, request: request, newToken: newFeedToken), message: message)
        return try site.page("settings", model)
    }

    func save(_ request: Request, _ context: GuideRequestContext) async throws -> Response {
        let profile = try site.requireProfile(request, context)
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
        return Response.redirect(to: "/settings?saved=1")
    }
}
