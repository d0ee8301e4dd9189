import Catalogs
import Foundation
import GuideApplication
import GuideCore
import Hummingbird

/// Writes the site's pages: a template filled from its model, under the header every page shares (who is signed in,
/// the form token, the theme, and the count of the viewer's followed episodes airing today).
struct Pages: Sendable {
    let renderer: PageRenderer
    let assets: StaticAssets
    let episodes: FollowedEpisodes
    let translations: Translations

    /// A page: `template` with `page`, as the response, in the language of its header.
    func page(_ template: String, _ page: some PageModel, status: HTTPResponse.Status = .ok) throws -> HTMLPage {
        HTMLPage(html: try renderer.render(template, page), status: status)
    }

    /// The words and formats of whoever `context` says is asking.
    func words(_ context: some GuideContext) -> Localizer {
        translations.localizer(context.language, locale: context.locale)
    }

    /// The header for whoever `context` says is asking, with `section` highlighted.
    func chrome(_ context: some GuideContext, section: String) async -> Chrome {
        var chrome = Chrome(context, section: section, assets: assets.version)
        // A count for the header, so a failure to count leaves it out rather than failing the page.
        if let count = try? await episodes.airingToday(context), count > 0 {
            chrome.airingToday = count
        }
        return chrome
    }
}

extension ServerSettings {
    /// The zone and day start the viewer sees the guide in: their profile's, else their browser's zone, else the server's.
    func clock(_ context: some GuideContext) -> ViewerClock {
        let profile = context.viewer?.profile
        let zone = profile?.timeZone.flatMap(TimeZone.init(identifier:)) ?? context.browserZone ?? timeZone
        return ViewerClock(zone: zone, dayStartHour: profile?.dayStartHour ?? dayStartHour, locale: context.locale,
                           hours: profile?.hours ?? .locale)
    }
}

extension Request {
    /// The page a form was posted from (its `Referer`'s path and query on this site), to go back to; else the guide.
    var returnPath: String {
        headers[.referer].flatMap(URLComponents.init(string:)).map { parts in
            parts.percentEncodedPath + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
        }.flatMap { $0.hasPrefix("/") && !$0.hasPrefix("//") ? $0 : nil } ?? "/"
    }
}
