import Foundation
import GuideCore
import GuideIngest
import GuideStore
import Hummingbird
import TVMaze

/// What every page handler shares: the store, accounts, the templates, the channel directory and the server's
/// settings. What only some need (the refresh scheduler, TVmaze, the feeds' HTTP client) each is given itself.
struct Site: Sendable {
    let store: any GuideDatabase
    let accounts: Accounts
    let renderer: PageRenderer
    let assets: StaticAssets
    let directory: ChannelDirectory
    let settings: ServerSettings
    /// Who is asking, as the server counts clients (one instance for every page and the image route).
    let addresses: ClientAddress

    /// Where the request comes from, for sign-in throttling (``ClientAddress``).
    func clientAddress(_ request: Request, _ context: some GuideContext) -> String {
        addresses.of(request, peer: context.peer)
    }

    /// A page: `template` with `page`, as the response.
    func page(_ template: String, _ page: some Any, status: HTTPResponse.Status = .ok) throws -> HTMLPage {
        HTMLPage(html: try renderer.render(template, page), status: status)
    }

    func chrome(_ context: some GuideContext, section: String) async -> Chrome {
        var chrome = Chrome(context, section: section, assets: assets.version)
        // A count for the header, so a failure to count leaves it out rather than failing the page.
        if let profile = context.viewer?.profile, let count = try? await schedule(profile, context).airingToday(at: settings.now()), count > 0 {
            chrome.airingToday = count
        }
        return chrome
    }

    /// The profile's followed episodes in its zone and shift.
    func schedule(_ profile: Profile, _ context: some GuideContext) async throws -> EpisodeSchedule {
        EpisodeSchedule(store: store, profile: profile.id, zone: clock(context).zone, settings: try await store.seriesSettings(of: profile.id))
    }

    /// Brings the profile's episode reminders in line with its followed shows at once (after following, unfollowing,
    /// or a change of reminder settings); a failure waits for serve's next sync, a few minutes later.
    func syncEpisodeReminders(_ profile: Profile) async {
        _ = try? await EpisodeReminders(store: store, defaultZone: settings.timeZone).sync(profile, at: settings.now())
    }

    /// The zone and day start the viewer sees the guide in: their profile's, else their browser's zone, else the server's.
    func clock(_ context: some GuideContext) -> ViewerClock {
        let profile = context.viewer?.profile
        let zone = profile?.timeZone.flatMap(TimeZone.init(identifier:)) ?? context.browserZone ?? settings.timeZone
        return ViewerClock(zone: zone, dayStartHour: profile?.dayStartHour ?? settings.dayStartHour)
    }

    /// The channels the viewer sees, in their order: their chosen ones that still exist, else every channel with
    /// listings (a feed describing 3,000 channels may list programmes for 160 of them).
    func lineup(_ context: some GuideContext) async throws -> (channels: [Channel], isChosen: Bool) {
        let snapshot = try await directory.snapshot()
        guard let profile = context.viewer?.profile else { return (snapshot.listed, false) }
        let chosen = try await store.lineup(of: profile.id).compactMap(snapshot.channel)
        return chosen.isEmpty ? (snapshot.listed, false) : (chosen, true)
    }

    /// The page a form was posted from (its `Referer`'s path and query on this site), to go back to; else the guide.
    func returnPath(_ request: Request) -> String {
        request.headers[.referer].flatMap(URLComponents.init(string:)).map { parts in
            parts.percentEncodedPath + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
        }.flatMap { $0.hasPrefix("/") && !$0.hasPrefix("//") ? $0 : nil } ?? "/"
    }

    /// The form a request posted (SessionMiddleware has already read and checked it).
    func form(_ request: Request, _ context: some GuideContext) async throws -> FormFields {
        var request = request
        return FormFields(encoded: String(buffer: try await request.collectBody(upTo: context.maxUploadSize)))
    }
}

