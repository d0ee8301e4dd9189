import Foundation
import GuideApplication
import GuideCore
import GuideWebFormats
import Hummingbird
import TVMaze

/// `/episodes/:id` (an episode with its guest stars, directors and writers), `/people/:id` (a person and their
/// shows with the characters they play) and `/people?q=` (people search), from TVmaze.
struct EpisodePages: Sendable {
    let pages: Pages
    let settings: ServerSettings
    /// TVmaze's client and the tracker that follows shows.
    let series: SeriesServices
    let watched: WatchHistory

    struct EpisodeModel: PageModel {
        var chrome: Chrome
        var title: String
        var id: Int
        var name: String
        var code: String
        var showID: Int?
        var showName: String?
        var season: Int?
        var airs: String
        var facts: [ShowPages.Fact]
        var summary: [String]
        var image: String?
        var guests: [ShowPages.CastEntry]
        var crew: [CrewEntry]
        var hasGuests: Bool
        var hasCrew: Bool
        var tvmazeLink: String?
        /// For a signed-in viewer: whether they watched it, and when.
        var canMark: Bool
        var isWatched: Bool
        var watchedOn: String?
        var hasAired: Bool
        var returnTo: String
    }

    struct CrewEntry {
        var personID: Int
        var name: String
        var role: String
    }

    struct PersonModel: PageModel {
        var chrome: Chrome
        var title: String
        var name: String
        var image: String?
        var facts: [ShowPages.Fact]
        var credits: [CreditEntry]
        var guestRoles: [GuestRole]
        var hasGuestRoles: Bool
        var tvmazeLink: String?
    }

    struct GuestRole {
        var episodeID: Int
        var episode: String
        var showID: Int?
        var showName: String?
        var character: String?
    }

    struct CreditEntry {
        var showID: Int
        var showName: String
        var years: String?
        var character: String?
        var isVoice: Bool
    }

    struct PeopleModel: PageModel {
        var chrome: Chrome
        var title: String
        var query: String
        var searched: Bool
        var people: [PersonEntry]
    }

    struct PersonEntry {
        var id: Int
        var name: String
        var details: String
        var image: String?
    }

    func register(on routes: RouteGroups) {
        routes.open.get(SitePath.episode) { request, context, id in try await episode(request, context, id.rawValue) }
        routes.open.get(SitePath.person) { request, context, id in try await person(request, context, id.rawValue) }
        routes.open.get(.people) { request, context in try await people(request, context) }
    }

    func episode(_ request: Request, _ context: some GuideContext, _ id: Int) async throws -> HTMLPage {
        let format = SeriesFormat(pages, settings, context)
        let words = format.words
        guard let episode = try await series.tvmaze({ try await series.client.episode(id, embed: [.show, .guestcast, .guestcrew]) }) else {
            throw Refusal(.notFound, saying: "TVmaze has no episode {id}.", ["id": String(id)])
        }
        let show = episode.show
        let time = episode.airTime()
        var facts: [ShowPages.Fact] = []
        if let channel = show?.channel?.name { facts.append(ShowPages.Fact(label: words("On"), value: channel)) }
        if let runtime = episode.runtime { facts.append(ShowPages.Fact(label: words("Runtime"), value: format.minutes(runtime))) }
        if let rating = episode.rating { facts.append(ShowPages.Fact(label: words("Rating"), value: format.rating(rating))) }
        let name = episode.name ?? format.unnamed(id)
        let profile = context.viewer?.profile
        let mark = if let profile, let showID = show?.id { try await watched.marks(of: showID, by: profile.id)[id] } else { WatchedEpisode?.none }
        let model = await EpisodeModel(
            chrome: pages.chrome(context, section: "shows"), title: [show?.name, episode.code, name].compactMap { $0 }.joined(separator: " "),
            id: id, name: name, code: episode.code, showID: show?.id, showName: show?.name, season: episode.season,
            airs: format.airs(time), facts: facts, summary: HTMLText.paragraphs(episode.summary),
            image: SeriesServices.image(episode.image),
            guests: episode.guests.compactMap(ShowPages.CastEntry.init),
            crew: episode.crew.compactMap { role in
                role.person.map { CrewEntry(personID: $0.id, name: $0.name, role: role.job ?? words("Crew")) }
            }.sorted { ($0.role, $0.name) < ($1.role, $1.name) },
            hasGuests: !episode.guests.isEmpty, hasCrew: !episode.crew.isEmpty,
            tvmazeLink: episode.url, canMark: profile != nil && show?.id != nil, isWatched: mark != nil,
            watchedOn: mark.map(format.watched),
            hasAired: episode.hasAired(by: settings.now(), zone: show?.channel?.timeZone ?? .gmt), returnTo: SitePath.episode(TVMazeNumber(id)))
        return try pages.page("episode", model)
    }

    func person(_ request: Request, _ context: some GuideContext, _ id: Int) async throws -> HTMLPage {
        let client = series.client
        let (clock, words) = (settings.clock(context), pages.words(context))
        guard let person = try await series.tvmaze({ try await client.person(id) }) else {
            throw Refusal(.notFound, saying: "TVmaze has no person {id}.", ["id": String(id)])
        }
        let credits = try await series.tvmaze { try await client.castCredits(ofPerson: id, withCharacters: true) }
        let guestCredits = try await series.tvmaze { try await client.guestCastCredits(ofPerson: id) }
        var facts: [ShowPages.Fact] = []
        if let born = person.birthday { facts.append(ShowPages.Fact(label: words("Born"), value: clock.civil(born))) }
        if let died = person.deathday { facts.append(ShowPages.Fact(label: words("Died"), value: clock.civil(died))) }
        if let country = person.country { facts.append(ShowPages.Fact(label: words("Country"), value: country)) }
        let entries = credits.compactMap { credit -> CreditEntry? in
            guard let show = credit.show, let showID = show.id, let showName = show.name else { return nil }
            return CreditEntry(showID: showID, showName: showName, years: show.years, character: credit.character, isVoice: credit.isVoice)
        }
        let guestRoles = guestCredits.compactMap { credit -> GuestRole? in
            guard let episode = credit.episode else { return nil }
            return GuestRole(episodeID: episode.id, episode: [episode.code, episode.name].compactMap { $0 }.joined(separator: " "),
                             showID: episode.show?.id, showName: episode.show?.name, character: credit.character)
        }
        let model = await PersonModel(chrome: pages.chrome(context, section: "shows"), title: person.name, name: person.name,
                                image: SeriesServices.image(person.image), facts: facts, credits: entries,
                                guestRoles: guestRoles, hasGuestRoles: !guestRoles.isEmpty, tvmazeLink: person.url)
        return try pages.page("person", model)
    }

    func people(_ request: Request, _ context: some GuideContext) async throws -> HTMLPage {
        let text = String((QueryParameters(request: request).string("q") ?? "").prefix(100)).trimmingCharacters(in: .whitespaces)
        let words = pages.words(context)
        var model = await PeopleModel(chrome: pages.chrome(context, section: "shows"),
                                      title: text.isEmpty ? words("People") : words("People: {query}", ["query": text]),
                                query: text, searched: !text.isEmpty, people: [])
        if !text.isEmpty {
            let clock = settings.clock(context)
            model.people = try await series.tvmaze { try await series.client.searchPeople(text) }.map { person in
                let details = [person.country, person.birthday.map { words("born {date}", ["date": clock.civil($0)]) }].compactMap { $0 }
                return PersonEntry(id: person.id, name: person.name, details: details.joined(separator: ", "),
                                   image: SeriesServices.image(person.image))
            }
        }
        return try pages.page("people", model)
    }
}
