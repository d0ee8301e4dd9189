import Foundation
import GuideApplication
import GuideCore
import GuideIngest
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/admin/channels`: the guide's channels as pages show them (logo, number, groups), where an admin chooses a
/// channel's logo over the one its sources give, makes channel groups by hand, chooses the group guests see and
/// defines timeshift channels (ChannelAdminPage+Timeshift.swift).
struct ChannelAdminPage: Sendable {
    let store: any ImportStore & ChannelSettingsStore
    let directory: ChannelDirectory
    let pages: Pages

    /// Channels shown at once; a search narrows a long guide down.
    static let shown = 100

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var query: String
        var channels: [Entry]
        var summary: String
        var message: String?
        var isError: Bool
        var groups: [GroupEntry]
        /// "Every channel", then each hand-made and playlist group, for the guests' group.
        var guestChoices: [Choice]
        /// The group form, filled when editing one.
        var editName: String
        var editChannels: String
        var timeshifts: [TimeshiftEntry]
    }

    struct GroupEntry {
        var name: String
        var count: Int
        var channels: String
        var isGuests: Bool
        var editLink: String
    }

    struct Entry {
        var id: String
        var name: String
        var number: String?
        var logo: String?
        /// The address an admin chose, if any.
        var chosenLogo: String?
        var groups: String
    }

    func register(on routes: RouteGroups) {
        routes.admin.get(.adminChannels) { request, context in
            try await render(request, context, query: request.uri.queryParameters.get("q").map { String($0) } ?? "")
        }
        routes.admin.post(.channelLogo) { request, context in try await setLogo(request, context) }
        routes.admin.post(.channelGroups) { request, context in try await saveGroup(request, context) }
        routes.admin.post(.removeChannelGroup) { request, context in try await removeGroup(request, context) }
        routes.admin.post(.guestGroup) { request, context in try await setGuestGroup(request, context) }
        routes.admin.post(.timeshift) { request, context in try await saveTimeshift(request, context) }
        routes.admin.post(.removeTimeshift) { request, context in try await removeTimeshift(request, context) }
    }

    func render(_ request: Request, _ context: AdminRequestContext, query: String, message: String? = nil, isError: Bool = false,
                status: HTTPResponse.Status = .ok, editing: (name: String, channels: String)? = nil) async throws -> HTMLPage {
        let snapshot = try await directory.snapshot()
        let edited = editing ?? request.uri.queryParameters.get("edit").flatMap { name in
            snapshot.groups.first { $0.name == String(name) }.map { ($0.name, $0.channels.map(\.rawValue).joined(separator: "\n")) }
        }
        var playlistGroups: [String] = []
        var seen = Set(snapshot.groups.map(\.name))
        for channel in snapshot.channels {
            for group in snapshot.playlist[channel.id]?.groups ?? [] where seen.insert(group).inserted { playlistGroups.append(group) }
        }
        let groupNames = snapshot.groups.map(\.name) + playlistGroups
        let folded = SearchText.fold(query)
        let matching = folded.isEmpty ? snapshot.channels : snapshot.channels.filter {
            SearchText.fold($0.name + " " + $0.id.rawValue).contains(folded)
        }
        let words = pages.words(context)
        let model = await Model(
            chrome: pages.chrome(context, section: "admin"), title: words("Channels"), query: query,
            channels: matching.prefix(Self.shown).map { channel in
                Entry(id: channel.id.rawValue, name: channel.name, number: channel.number, logo: ChannelLogos.address(of: channel),
                      chosenLogo: snapshot.chosenLogos[channel.id],
                      groups: snapshot.playlist[channel.id]?.groups.joined(separator: ", ") ?? "")
            },
            summary: matching.count > Self.shown
                ? words("The first {shown} of {count} channels: search to narrow them down.", ["shown": words.number(Self.shown),
                                                                                                 "count": words.number(matching.count)])
                : words.plural("{count} channel.", "{count} channels.", count: matching.count),
            message: message, isError: isError,
            groups: snapshot.groups.map { group in
                GroupEntry(name: group.name, count: group.channels.count,
                           channels: group.channels.prefix(8).map { snapshot.channel($0)?.name ?? $0.rawValue }.joined(separator: ", ")
                               + (group.channels.count > 8 ? " " + words.plural("and {count} more", "and {count} more", count: group.channels.count - 8) : ""),
                           isGuests: snapshot.guestGroup == group.name,
                           editLink: SitePath.adminChannels(query: "edit=" + SitePath.encoded(group.name)))
            },
            guestChoices: [Choice(value: "", label: words("Every channel"), isSelected: snapshot.guestGroup == nil)]
                + groupNames.prefix(250).map { Choice(value: $0, label: $0, isSelected: snapshot.guestGroup == $0) },
            editName: edited?.0 ?? "", editChannels: edited?.1 ?? "",
            timeshifts: try await store.timeshiftChannels().map { shift in
                TimeshiftEntry(id: shift.id.rawValue, name: shift.name, number: shift.number,
                               base: snapshot.channel(shift.base)?.name ?? shift.base.rawValue, offset: TimeshiftChannel.label(shift.offsetMinutes))
            })
        return try pages.page("channel-admin", model, status: status)
    }

    /// Sets or clears the logo an admin chose for a channel: an http or https address (the image is checked when it is
    /// first fetched, like any logo).
    private func setLogo(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await ChannelLogoForm(request, context)
        let query = form.query
        let words = pages.words(context)
        guard let id = form.channel, let channel = try await directory.snapshot().channel(id) else {
            return try await render(request, context, query: query, message: words("No such channel."), isError: true, status: .badRequest)
        }
        let logo = form.logo
        if let logo, !ChannelLogos.isWeb(logo) || URL(string: logo)?.host == nil {
            return try await render(request, context, query: query, message: words("A logo is an http or https address of an image (at most 1,024 characters)."),
                                    isError: true, status: .badRequest)
        }
        try await store.setChannelLogo(logo, of: channel.id)
        return try await render(request, context, query: query,
                                message: logo == nil ? words("{channel} shows its sources' logo again.", ["channel": channel.name])
                                    : words("{channel} shows the chosen logo.", ["channel": channel.name]))
    }

    /// Makes a group, or replaces the one of its name: `name`, and `channels`, one per line, each a channel's id or
    /// its name. A line that names no channel is an error that keeps what was typed.
    private func saveGroup(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await ChannelGroupForm(request, context)
        let (name, typed) = (form.name, form.channels)
        let snapshot = try await directory.snapshot()
        var byName: [String: ChannelID] = [:]
        for channel in snapshot.channels where byName[SearchText.fold(channel.name)] == nil { byName[SearchText.fold(channel.name)] = channel.id }
        var channels: [ChannelID] = []
        var unknown: [String] = []
        for line in typed.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
            if let channel = snapshot.channel(ChannelID(line)) ?? byName[SearchText.fold(line)].flatMap(snapshot.channel) {
                channels.append(channel.id)
            } else {
                unknown.append(line)
            }
        }
        let words = pages.words(context)
        let failed = { (message: String) in
            try await render(request, context, query: "", message: message, isError: true, status: .badRequest, editing: (name, typed))
        }
        guard unknown.isEmpty else {
            let names = unknown.prefix(5).map { "“\($0)”" }.joined(separator: ", ")
                + (unknown.count > 5 ? " " + words.plural("and {count} more", "and {count} more", count: unknown.count - 5) : "")
            return try await failed(words("No channel is called {names}: give each channel's id or name, one a line.", ["names": names]))
        }
        guard !channels.isEmpty else { return try await failed(words("A group needs at least one channel.")) }
        do {
            try await store.saveChannelGroup(ChannelGroup(name: name, channels: channels))
        } catch let error as StoreError where error.code == .invalid {
            return try await failed(words("Not saved: {error}.", ["error": error.message(words)]))
        }
        return try await render(request, context, query: "", message: words.plural(
            "Saved the group {name} ({count} channel).", "Saved the group {name} ({count} channels).", count: channels.count,
            ["name": name.trimmingCharacters(in: .whitespaces)]))
    }

    private func removeGroup(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let name = try await ChannelGroupForm(request, context).name
        try await store.removeChannelGroup(named: name)
        return try await render(request, context, query: "", message: words("Removed the group {name}.", ["name": name]))
    }

    /// The group guests see until they choose another: a hand-made or playlist group, or every channel.
    private func setGuestGroup(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let group = try await GuestGroupForm(request, context).group
        try await store.setGuestGroup(group)
        let words = pages.words(context)
        return try await render(request, context, query: "", message: group.map { words("Guests see the group {name} first.", ["name": $0]) }
                                ?? words("Guests see every channel."))
    }
}

/// Admin, a channel's logo: the channel, the chosen logo's http(s) address (none: its sources' logo again), and the
/// search the page was showing.
struct ChannelLogoForm: PostedForm {
    let channel: ChannelID?
    let logo: String?
    let query: String

    init(_ form: FormFields) throws(FieldError) {
        channel = try form.text("channel", limit: 200, called: "The channel").map { ChannelID($0) }
        logo = try form.text("logo", limit: 1024, called: "A logo's address")
        query = try form.text("q", limit: 200, called: "The search") ?? ""
    }
}

/// Admin, a channel group: its name, and its channels one a line (each an id or a name), kept as typed.
struct ChannelGroupForm: PostedForm {
    let name: String
    let channels: String

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: ChannelGroup.Limits.nameLength, called: "The group's name") ?? ""
        channels = try form.typed("channels", limit: 1_000_000, called: "The channels") ?? ""
    }
}

/// Admin, the group guests see: a group's name, or none for every channel.
struct GuestGroupForm: PostedForm {
    let group: String?

    init(_ form: FormFields) throws(FieldError) {
        group = try form.text("group", limit: ChannelGroup.Limits.nameLength, called: "The group")
    }
}
