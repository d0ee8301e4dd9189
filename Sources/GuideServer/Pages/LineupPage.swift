import Foundation
import GuideCore
import GuideStore
import Hummingbird

/// `/channels`: the signed-in profile chooses which channels its guide shows and in what order. One form, whose
/// buttons add, remove and move channels, so it works without JavaScript and every change is one post.
struct LineupPage: Sendable {
    let site: Site
    static let perPage = 50

    struct Model {
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
        routes.profile.get("channels") { request, context in try await render(request, context, message: nil) }
        routes.profile.post("channels") { request, context in try await change(request, context) }
        routes.profile.post("favourites") { request, context in try await favourite(request, context) }
    }

    /// `POST /favourites` (`channel`, `favourite` 1 or 0): one click adds a channel to the viewer's favourites or
    /// takes it out, then back to the page it was made on.
    func favourite(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await site.form(request, context)
        guard let id = form["channel"], let channel = try await site.directory.snapshot().channel(ChannelID(id)) else {
            throw HTTPError(.badRequest, message: "There is no such channel in the guide.")
        }
        guard let choice = form["favourite"], choice == "1" || choice == "0" else {
            throw HTTPError(.badRequest, message: "favourite is 1 (add) or 0 (take out)")
        }
        do {
            try await site.store.setFavourite(channel.id, choice == "1", of: profile.id)
        } catch let error as StoreError where error.code == .invalid {
            throw HTTPError(.badRequest, message: error.message)
        }
        return Response.redirect(to: site.returnPath(request))
    }

    func render(_ request: Request, _ context: ProfileRequestContext, message: String?) async throws -> HTMLPage {
        let profile = context.profile
        let query = QueryParameters(request: request)
        let filter = query.string("q") ?? ""
        let page = try query.integer("page", in: 0...100_000, default: 0)
        let site = self.site
        let snapshot = try await site.directory.snapshot()
        let chosenIDs = try await site.store.lineup(of: profile.id)
        let chosen = chosenIDs.compactMap(snapshot.channel)
        let chosenSet = Set(chosenIDs)
        let folded = SearchText.fold(filter)
        let others = snapshot.channels.filter { channel in
            !chosenSet.contains(channel.id)
                && (folded.isEmpty || SearchText.fold(channel.name).contains(folded) || channel.id.rawValue.lowercased().contains(folded))
        }
        let from = min(page * Self.perPage, others.count)
        let shown = others[from..<min(others.count, from + Self.perPage)]
        let filterQuery = filter.isEmpty ? "" : "q=\(ProgrammeDetails.query(filter))&"
        let model = await Model(
            chrome: site.chrome(context, section: "channels"), title: "Your channels",
            chosen: chosen.enumerated().map { index, channel in
                Entry(id: channel.id.rawValue, name: channel.name, number: channel.number, position: index + 1,
                      isFirst: index == 0, isLast: index == chosen.count - 1)
            },
            isChosen: !chosen.isEmpty, total: snapshot.channels.count, listed: snapshot.listed.count, filter: filter,
            available: shown.map { Entry(id: $0.id.rawValue, name: $0.name, number: $0.number, position: 0, isFirst: false, isLast: false) },
            previousPage: page > 0 ? "/channels?\(filterQuery)page=\(page - 1)" : nil,
            nextPage: from + Self.perPage < others.count ? "/channels?\(filterQuery)page=\(page + 1)" : nil,
            message: message)
        return try site.page("channels", model)
    }

    /// Applies the button pressed: `add`, `remove`, `up`, `down` (each naming a channel id) or `clear`.
    func change(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let profile = context.profile
        let form = try await site.form(request, context)
        let site = self.site
        let known = try await site.directory.snapshot()
        var lineup = try await site.store.lineup(of: profile.id).filter { known.channel($0) != nil }
        if let id = form.raw("add").map(ChannelID.init(_:)), known.channel(id) != nil, !lineup.contains(id) {
            lineup.append(id)
        }
        if let id = form.raw("remove").map(ChannelID.init(_:)) { lineup.removeAll { $0 == id } }
        if let id = form.raw("up").map(ChannelID.init(_:)), let index = lineup.firstIndex(of: id), index > 0 {
            lineup.swapAt(index, index - 1)
        }
        if let id = form.raw("down").map(ChannelID.init(_:)), let index = lineup.firstIndex(of: id), index + 1 < lineup.count {
            lineup.swapAt(index, index + 1)
        }
        if form["clear"] != nil { lineup = [] }
        try await site.store.setLineup(lineup, of: profile.id)

        let back = [form["q"].map { "q=\(ProgrammeDetails.query($0))" }, form["page"].map { "page=\($0)" }].compactMap { $0 }
        return Response.redirect(to: "/channels" + (back.isEmpty ? "" : "?" + back.joined(separator: "&")))
    }
}
