import GuideCore

/// `?genre=` on the grid, the now page and search: the genre asked for, and the chips that switch it ("All",
/// "News", "Film"...), each a link that keeps the rest of the page's address.
struct GenreFilter: Sendable {
    struct Link: Sendable {
        var label: String
        var link: String
        var isCurrent: Bool
    }

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
    func links(_ link: (Genre?) -> String) -> [Link] {
        [Link(label: "All", link: link(nil), isCurrent: genre == nil)]
            + Self.offered.map { Link(label: $0.label, link: link($0), isCurrent: genre == $0) }
    }
}
