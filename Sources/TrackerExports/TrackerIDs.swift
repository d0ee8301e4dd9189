import Foundation
import GuideCore

/// Ids and numbers as trackers write them: TVDB ids as positive numbers, IMDb ids as `tt` and digits (`-1`, `0` and
/// empty are none), season and episode numbers within ``Episode/numberRange``.
enum TrackerIDs {
    static func show(title: String, tvdb: String?, imdb: String?, year: Int? = nil) -> TrackerHistory.Show? {
        let tvdbID = tvdb.flatMap { Bounded.integer($0, in: 1...999_999_999) }
        let imdbID = Self.imdb(imdb)
        let name = String(title.trimmingCharacters(in: .whitespacesAndNewlines).prefix(300))
        guard tvdbID != nil || imdbID != nil || !name.isEmpty else { return nil }
        return TrackerHistory.Show(title: name, year: year, tvdb: tvdbID, imdb: imdbID)
    }

    static func imdb(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces).lowercased(), text.hasPrefix("tt"), (3...12).contains(text.utf8.count),
              text.dropFirst(2).allSatisfy(\.isASCII), text.dropFirst(2).allSatisfy(\.isNumber) else { return nil }
        return text
    }

    static func number(_ text: String?) -> Int? {
        text.flatMap { Bounded.integer($0.trimmingCharacters(in: .whitespaces), in: Episode.numberRange) }
    }

    /// A play count, held to ``WatchedEpisode/playsRange`` (1 when there is none).
    static func plays(_ text: String?) -> Int {
        number(text).map { max(WatchedEpisode.playsRange.lowerBound, min($0, WatchedEpisode.playsRange.upperBound)) } ?? 1
    }

    /// A JSON value as text (numbers written plainly); nil for null or a missing value.
    static func text(_ value: Any?) -> String? {
        switch value {
        case let text as String: text
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }
}
