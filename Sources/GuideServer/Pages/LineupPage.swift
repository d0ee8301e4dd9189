import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/channels`: the signed-in profile chooses which channels its guide shows and in what order. One form, whose
/// buttons add, remove and move channels, so it works without JavaScript and every change is one post.
struct LineupPage: Sendable {
    let store: any AccountStore & ChannelSettingsStore
    let directory: ChannelDirectory
    let pages: Pages
    static let perPage = 50

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var chosen: [Entry]
        var isChosen: Bool
        var total: Int
        var listed: Int
        var filter: String
        var available: [Entry]
        var previousPage: String?
        var nextPage: String?
        var message: String?
        /// "Your guide shows these 12 channels in this order.", or what it shows while none are chosen.
        var summary: String
    }

    struct Entry {
        var id: String
        var name: String
        var number: String?
        var position: Int
        var isFirst: Bool
        var isLast: Bool
    }

    func register(on routes: RouteGroups) {
        routes.profile.get(.lineup) { request, context in try await render(request, context, message: nil) }
        routes.profile.post(.lineup) { request, context in try await change(request, context) }
        routes.profile.post(.favourites) { request, context in try await favourite(request, context) }
    }

    /// `POST /favourites` (`channel`, `favourite` 1 or 0): one click adds a channel to the viewer's favourites or
    /// takes it out, then back to the page it was made on.
    func favourite(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await FavouriteForm(request, context)
        guard let id = form.channel, let channel = try await directory.snapshot().channel(id) else {
            throw Refusal(.badRequest, saying: "There is no such channel in the guide.")
        }
        // A store's refusal (.invalid) is ErrorPages' 400, in the viewer's words.
        try await store.setFavourite(channel.id, form.isFavourite, of: profile.id)
        return Response.redirect(to: request.returnPath)
    }

    func render(_ request: Request, _ context: ProfileRequestContext, message: String?) async throws -> HTMLPage {
        let profile = context.profile
        let query = QueryParameters(request: request)
        let filter = query.string("q") ?? ""
        let page = try query.integer("page", in: 0...100_000, default: 0)
        let snapshot = try await directory.snapshot()
        let chosenIDs = try await store.lineup(of: profile.id)
        let chosen = chosenIDs.compactMap(snapshot.channel)
        let chosenSet = Set(chosenIDs)
        let folded = SearchText.fold(filter)
        let others = snapshot.channels.filter { channel in
            !chosenSet.contains(channel.id)
                && (folded.isEmpty || SearchText.fold(channel.name).contains(folded) || channel.id.rawValue.lowercased().contains(folded))
        }
        let from = min(page * Self.perPage, others.count)
        let shown = others[from..<min(others.count, from + Self.perPage)]
        let filterQuery = filter.isEmpty ? "" : "q=\(SitePath.encoded(filter))&"
        let words = pages.words(context)
        let summary = chosen.isEmpty
            ? words.plural("Your guide shows the {count} channel with listings (of {total} described), in the listings' order. Add channels below to choose your own.",
                           "Your guide shows the {count} channels with listings (of {total} described), in the listings' order. Add channels below to choose your own.",
                           count: snapshot.listed.count, ["total": words.number(snapshot.channels.count)])
            : words.plural("Your guide shows this channel.", "Your guide shows these {count} channels in this order.", count: chosen.count)
        let model = await Model(
            chrome: pages.chrome(context, section: "channels"), title: words("Your channels"),
            chosen: chosen.enumerated().map { index, channel in
                Entry(id: channel.id.rawValue, name: channel.name, number: channel.number, position: index + 1,
                      isFirst: index == 0, isLast: index == chosen.count - 1)
            },
            isChosen: !chosen.isEmpty, total: snapshot.channels.count, listed: snapshot.listed.count, filter: filter,
            available: shown.map { Entry(id: $0.id.rawValue, name: $0.name, number: $0.number, position: 0, isFirst: false, isLast: false) },
            previousPage: page > 0 ? SitePath.lineup(query: "\(filterQuery)page=\(page - 1)") : nil,
            nextPage: from + Self.perPage < others.count ? SitePath.lineup(query: "\(filterQuery)page=\(page + 1)") : nil,
            message: message, summary: summary)
        return try pages.page("channels", model)
    }

    /// Applies the button pressed: `add`, `remove`, `up`, `down` (each naming a channel id) or `clear`.
    func change(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await LineupForm(request, context)
        let known = try await directory.snapshot()
        var lineup = try await store.lineup(of: profile.id).filter { known.channel($0) != nil }
        if let id = form.add, known.channel(id) != nil, !lineup.contains(id) {
            lineup.append(id)
        }
        if let id = form.remove { lineup.removeAll { $0 == id } }
        if let id = form.up, let index = lineup.firstIndex(of: id), index > 0 {
            lineup.swapAt(index, index - 1)
        }
        if let id = form.down, let index = lineup.firstIndex(of: id), index + 1 < lineup.count {
            lineup.swapAt(index, index + 1)
        }
        if form.clear { lineup = [] }
        try await store.setLineup(lineup, of: profile.id)

        let back = [form.query.map { "q=\(SitePath.encoded($0))" }, form.page.map { "page=\($0)" }].compactMap { $0 }
        return Response.redirect(to: SitePath.lineup(query: back.joined(separator: "&")))
    }
}

/// "Your channels": the button pressed (`add`, `remove`, `up` or `down`, each naming a channel's id as the page
/// wrote it; or `clear`), and the search and page to go back to.
struct LineupForm: PostedForm {
    let add: ChannelID?
    let remove: ChannelID?
    let up: ChannelID?
    let down: ChannelID?
    let clear: Bool
    let query: String?
    let page: Int?

    init(_ form: FormFields) throws(FieldError) {
        func channel(_ name: String) throws(FieldError) -> ChannelID? {
            try form.typed(name, limit: 200, called: "The channel").map { ChannelID($0) }
        }
        (add, remove, up, down) = (try channel("add"), try channel("remove"), try channel("up"), try channel("down"))
        clear = form.isTicked("clear")
        query = try form.text("q", limit: 200, called: "The search")
        page = try form.integer("page", in: 0...100_000, called: "The page")
    }
}

/// The star on a channel: the channel, and `favourite` 1 (add) or 0 (take out).
struct FavouriteForm: PostedForm {
    let channel: ChannelID?
    let isFavourite: Bool

    init(_ form: FormFields) throws(FieldError) {
        channel = try form.text("channel", limit: 200, called: "The channel").map { ChannelID($0) }
        guard let favourite = try form.integer("favourite", in: 0...1, called: "favourite (1 adds, 0 takes out)") else {
            throw FieldError(name: "favourite", saying: "favourite is 1 (add) or 0 (take out)")
        }
        isFavourite = favourite == 1
    }
}
