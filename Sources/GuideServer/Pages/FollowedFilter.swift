import Foundation
import GuideCore
import GuideStore
import Hummingbird

/// `?followed=` on the grid and search, for a signed-in viewer: the airings of the shows they follow, all of them, only
/// the episodes they have not seen (`unseen`: an airing the listings number as an episode they marked watched is left
/// out), or only new episodes (`new`: first showings they have not seen; repeats are left out). Other programmes are
/// never left out. A guest has no choice.
struct FollowedFilter: Sendable {
    enum Choice: String, CaseIterable, Sendable {
        case all = "", unseen, new
    }

    let choice: Choice
    /// The folded names of the viewer's followed shows.
    private let followed: Set<String>
    /// By folded show name, the season and number of each episode watched ("1/5").
    private let seen: [String: Set<String>]
    private let isSignedIn: Bool

    static let none = FollowedFilter(choice: .all, followed: [], seen: [:], isSignedIn: false)

    private init(choice: Choice, followed: Set<String>, seen: [String: Set<String>], isSignedIn: Bool) {
        (self.choice, self.followed, self.seen, self.isSignedIn) = (choice, followed, seen, isSignedIn)
    }

    /// The filter `query` asks for, with what `viewer` follows and has watched read only when it filters.
    static func resolve(_ query: QueryParameters, viewer: ProfileID?, store: any SeriesStore & WatchedStore) async throws -> FollowedFilter {
        let asked = query.string("followed") ?? ""
        guard let choice = Choice(rawValue: asked) else {
            throw Refusal(.badRequest, saying: "followed is unseen or new (or nothing, for every airing)")
        }
        guard let viewer else { return .none }
        guard choice != .all else { return FollowedFilter(choice: .all, followed: [], seen: [:], isSignedIn: true) }
        let following = try await store.following(viewer)
        let marks = Dictionary(grouping: try await store.watched(by: viewer, show: nil), by: \.showID)
        var seen: [String: Set<String>] = [:]
        for followed in following {
            let episodes = (marks[followed.show.id] ?? []).compactMap { mark in
                mark.season.flatMap { season in mark.number.map { "\(season)/\($0)" } }
            }
            seen[SearchText.fold(followed.show.name), default: []].formUnion(episodes)
        }
        return FollowedFilter(choice: choice, followed: Set(following.map { SearchText.fold($0.show.name) }), seen: seen, isSignedIn: true)
    }

    /// Whether `programme` is shown.
    func admits(_ programme: Programme) -> Bool {
        guard choice != .all else { return true }
        let title = SearchText.fold(programme.title)
        guard followed.contains(title) else { return true }
        let numbering = programme.numbering
        let isSeen = numbering.flatMap { numbering in
            numbering.season.flatMap { season in numbering.episode.map { seen[title]?.contains("\(season)/\($0)") ?? false } }
        } ?? false
        switch choice {
        case .all: return true
        case .unseen: return !isSeen
        case .new: return !isSeen && (programme.isNew || programme.isPremiere)
        }
    }

    /// `&followed=unseen`, or nothing: for links that keep the filter.
    var parameter: String {
        choice == .all ? "" : "&followed=\(choice.rawValue)"
    }

    /// The chips for a signed-in viewer, `link` making a page's address for each choice; nil for a guest.
    func chips(_ words: Localizer, _ link: (Choice) -> String) -> ChipSet? {
        guard isSignedIn else { return nil }
        let labels: [Choice: String] = [.all: words("Every airing"), .unseen: words("Hide what I have seen"), .new: words("New episodes only")]
        return ChipSet(kind: "followed-filter", label: words("Followed shows"),
                       chips: Choice.allCases.map { ChipSet.Chip(label: labels[$0] ?? "", link: link($0), isCurrent: choice == $0) })
    }
}
