/// An episode number as the source wrote it, in a numbering system such as `xmltv_ns` or `onscreen`.
public struct EpisodeNumber: Hashable, Codable, Sendable {
    public var system: String
    public var value: String

    public init(system: String, value: String) {
        self.system = system
        self.value = value
    }

    /// The numbering parsed from an `xmltv_ns` value; nil for other systems or unreadable values.
    public var xmltvNS: XMLTVNSNumber? {
        system == "xmltv_ns" ? XMLTVNSNumber(parsing: value) : nil
    }
}

/// Season, episode and part from `xmltv_ns` numbering, counted from 1 as viewers count them.
///
/// `xmltv_ns` writes zero-based indexes with one-based totals: `"1.4/8.0/2"` is season 2, episode 5 of 8, part 1 of 2.
public struct XMLTVNSNumber: Hashable, Codable, Sendable {
    public var season: Int?
    public var seasonCount: Int?
    public var episode: Int?
    public var episodeCount: Int?
    public var part: Int?
    public var partCount: Int?

    public init(season: Int? = nil, seasonCount: Int? = nil, episode: Int? = nil, episodeCount: Int? = nil,
                part: Int? = nil, partCount: Int? = nil) {
        self.season = season
        self.seasonCount = seasonCount
        self.episode = episode
        self.episodeCount = episodeCount
        self.part = part
        self.partCount = partCount
    }

    /// The indexes and totals a feed may write: a number outside makes the whole value unreadable (kept as text).
    public static let numberRange = 0...99_999_999

    /// Reads `season[/count].episode[/count].part[/count]`; whitespace is ignored, every part may be empty.
    public init?(parsing value: String) {
        let fields = value.filter { !$0.isWhitespace }.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        var numbers: [(index: Int?, count: Int?)] = []
        for field in fields {
            let halves = field.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            let index = halves.first.flatMap { Bounded.integer($0, in: Self.numberRange) }
            let count = halves.count > 1 ? Bounded.integer(halves[1], in: Self.numberRange) : nil
            if let first = halves.first, !first.isEmpty, index == nil { return nil }
            if halves.count > 1, !halves[1].isEmpty, count == nil { return nil }
            numbers.append((index.map { $0 + 1 }, count))
        }
        while numbers.count < 3 { numbers.append((nil, nil)) }
        self.init(season: numbers[0].index, seasonCount: numbers[0].count,
                  episode: numbers[1].index, episodeCount: numbers[1].count,
                  part: numbers[2].index, partCount: numbers[2].count)
        if season == nil, episode == nil, part == nil, seasonCount == nil, episodeCount == nil, partCount == nil {
            return nil
        }
    }

    /// The `xmltv_ns` text for this numbering, so a written file reads back the same.
    public var xmltvValue: String {
        func field(_ index: Int?, _ count: Int?) -> String {
            var text = index.map { String($0 - 1) } ?? ""
            if let count { text += "/\(count)" }
            return text
        }
        return "\(field(season, seasonCount)).\(field(episode, episodeCount)).\(field(part, partCount))"
    }

    /// How a guide labels it: "S2 E5 of 8", "E5", "S2", with " (part 1 of 2)" when split.
    public var label: String {
        var pieces: [String] = []
        if let season { pieces.append("S\(season)") }
        if let episode {
            pieces.append(episodeCount.map { "E\(episode) of \($0)" } ?? "E\(episode)")
        }
        var text = pieces.joined(separator: " ")
        if let part, partCount != 1 || part != 1 {
            let partText = partCount.map { "part \(part) of \($0)" } ?? "part \(part)"
            text += text.isEmpty ? partText : " (\(partText))"
        }
        return text
    }
}
