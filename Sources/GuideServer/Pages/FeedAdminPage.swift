import Foundation
import GuideApplication
import GuideCore
import GuideHTTPServing
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/admin/feeds`: XMLTV feeds cut for media servers (``LineupFeeds``): which channels, how many days, in which
/// shape; each feed's channel count and size, with a warning near Plex's limits. A new feed's address is shown once.
/// Media servers told to reload: FeedAdminPage+Reloads.swift.
struct FeedAdminPage: Sendable {
    let store: any LineupFeedStore & AccountStore
    let directory: ChannelDirectory
    let pages: Pages
    let settings: ServerSettings
    let feeds: LineupFeeds
    let tuners: (any TunerPortControl)?
    let reloads: MediaServerReloads

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var feeds: [Entry]
        var choices: [Choice]
        var shapes: [Choice]
        var message: String?
        var isError: Bool
        /// A new feed's addresses, shown once.
        var address: String?
        var compressedAddress: String?
        var playlistAddress: String?
        var tunerAddress: String?
        var plexChannels: Int
        var targets: [TargetEntry]
        var feedChoices: [Choice]
        var kinds: [Choice]
    }

    struct Entry {
        var id: Int64
        var name: String
        var carries: String
        var days: Int
        var shape: String
        var channels: Int
        var size: String
        var warnings: [String]
        var tuner: TunerEntry
    }

    func register(on routes: RouteGroups) {
        routes.admin.get(.adminFeeds) { request, context in try await render(request, context) }
        routes.admin.post(.adminFeeds) { request, context in try await add(request, context) }
        routes.admin.post(.removeFeed) { request, context in try await remove(request, context) }
        routes.admin.post(.reloadTargets) { request, context in try await addTarget(request, context) }
        routes.admin.post(.tellReloadTarget) { request, context in try await tellNow(request, context) }
        routes.admin.post(.removeReloadTarget) { request, context in try await removeTarget(request, context) }
        registerTuners(on: routes)
    }

    func render(_ request: Request, _ context: AdminRequestContext, message: String? = nil, isError: Bool = false,
                status: HTTPResponse.Status = .ok, token: String? = nil) async throws -> HTMLPage {
        let profiles = try await store.profiles()
        let words = pages.words(context)
        let names = Dictionary(profiles.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var entries: [Entry] = []
        let defined = try await store.lineupFeeds()
        for feed in defined {
            let built = try await feeds.build(feed, compressed: false, base: settings.publicAddress(for: request, local: context.local))
            var warnings: [String] = []
            if built.bytes > LineupFeeds.plexBytes * 8 / 10 {
                warnings.append(words("Near or over 20 MB: Plex is reported to show an empty guide for larger files. Fewer days or channels help."))
            }
            if built.channels > LineupFeeds.plexChannels {
                warnings.append(words("Over {most} channels: Plex is reported to take only a few hundred a tuner, and its guide stops at {most}.",
                                      ["most": words.number(LineupFeeds.plexChannels)]))
            }
            if built.channels == 0 { warnings.append(words("No channels: the lineup, favourites or group is empty.")) }
            entries.append(Entry(id: feed.id, name: feed.name, carries: Self.describe(feed.channels, names: names, words), days: feed.days,
                                 shape: feed.shape == .mediaServer ? words("Plex and Jellyfin") : words("XMLTV as listed"), channels: built.channels,
                                 size: words.megabytes(built.bytes), warnings: warnings,
                                 tuner: tunerEntry(feed, request, context, words)))
        }
        let snapshot = try await directory.snapshot()
        var groups = snapshot.groups.map(\.name)
        var seen = Set(groups)
        for channel in snapshot.listed {
            for group in snapshot.playlist[channel.id]?.groups ?? [] where seen.insert(group).inserted { groups.append(group) }
        }
        let choices = profiles.flatMap { profile in
            [Choice(value: "lineup:\(profile.id.rawValue)", label: Self.describe(.lineup(profile.id), names: names, words), isSelected: false),
             Choice(value: "favourites:\(profile.id.rawValue)", label: Self.describe(.favourites(profile.id), names: names, words), isSelected: false)]
        } + groups.prefix(250).map { Choice(value: "group:" + $0, label: Self.describe(.group($0), names: names, words), isSelected: false) }
        let base = settings.publicAddress(for: request, local: context.local)
        let model = await Model(
            chrome: pages.chrome(context, section: "admin"), title: words("Feeds for media servers"), feeds: entries, choices: choices,
            shapes: [Choice(value: LineupFeed.Shape.mediaServer.rawValue, label: words("Plex and Jellyfin"), isSelected: true),
                     Choice(value: LineupFeed.Shape.xmltv.rawValue, label: words("XMLTV as listed (Kodi, others)"), isSelected: false)],
            message: message, isError: isError,
            address: token.map { base + SitePath.lineupFeed(FeedFile($0, .xmltv)) }, compressedAddress: token.map { base + SitePath.lineupFeed(FeedFile($0, .compressed)) },
            playlistAddress: token.map { base + SitePath.lineupFeed(FeedFile($0, .playlist)) },
            tunerAddress: token.map { base + SitePath.tuner(PathText($0), PathText("")).dropLast() }, plexChannels: LineupFeeds.plexChannels,
            targets: try await targetEntries(feeds: defined, clock: settings.clock(context), words: words),
            feedChoices: defined.map { Choice(value: "\($0.id)", label: $0.name, isSelected: false) },
            kinds: [Choice(value: "jellyfin", label: words("Jellyfin (its API key)"), isSelected: true),
                    Choice(value: "plex", label: words("Plex (its token)"), isSelected: false),
                    Choice(value: "webhook", label: words("A webhook (an optional signing secret)"), isSelected: false)])
        return try pages.page("feeds", model, status: status)
    }

    static func describe(_ channels: LineupFeed.Channels, names: [ProfileID: String], _ words: Localizer) -> String {
        switch channels {
        case .lineup(let id): names[id].map { words("{name}'s channels", ["name": $0]) } ?? words("A removed profile's channels")
        case .favourites(let id): names[id].map { words("{name}'s favourites", ["name": $0]) } ?? words("A removed profile's favourites")
        case .group(let name): words("Group: {name}", ["name": name])
        }
    }

    private func add(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let failed = { (message: String) in try await render(request, context, message: message, isError: true, status: .badRequest) }
        let form: NewFeedForm
        do {
            form = try await NewFeedForm(request, context)
        } catch let error as FieldError {
            return try await failed(error.message(words) + ".")
        }
        guard let shape = form.shape else { return try await failed(words("Choose how the feed is written.")) }
        guard let channels = form.channels else { return try await failed(words("Choose the channels the feed carries.")) }
        if case .lineup(let id) = channels, try await store.profile(id) == nil { return try await failed(words("No such profile.")) }
        if case .favourites(let id) = channels, try await store.profile(id) == nil { return try await failed(words("No such profile.")) }
        let token = Accounts.randomToken()
        do {
            _ = try await store.addLineupFeed(LineupFeed(name: form.name, channels: channels, days: form.days, shape: shape),
                                                   tokenHash: Accounts.digest(token))
        } catch let error as StoreError where error.code == .invalid || error.code == .conflict {
            return try await failed(words("Not added: {error}.", ["error": error.message(words)]))
        }
        return try await render(request, context, message: words("Added the feed. Its address is shown once: give it to your media server."), token: token)
    }

    private func remove(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        guard let id = try await IDForm(request, context).id else {
            return try await render(request, context, message: words("No such feed."), isError: true, status: .badRequest)
        }
        try await store.removeLineupFeed(id)
        tuners?.changed()
        return try await render(request, context, message: words("Removed the feed: its address no longer answers."))
    }
}

/// Admin, "Add a feed": a name, the channels it carries (`lineup:ID`, `favourites:ID` or `group:NAME`), its days (7
/// unless chosen) and its shape.
struct NewFeedForm: PostedForm {
    let name: String
    let channels: LineupFeed.Channels?
    let days: Int
    let shape: LineupFeed.Shape?

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", called: "The name") ?? ""
        days = try form.integer("days", in: LineupFeed.dayRange, called: "Days") ?? 7
        shape = try form.choice("shape", called: "The shape")
        let parts = try form.text("channels", called: "The channels")?.split(separator: ":", maxSplits: 1).map(String.init) ?? []
        let rest = parts.count > 1 ? parts[1] : nil
        switch (parts.first, rest.flatMap { Bounded.integer($0, in: 1...Int64.max) }.map(ProfileID.init(rawValue:)), rest) {
        case ("lineup", let profile?, _): channels = .lineup(profile)
        case ("favourites", let profile?, _): channels = .favourites(profile)
        case ("group", _, let name?) where !name.isEmpty && name.count <= ChannelGroup.Limits.nameLength: channels = .group(name)
        default: channels = nil
        }
    }
}
