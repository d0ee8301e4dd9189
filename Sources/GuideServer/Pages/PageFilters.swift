import Foundation
import GuideApplication
import GuideCore
import GuideStore
import Hummingbird

/// A row of one-tap choices above a page ("All", "News", "Film"... or a playlist's groups), each a link that keeps the
/// rest of the page's address.
struct ChipSet: Sendable {
    struct Chip: Sendable {
        var label: String
        var link: String
        var isCurrent: Bool
    }

    /// For the `nav`'s class (`genre-filter`, `group-filter`) and its accessible name.
    var kind: String
    var label: String
    var chips: [Chip]
}

/// `?genre=` on the grid, the now page and search: the genre asked for, and its chips.
struct GenreFilter: Sendable {
    /// The genre asked for; nil for all.
    let genre: Genre?

    /// The genres offered as chips ("Other" is what the rest fall into, not something to look for).
    static let offered = Genre.allCases.filter { $0 != .other }

    init(_ query: QueryParameters) throws {
        genre = try query.genre()
    }

    /// Whether `programme` passes.
    func admits(_ programme: Programme) -> Bool {
        genre.map { programme.genre == $0 } ?? true
    }

    /// `&genre=film`, or nothing: for links that keep the filter.
    var parameter: String {
        genre.map { "&genre=\($0.rawValue)" } ?? ""
    }

    /// The chips: "All", then each genre, with `link` making a page's address for one (nil for all).
    func chips(_ words: Localizer, _ link: (Genre?) -> String) -> ChipSet {
        ChipSet(kind: "genre-filter", label: words("Only one genre"),
                chips: [ChipSet.Chip(label: words("All"), link: link(nil), isCurrent: genre == nil)]
                    + Self.offered.map { ChipSet.Chip(label: $0.label(words), link: link($0), isCurrent: genre == $0) })
    }
}

/// `?group=` on the grid and the now page: only the channels of one group, in the viewer's order. A group is the
/// viewer's favourites ("Favourites"), one an admin made by hand, or one an M3U playlist names (`group-title`,
/// `#EXTGRP`); a hand-made group and a playlist group of the same name are one group (a signed-in viewer's own
/// favourites stand for a playlist group called "Favourites").
///
/// Without `group` in the address, a signed-in viewer sees the group they chose last (remembered when they choose one
/// on this site, never from a link on another: `Sec-Fetch-Site`), and a guest the group an admin chose for guests.
/// `?group=` (blank) is every channel.
struct GroupFilter: Sendable {
    /// The group shown; nil for every channel.
    let group: String?
    /// The group shown when the address names none; while there is one, "every channel" must be named (`&group=`).
    private let fallback: String?
    /// The viewer's favourite channels; nil for a guest.
    private let favourites: [ChannelID]?

    /// The filter for `request`; `remembers`: a page (not the grid's script) whose choice of group a signed-in viewer
    /// keeps.
    static func resolve(_ query: QueryParameters, _ request: Request, _ context: some GuideContext,
                        store: any ChannelSettingsStore, directory: ChannelDirectory, remembers: Bool) async throws -> GroupFilter {
        let asked = query.string("group")
        if let asked, asked.count > ChannelGroup.Limits.nameLength {
            throw Refusal(.badRequest, saying: "a group's name has at most {count} characters", ["count": "\(ChannelGroup.Limits.nameLength)"])
        }
        guard let profile = context.viewer?.profile else {
            let fallback = try await directory.snapshot().guestGroup
            return GroupFilter(group: query.isPresent("group") ? asked : fallback, fallback: fallback, favourites: nil)
        }
        if !remembers, query.isPresent("group") {
            // The grid's script names its group on every block of rows: no links to make, so nothing remembered is
            // read, and the favourites only when they are the group.
            let favourites = asked == ChannelGroup.favouritesName ? try await store.favourites(of: profile.id) : []
            return GroupFilter(group: asked, fallback: nil, favourites: favourites)
        }
        var fallback = try await store.rememberedGroup(of: profile.id)
        if remembers, query.isPresent("group"), asked != fallback,
           HeaderNames.fetchSite.flatMap({ request.headers[$0] }).map({ ["same-origin", "none"].contains($0) }) == true {
            try await store.rememberGroup(asked, of: profile.id)
            fallback = asked
        }
        return GroupFilter(group: query.isPresent("group") ? asked : fallback, fallback: fallback,
                           favourites: try await store.favourites(of: profile.id))
    }

    /// `channels` in the group (all of them without one).
    func channels(_ channels: [Channel], in snapshot: ChannelDirectory.Snapshot) -> [Channel] {
        guard let group else { return channels }
        if group == ChannelGroup.favouritesName, let favourites {
            let chosen = Set(favourites)
            return channels.filter { chosen.contains($0.id) }
        }
        return snapshot.members(of: group, among: channels)
    }

    /// Whether `channel` is one of the viewer's favourites.
    func isFavourite(_ channel: ChannelID) -> Bool {
        favourites?.contains(channel) ?? false
    }

    /// `&group=News` for `group`; for every channel, nothing, or `&group=` while a remembered or default group would
    /// otherwise be shown.
    func parameter(for group: String?) -> String {
        if let group { return "&group=" + SitePath.encoded(group) }
        return fallback == nil ? "" : "&group="
    }

    /// The parameter for the group shown.
    var parameter: String { parameter(for: group) }

    /// The chips: "All channels", the viewer's "Favourites", the groups an admin made, then each group of `channels`'
    /// playlists in their order (50 at most); nil when there is none to choose.
    func chips(for channels: [Channel], in snapshot: ChannelDirectory.Snapshot, _ words: Localizer, _ link: (String?) -> String) -> ChipSet? {
        var groups: [String] = favourites == nil ? [] : [ChannelGroup.favouritesName]
        var seen = Set(groups)
        for made in snapshot.groups where seen.insert(made.name).inserted { groups.append(made.name) }
        for channel in channels {
            for group in snapshot.playlist[channel.id]?.groups ?? [] where seen.insert(group).inserted { groups.append(group) }
        }
        guard !groups.isEmpty else { return nil }
        return ChipSet(kind: "group-filter", label: words("Channel groups"),
                       chips: [ChipSet.Chip(label: words("All channels"), link: link(nil), isCurrent: group == nil)]
                           + groups.prefix(50).map { ChipSet.Chip(label: $0 == ChannelGroup.favouritesName && favourites != nil ? words("★ Favourites") : $0,
                                                                 link: link($0), isCurrent: group == $0) })
    }
}
