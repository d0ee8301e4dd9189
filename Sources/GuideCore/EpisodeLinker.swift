import Foundation

/// Finds a followed show's airings among listings and the episode each one is (issue 44). Pure code.
///
/// An airing is a programme whose title is the show's name or one of its other titles, written the way titles vary:
/// case and accents, "&" for "and", a leading article ("The Office", "Office"), a year in brackets ("Ghosts (2021)"),
/// punctuation; a title "Show: Sub-title" counts too, its rest then read as the sub-title. The episode is found by
/// the listing's episode number when it has one, else by its sub-title (the same, or close: a word's spelling, a
/// "Part 1"), else by the original air date when the listing says it is new or a premiere.
public struct EpisodeLinker: Sendable {
    /// How an airing was linked to its episode.
    public enum Evidence: String, Sendable {
        case number, subtitle, airdate
    }

    public struct Link: Sendable, Equatable {
        public var episode: Episode
        public var evidence: Evidence
    }

    /// The keys (``titleKey(_:)``) of the show's titles.
    public let titles: Set<String>
    /// The same keys, the show's own name first: what to search listings for.
    public let searchTitles: [String]
    let byNumber: [String: Episode]
    let bySubtitle: [(key: String, words: Set<String>, episode: Episode)]
    let byAirdate: [String: [Episode]]

    /// `name` and `alternates` (other titles, as TVmaze's in the viewer's languages); `episodes` the show's.
    public init(show name: String, alternates: [String] = [], episodes: [Episode]) {
        var keys: [String] = []
        for key in ([name] + alternates.prefix(50)).map(Self.titleKey) where !key.isEmpty && !keys.contains(key) { keys.append(key) }
        (titles, searchTitles) = (Set(keys), keys)
        var byNumber: [String: Episode] = [:]
        var byAirdate: [String: [Episode]] = [:]
        var bySubtitle: [(key: String, words: Set<String>, episode: Episode)] = []
        for episode in episodes {
            if let season = episode.season, let number = episode.number { byNumber["\(season).\(number)"] = episode }
            if let date = episode.airdate { byAirdate[date, default: []].append(episode) }
            if let name = episode.name {
                let key = Self.titleKey(name)
                if !key.isEmpty { bySubtitle.append((key, Set(key.split(separator: " ").map(String.init)), episode)) }
            }
        }
        (self.byNumber, self.bySubtitle, self.byAirdate) = (byNumber, bySubtitle, byAirdate)
    }

    /// Whether `title` is one of the show's; the rest of a "Show: Sub-title" title when it is one that way.
    public func matches(title: String) -> (isAiring: Bool, rest: String?) {
        if titles.contains(Self.titleKey(title)) { return (true, nil) }
        for separator in [": ", " - ", " – "] {
            guard let range = title.range(of: separator) else { continue }
            if titles.contains(Self.titleKey(String(title[..<range.lowerBound]))) {
                let rest = title[range.upperBound...].trimmingCharacters(in: .whitespaces)
                return (true, rest.isEmpty ? nil : rest)
            }
        }
        return (false, nil)
    }

    /// The episode `programme` is, when it is an airing of the show and something says which; `zone` is the show's
    /// (its air dates are its own days).
    public func episode(of programme: Programme, zone: TimeZone?) -> Link? {
        let (isAiring, rest) = matches(title: programme.title)
        guard isAiring else { return nil }
        if let numbering = programme.numbering, let season = numbering.season, let number = numbering.episode,
           let episode = byNumber["\(season).\(number)"] {
            return Link(episode: episode, evidence: .number)
        }
        if let subtitle = programme.subTitle ?? rest, let episode = episode(subtitled: subtitle) {
            return Link(episode: episode, evidence: .subtitle)
        }
        if programme.isNew || programme.isPremiere, let zone {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            let day = calendar.dateComponents([.year, .month, .day], from: programme.start)
            if let year = day.year, let month = day.month, let date = day.day,
               let found = byAirdate[String(format: "%04d-%02d-%02d", year, month, date)], found.count == 1 {
                return Link(episode: found[0], evidence: .airdate)
            }
        }
        return nil
    }

    /// The episode whose name is `subtitle`, or closest to it: the same words but one, or spelled a little
    /// differently (at least 0.85 alike); nil when two are as close.
    func episode(subtitled subtitle: String) -> Episode? {
        let key = Self.titleKey(subtitle)
        guard !key.isEmpty else { return nil }
        let exact = bySubtitle.filter { $0.key == key }
        if exact.count == 1 { return exact[0].episode }
        guard exact.isEmpty else { return nil }
        let words = Set(key.split(separator: " ").map(String.init))
        var best: (score: Double, episode: Episode?, tied: Bool) = (0, nil, false)
        for candidate in bySubtitle {
            let shared = Double(words.intersection(candidate.words).count)
            let overlap = 2 * shared / Double(words.count + candidate.words.count)
            let score = max(overlap, Self.alike(key, candidate.key))
            if score > best.score + 1e-9 { best = (score, candidate.episode, false) } else if abs(score - best.score) < 1e-9 { best.tied = true }
        }
        return best.score >= 0.85 && !best.tied ? best.episode : nil
    }

    /// How alike two short texts are, from 0 to 1: one less their edit distance over the longer's length (texts
    /// longer than 200 characters are not compared).
    static func alike(_ left: String, _ right: String) -> Double {
        let (a, b) = (Array(left.unicodeScalars), Array(right.unicodeScalars))
        guard !a.isEmpty, !b.isEmpty, a.count <= 200, b.count <= 200 else { return a == b ? 1 : 0 }
        var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return 1 - Double(previous[b.count]) / Double(max(a.count, b.count))
    }

    /// Articles a title may begin with or not, in the guide's languages.
    static let articles: Set<String> = ["the", "a", "an", "le", "la", "les", "l", "der", "die", "das", "el", "los", "las", "il", "lo", "gli",
                                        "de", "het", "den", "o", "os", "as", "ha", "az"]

    /// A title as titles are compared: folded, "&" as "and", a year in brackets and a leading article left out, the
    /// words joined by one space.
    public static func titleKey(_ title: String) -> String {
        var text = SearchText.fold(String(title.prefix(300))).replacingOccurrences(of: "&", with: " and ")
        // The grid keys every programme's title: the pattern only for a title with a bracket.
        if text.contains(where: { $0 == "(" || $0 == "[" }),
           let year = text.range(of: #"[\(\[]\s*(19|20)\d\d\s*[\)\]]"#, options: .regularExpression) { text.removeSubrange(year) }
        var words = text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
        if words.count > 1, Self.articles.contains(words[0]) { words.removeFirst() }
        return words.joined(separator: " ")
    }
}
