import Foundation
import GuideCore

/// What Plex and Jellyfin need from an XMLTV feed, applied to each channel and programme of a feed in
/// ``LineupFeed/Shape/mediaServer`` shape (docs/media-servers.md states the rules):
///
/// - A **film** is a programme whose genre (the grid's category map) is film and that has no episode number: its first
///   category is `Movie` and it gets no `episode-num`.
/// - Everything else is an **episode** of a series, so it can be series-recorded: numbers the listings give are written
///   both as `xmltv_ns` (zero-based) and `onscreen` (`S02E05`), each derived from the other; a programme with none
///   gets `<episode-num system="original-air-date">` with its start (UTC, `YYYY-MM-DD HH:MM:SS`), as Plex reads it.
/// - The genre goes first among the categories in the English word both recognise (`Movie`, `News`, `Sports`,
///   `Kids`, `Drama`, `Documentary`, `Entertainment`, `Music`); the listings' own categories follow.
/// - No empty `lang` attribute; `<date>` only as `YYYY` or `YYYYMMDD`; times as `YYYYMMDDHHMMSS +0000`.
/// - A channel's number is also a display name (how both match channels to tuners), and its logo is tvguide's cached
///   copy (`logo`), never the provider's.
public struct MediaServerShape: Sendable {
    /// The absolute address of a channel's logo on this server, or nil.
    let logo: @Sendable (Channel) -> String?

    public init(logo: @escaping @Sendable (Channel) -> String?) {
        self.logo = logo
    }

    public func channel(_ channel: Channel) -> Channel {
        var shaped = Self.numberedWithLogo(channel, logo: logo(channel))
        shaped.displayNames = Self.clean(shaped.displayNames)
        return shaped
    }

    /// `channel` with its number as a display name too and `logo` as its only icon: how every feed names a channel
    /// (a playlist's number and tvguide's cached logo).
    public static func numberedWithLogo(_ channel: Channel, logo: String?) -> Channel {
        var shaped = channel
        if let number = channel.number, !shaped.displayNames.contains(where: { $0.text == number }) {
            shaped.displayNames.append(LocalizedText(number))
        }
        shaped.icons = logo.map { [Icon(src: $0)] } ?? []
        return shaped
    }

    public func programme(_ stored: StoredProgramme) -> Programme {
        var programme = stored.programme
        programme.stop = stored.end
        programme.titles = Self.clean(programme.titles)
        programme.subTitles = Self.clean(programme.subTitles)
        programme.descriptions = Self.clean(programme.descriptions)
        programme.keywords = Self.clean(programme.keywords)
        programme.countries = Self.clean(programme.countries)
        programme.language = programme.language.map(Self.clean)
        programme.originalLanguage = programme.originalLanguage.map(Self.clean)
        programme.premiere = programme.premiere.map(Self.clean)
        programme.lastChance = programme.lastChance.map(Self.clean)
        programme.date = programme.date.flatMap(Self.date)
        programme.icons = programme.icons.filter { $0.src.lowercased().hasPrefix("https://") || $0.src.lowercased().hasPrefix("http://") }
        let genre = programme.genre
        let numbers = Self.numbers(programme.episodeNumbers)
        let isFilm = genre == .film && numbers == nil
        let mapped = Self.category[genre].map { LocalizedText($0, language: "en") }
        var categories = mapped.map { [$0] } ?? []
        for category in Self.clean(programme.categories) where !categories.contains(where: { $0.text.lowercased() == category.text.lowercased() }) {
            categories.append(category)
        }
        programme.categories = categories
        if isFilm {
            programme.episodeNumbers = []
        } else if let numbers {
            programme.episodeNumbers = [EpisodeNumber(system: "xmltv_ns", value: numbers.xmltvValue),
                                        EpisodeNumber(system: "onscreen", value: Self.onscreen(numbers))]
        } else {
            programme.episodeNumbers = [EpisodeNumber(system: "original-air-date", value: Self.airDate.string(from: programme.start))]
        }
        return programme
    }

    /// The category word Plex and Jellyfin recognise for each genre.
    static let category: [Genre: String] = [
        .film: "Movie", .news: "News", .sport: "Sports", .children: "Kids", .drama: "Drama",
        .documentary: "Documentary", .entertainment: "Entertainment", .music: "Music",
    ]

    /// The season and episode the listings give: `xmltv_ns` first, else an `onscreen` `S2E5` / `S02 E05`.
    static func numbers(_ numbers: [EpisodeNumber]) -> XMLTVNSNumber? {
        if let parsed = numbers.lazy.compactMap(\.xmltvNS).first(where: { $0.season != nil || $0.episode != nil }) { return parsed }
        for number in numbers where number.system == "onscreen" {
            if let parsed = onscreen(parsing: number.value) { return parsed }
        }
        return nil
    }

    /// `S02E05`, `S02`, `E05`: what both read on screen.
    static func onscreen(_ number: XMLTVNSNumber) -> String {
        (number.season.map { String(format: "S%02d", $0) } ?? "") + (number.episode.map { String(format: "E%02d", $0) } ?? "")
    }

    /// Reads `S2E5`, `s02 e05`, `S2 Ep5`.
    static func onscreen(parsing text: String) -> XMLTVNSNumber? {
        let bytes = Array(text.uppercased().utf8)
        func number(after index: inout Int) -> Int? {
            var digits = ""
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                digits.append(Character(UnicodeScalar(bytes[index])))
                index += 1
            }
            return Bounded.integer(digits, in: 1...XMLTVNSNumber.numberRange.upperBound)
        }
        var index = 0
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "S") else { return nil }
        index += 1
        guard let season = number(after: &index) else { return nil }
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: ".") { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "E") else { return XMLTVNSNumber(season: season) }
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "P") { index += 1 }
        return XMLTVNSNumber(season: season, episode: number(after: &index))
    }

    /// `YYYYMMDD` or `YYYY` from the leading digits of a `<date>` (`2026-02-15` and `2026/02/15` read too); nil for
    /// anything shorter.
    static func date(_ text: String) -> String? {
        let first = text.trimmingCharacters(in: .whitespaces).prefix { !$0.isWhitespace }.filter { $0 != "-" && $0 != "/" }
        let digits = String(first.prefix { $0.isASCII && $0.isNumber })
        if digits.count >= 8 { return String(digits.prefix(8)) }
        return digits.count >= 4 ? String(digits.prefix(4)) : nil
    }

    static func clean(_ texts: [LocalizedText]) -> [LocalizedText] {
        texts.map(clean)
    }

    static func clean(_ text: LocalizedText) -> LocalizedText {
        LocalizedText(text.text, language: text.language.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 })
    }

    static let airDate: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter
    }()
}
