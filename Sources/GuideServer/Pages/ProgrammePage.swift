import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird
import Mustache
import TVMaze

/// `/programmes/ID`: one airing's details as a page of its own; with `?part=panel`, just the panel the grid's
/// script shows over the grid.
struct ProgrammePage: Sendable {
    let store: any ListingStore & ChannelSettingsStore & RecordingStore
    let directory: ChannelDirectory
    let pages: Pages
    let settings: ServerSettings
    /// What the viewer watched, for an airing of a followed show's episode.
    let watched: WatchHistory

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var panel: ProgrammeDetails
        var isPage: Bool
    }

    func register(on routes: RouteGroups) {
        routes.open.get(SitePath.programme) { request, context, id in try await render(request, context, id) }
        routes.open.get(SitePath.programmeCalendar) { request, context, id in try await calendar(request, context, id) }
    }

    /// "Add to calendar": the airing as one iCalendar event, with an alarm 15 minutes before. Its UID is the channel
    /// and start, not the programme's row (a refresh replaces rows), so adding it again after a refresh updates the
    /// event instead of adding a second.
    func calendar(_ request: Request, _ context: some GuideContext, _ id: ProgrammeID) async throws -> Response {
        let words = pages.words(context)
        guard let stored = try await store.programme(id) else {
            throw Refusal(.notFound, saying: "There is no such programme: a newer import may have replaced it.")
        }
        let programme = stored.programme
        let channel = try await directory.snapshot().channel(programme.channel)?.name ?? programme.channel.rawValue
        let title = [programme.title, programme.episodeLabel].compactMap { $0 }.joined(separator: " ")
        var event = ["BEGIN:VEVENT", "UID:" + ICalendar.text("programme-\(programme.start.unixSeconds)-\(programme.channel.rawValue)@tvguide"),
                     "DTSTAMP:" + ICalendar.utc(settings.now()), "DTSTART:" + ICalendar.utc(programme.start),
                     "DTEND:" + ICalendar.utc(stored.end), "SUMMARY:" + ICalendar.text(title), "LOCATION:" + ICalendar.text(channel)]
        let description = [programme.subTitle, programme.description].compactMap { $0 }.joined(separator: "\n\n")
        if !description.isEmpty { event.append("DESCRIPTION:" + ICalendar.text(description)) }
        let alarm = words("{title} on {channel} starts in 15 minutes", ["title": title, "channel": channel])
        event += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + ICalendar.text(alarm),
                  "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT"]
        let body = ICalendar.document(["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//tvguide//Programme//EN", "CALSCALE:GREGORIAN",
                                       "METHOD:PUBLISH"] + event + ["END:VCALENDAR"])
        return Response(status: .ok, headers: [.contentType: "text/calendar; charset=utf-8",
                                               .contentDisposition: "attachment; filename=\"programme-\(id).ics\""],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    func render(_ request: Request, _ context: some GuideContext, _ id: ProgrammeID) async throws -> HTMLPage {
        let words = pages.words(context)
        let isPanel = request.uri.queryParameters.get("part") == "panel"
        let clock = settings.clock(context)
        guard let stored = try await store.programme(id) else {
            throw Refusal(.notFound, saying: "There is no programme {id}: a newer import may have replaced it.", ["id": id.description])
        }
        var details = try await ProgrammeDetails(stored, store: store, channels: try await directory.snapshot(), clock: clock, now: settings.now(),
                                                 viewer: context.viewer?.profile,
                                                 returnTo: isPanel ? Self.panelReturn(request.returnPath, programme: id) : SitePath.programme(id),
                                                 words: words, languages: context.listingLanguages)
        if let viewer = context.viewer?.profile.id {
            details.followedEpisode = try await followedEpisode(stored.programme, of: viewer, format: SeriesFormat(pages, settings, context),
                                                             returnTo: SitePath.programme(id))
        }
        let model = await Model(chrome: pages.chrome(context, section: "guide"), title: details.title, panel: details, isPage: !isPanel)
        return try pages.page(isPanel ? "panel" : "programme", model)
    }
}

extension ProgrammePage {
    /// Where a form in the panel comes back to: the page the panel was opened on, with this panel open again (`p=`).
    static func panelReturn(_ path: String, programme id: ProgrammeID) -> String {
        guard var parts = URLComponents(string: path) else { return SitePath.programme(id) }
        parts.queryItems = (parts.queryItems ?? []).filter { $0.name != "p" && $0.name != "done" } + [URLQueryItem(name: "p", value: id.description)]
        return parts.string ?? SitePath.programme(id)
    }

    /// The episode of a show `profile` follows that `programme` is: the show by its name (case and accents aside), the
    /// episode by the season and number the listings give; nil when the listings do not number it.
    func followedEpisode(_ programme: Programme, of profile: ProfileID, format: SeriesFormat, returnTo: String) async throws
        -> ProgrammeDetails.FollowedEpisode? {
        guard let numbering = programme.numbering, let season = numbering.season, let number = numbering.episode else { return nil }
        let title = SearchText.fold(programme.title)
        guard let show = try await watched.store.following(profile).first(where: { SearchText.fold($0.show.name) == title })?.show,
              let episode = try await watched.store.episodes(ofShow: show.id).first(where: { $0.season == season && $0.number == number }) else {
            return nil
        }
        let mark = try await watched.marks(of: show.id, by: profile)[episode.id]
        return ProgrammeDetails.FollowedEpisode(showID: show.id, episodeID: episode.id, code: episode.code, isWatched: mark != nil,
                                                watchedOn: mark.map(format.watched),
                                                returnTo: returnTo)
    }
}

extension ProgrammePage.Model: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "chrome": chrome
        case "title": title
        case "panel": panel
        case "isPage": isPage
        default: nil
        }
    }
}
