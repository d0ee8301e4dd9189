import Foundation
import GuideCore
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
    func chips(_ link: (Genre?) -> String) -> ChipSet {
        ChipSet(kind: "genre-filter", label: "Only one genre",
                chips: [ChipSet.Chip(label: "All", link: link(nil), isCurrent: genre == nil)]
                    + Self.offered.map { ChipSet.Chip(label: $0.label, link: link($0), isCurrent: genre == $0) })
    }
}

/// `?group=` on the grid and the now page: only the channels an M3U playlist puts in that group (`group-title`,
/// `#EXTGRP`), in the viewer's order.
struct GroupFilter: Sendable {
    let group: String?

    init(_ query: QueryParameters) throws {
        group = query.string("group")
        if let group, group.count > 200 { throw HTTPError(.badRequest, message: "a group's name has at most 200 characters") }
    }

    /// `channels` in the group (all of them without one).
    func channels(_ channels: [Channel], in snapshot: ChannelDirectory.Snapshot) -> [Channel] {
        guard let group else { return channels }
        return channels.filter { snapshot.playlist[$0.id]?.groups.contains(group) == true }
    }

    /// `&group=News`, or nothing.
    var parameter: String {
        group.map { "&group=" + ProgrammeDetails.query($0) } ?? ""
    }

    /// The chips: "All channels", then each group of `channels`' playlists in their order; nil when there is none.
    func chips(for channels: [Channel], in snapshot: ChannelDirectory.Snapshot, _ link: (String?) -> String) -> ChipSet? {
        var groups: [String] = []
        var seen: Set<String> = []
        for channel in channels {
            for group in snapshot.playlist[channel.id]?.groups ?? [] where seen.insert(group).inserted { groups.append(group) }
        }
        guard !groups.isEmpty else { return nil }
        return ChipSet(kind: "group-filter", label: "Channel groups",
                       chips: [ChipSet.Chip(label: "All channels", link: link(nil), isCurrent: group == nil)]
                           + groups.prefix(50).map { ChipSet.Chip(label: $0, link: link($0), isCurrent: group == $0) })
    }
}
