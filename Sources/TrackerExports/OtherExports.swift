import Foundation
import GuideCore

/// SeriesGuide's shows backup, IMDb's list and ratings exports, and a plain CSV anyone can write.
enum OtherExports {
    /// `seriesguide-shows-backup.json`: shows with their seasons and episodes (`watched`, `plays`, `skipped`: a skipped
    /// episode is not watched). It keeps no time per episode, so its marks have none.
    static func seriesGuide(_ shows: [[String: Any]], into builder: inout HistoryBuilder) {
        for entry in shows {
            guard let show = TrackerIDs.show(title: entry["title"] as? String ?? "", tvdb: TrackerIDs.text(entry["tvdb_id"]),
                                             imdb: entry["imdb_id"] as? String,
                                             year: (entry["first_aired"] as? String).flatMap { Int($0.prefix(4)) }) else { continue }
            let key = builder.show(show, followed: entry["hidden"] as? Bool != true)
            for season in entry["seasons"] as? [[String: Any]] ?? [] {
                guard let seasonNumber = TrackerIDs.number(TrackerIDs.text(season["season"])) else { continue }
                for episode in season["episodes"] as? [[String: Any]] ?? [] where episode["watched"] as? Bool == true && episode["skipped"] as? Bool != true {
                    guard let number = TrackerIDs.number(TrackerIDs.text(episode["episode"])) else { continue }
                    let aired = (episode["first_aired"] as? NSNumber).map { $0.int64Value }.flatMap { $0 > 0 ? CivilDate(Date(timeIntervalSince1970: TimeInterval($0 / 1000)), in: .gmt) : nil }
                    let plays = TrackerIDs.plays(TrackerIDs.text(episode["plays"]))
                    builder.watched(TrackerHistory.Episode(season: seasonNumber, number: number, airdate: aired, title: episode["title"] as? String,
                                                           watchedAt: nil, plays: plays), of: key)
                }
            }
        }
    }

    /// An IMDb list, watchlist or ratings export: its `TV Series` and `TV Mini Series` rows are shows to follow (an
    /// episode row names the episode's own id, which no show can be found by: left out, and said so).
    static func imdb(_ table: CSVTable, into builder: inout HistoryBuilder) {
        for row in table.records() {
            let type = (row["title_type"] ?? "").lowercased().replacingOccurrences(of: " ", with: "")
            if type == "tvepisode" {
                builder.problem(Sentence(saying: "line {line}: {title} is an episode; IMDb's export does not say of which show",
                                          ["line": String(row.line), "title": row["title"] ?? row["const"] ?? "?"]))
                continue
            }
            guard type == "tvseries" || type == "tvminiseries",
                  let show = TrackerIDs.show(title: row["title"] ?? "", tvdb: nil, imdb: row["const"], year: TrackerIDs.number(row["year"])) else { continue }
            _ = builder.show(show, followed: true)
        }
    }

    /// tvguide's own CSV (and anyone's): `show`, `season`, `episode`, `watched_at`, with `tvmaze`, `tvdb`, `imdb`,
    /// `year`, `followed` and `plays` where known: what `tvguide history export --format csv` writes. A title
    /// written with a leading `'` before a formula's start (as the export protects a spreadsheet, ``FormulaGuard``)
    /// is read without it.
    static func plain(_ table: CSVTable, into builder: inout HistoryBuilder) {
        for row in table.records() {
            let title = FormulaGuard.read(row["show", "title"] ?? "")
            guard var show = TrackerIDs.show(title: title, tvdb: row["tvdb"], imdb: row["imdb"], year: TrackerIDs.number(row["year"])) else {
                builder.problem(Sentence(saying: "line {line}: no show", ["line": String(row.line)]))
                continue
            }
            show.tvmaze = row["tvmaze"].flatMap { Bounded.integer($0, in: 1...999_999_999) }
            let key = builder.show(show, followed: row["followed"].map { $0 == "true" || $0 == "1" } ?? true)
            guard row["season", "episode"] != nil else { continue }
            // A watched column that says no (TV Time's, a spreadsheet's): followed, not watched.
            if let watched = row["is_watched", "watched"]?.lowercased(), ["false", "0", "no", "n"].contains(watched) { continue }
            guard let season = TrackerIDs.number(row["season"]), let number = TrackerIDs.number(row["episode"]) else {
                builder.problem(Sentence(saying: "line {line}: {title} has no season or episode number",
                                         ["line": String(row.line), "title": show.title]))
                continue
            }
            let plays = TrackerIDs.plays(row["plays"])
            builder.watched(TrackerHistory.Episode(season: season, number: number, watchedAt: TrackerTime.parse(row["watched_at"]), plays: plays),
                            of: key)
        }
    }
}
