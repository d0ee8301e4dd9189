import Foundation
import GuideCore
import GuideStore
import TrackerExports

/// A profile's followed shows and watched episodes written out, so nobody is locked in again: JSON, or the plain CSV
/// `tvguide history import` (and the web import) reads back. A cell a spreadsheet would run as a formula is written
/// with a `'` before it (``FormulaGuard``).
public struct HistoryExport: Sendable {
    public let store: any SeriesStore & WatchedStore

    public init(store: any SeriesStore & WatchedStore) {
        self.store = store
    }

    public struct Document: Codable, Sendable, Equatable {
        public struct ShowEntry: Codable, Sendable, Equatable {
            public var tvmaze: Int
            public var name: String
            public var followed: Bool
            public var episodes: [EpisodeEntry]
        }

        public struct EpisodeEntry: Codable, Sendable, Equatable {
            public var tvmaze: Int
            public var season: Int?
            public var number: Int?
            public var watchedAt: String?
            public var plays: Int
        }

        public var exported: String
        public var shows: [ShowEntry]
    }

    /// Every show `profile` follows or has watched an episode of, by name, with its marks in season order.
    public func document(of profile: ProfileID, at instant: Date) async throws -> Document {
        let following = Set(try await store.following(profile).map(\.show.id))
        let marks = Dictionary(grouping: try await store.watched(by: profile, show: nil), by: \.showID)
        var shows: [Document.ShowEntry] = []
        for id in following.union(marks.keys) {
            let name = try await store.trackedShow(id)?.show.name ?? "TVmaze show \(id)"
            shows.append(Document.ShowEntry(tvmaze: id, name: name, followed: following.contains(id), episodes: (marks[id] ?? []).map { mark in
                Document.EpisodeEntry(tvmaze: mark.episodeID, season: mark.season, number: mark.number,
                                      watchedAt: mark.watchedAt.map(CivilTime.iso8601), plays: mark.plays)
            }))
        }
        shows.sort { ($0.name.lowercased(), $0.tvmaze) < ($1.name.lowercased(), $1.tvmaze) }
        return Document(exported: CivilTime.iso8601(instant), shows: shows)
    }

    /// The plain CSV: `show,tvmaze,followed,season,episode,watched_at,plays`, a row per watched episode (a followed
    /// show with none has one row without an episode).
    public static func csv(_ document: Document) -> String {
        var lines = ["show,tvmaze,followed,season,episode,watched_at,plays"]
        for show in document.shows {
            let head = [cell(show.name), String(show.tvmaze), show.followed ? "true" : "false"]
            if show.episodes.isEmpty { lines.append((head + ["", "", "", ""]).joined(separator: ",")) }
            for episode in show.episodes {
                lines.append((head + [episode.season.map(String.init) ?? "", episode.number.map(String.init) ?? "", episode.watchedAt ?? "",
                                      String(episode.plays)]).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A text cell: quoted when it holds a comma, quote or line break; a formula's start after a `'`.
    static func cell(_ text: String) -> String {
        let text = FormulaGuard.inert(text)
        // By scalar: "\r\n" is one Character, so a lone carriage return is not one of a string's Characters.
        guard text.unicodeScalars.contains(where: { ",\"\r\n".unicodeScalars.contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
