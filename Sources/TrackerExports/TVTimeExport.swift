import Foundation
import GuideCore

/// TV Time's exports (FORMATS.md section 1), told apart by their files and headers, never by column positions:
/// "export my data" (2026: `tvtime-series-episodes.csv` with `tvtime-series.csv`, or `tvtime-series.json`, whose shape
/// TV Time Liberator's `shows.json` shares), and the GDPR export (`tracking-prod-records-v2.csv`, its rows told by
/// their `key`; `followed_tv_show.csv`). Times without a zone are UTC.
enum TVTimeExport {
    /// `tvtime-series-episodes.csv`: every known episode of a followed show, watched or not (`is_watched`); specials
    /// as season 0. `series` (`tvtime-series.csv`) says which are followed (`not_started_yet` is the watch list).
    /// Whether `table` is TV Time's episodes file (`tvtime-series-episodes.csv`, or the same as `history.csv`), by its
    /// header: the series' ids, season, episode and `is_watched`.
    static func isEpisodes(_ table: CSVTable) -> Bool {
        table.has("series_tvdb_id", "season", "episode", "is_watched")
    }

    /// Whether `table` is TV Time's series file (`tvtime-series.csv`), by its header.
    static func isSeries(_ table: CSVTable) -> Bool {
        table.has("uuid", "tvdb_id", "title", "status") && !table.has("season")
    }

    static func exportCSV(episodes: CSVTable, series: CSVTable?, into builder: inout HistoryBuilder) {
        for row in series?.records() ?? [] {
            guard let title = row["title"], let show = TrackerIDs.show(title: title, tvdb: row["tvdb_id"], imdb: row["imdb_id"]) else { continue }
            _ = builder.show(show, followed: row["status"] != "stopped")
        }
        for row in episodes.records() {
            guard let show = TrackerIDs.show(title: row["title"] ?? "", tvdb: row["series_tvdb_id"], imdb: row["series_imdb_id"]) else {
                builder.problem(Sentence(saying: "{file}, line {line}: no show id or title", ["file": episodes.file, "line": String(row.line)]))
                continue
            }
            let key = builder.show(show)
            guard row["is_watched"]?.lowercased() == "true" else { continue }
            let season = row["special"]?.lowercased() == "true" ? 0 : TrackerIDs.number(row["season"])
            guard let season, let number = TrackerIDs.number(row["episode"]) else {
                builder.problem(Sentence(saying: "{file}, line {line}: {title} has no season or episode number",
                                         ["file": episodes.file, "line": String(row.line), "title": show.title]))
                continue
            }
            builder.watched(TrackerHistory.Episode(season: season, number: number, watchedAt: TrackerTime.parse(row["watched_at"]),
                                                   plays: 1 + (TrackerIDs.number(row["rewatch_count"]) ?? 0)), of: key)
        }
    }

    /// `tvtime-series.json` (and Liberator's `shows.json`): shows with their seasons and episodes, each with
    /// `is_watched` and `watched_at`.
    static func seriesJSON(_ shows: [[String: Any]], into builder: inout HistoryBuilder) {
        for entry in shows {
            let ids = entry["id"] as? [String: Any]
            guard let show = TrackerIDs.show(title: entry["title"] as? String ?? "", tvdb: TrackerIDs.text(ids?["tvdb"]),
                                             imdb: TrackerIDs.text(ids?["imdb"])) else {
                builder.problem(Sentence(saying: "a show with no id or title"))
                continue
            }
            let key = builder.show(show, followed: (entry["status"] as? String).map { $0 != "stopped" } ?? true)
            for season in entry["seasons"] as? [[String: Any]] ?? [] {
                for episode in season["episodes"] as? [[String: Any]] ?? [] where episode["is_watched"] as? Bool == true {
                    let isSpecial = episode["special"] as? Bool == true
                    guard let number = TrackerIDs.number(TrackerIDs.text(episode["number"])),
                          let seasonNumber = isSpecial ? 0 : TrackerIDs.number(TrackerIDs.text(season["number"])) else {
                        builder.problem(Sentence(saying: "{title}: an episode with no season or number", ["title": show.title]))
                        continue
                    }
                    let rewatches = TrackerIDs.number(TrackerIDs.text(episode["rewatch_count"])) ?? 0
                    builder.watched(TrackerHistory.Episode(season: seasonNumber, number: number,
                                                           watchedAt: TrackerTime.parse(TrackerIDs.text(episode["watched_at"])),
                                                           plays: 1 + rewatches), of: key)
                }
            }
        }
    }

    /// `tracking-prod-records-v2.csv`: one row per stored item, told by `key`: `watch-episode-*` a watch of an episode
    /// (`s_id` the TVDB show, `s_no`/`ep_no` or `season_number`/`episode_number`, `created_at` the time), `user-series-*`
    /// a show's follow state. Each further watch of an episode is another play.
    static func gdprRecords(_ table: CSVTable, into builder: inout HistoryBuilder) {
        for row in table.records() {
            let key = row["key"] ?? ""
            if key.hasPrefix("user-series-") {
                guard let show = TrackerIDs.show(title: row["series_name"] ?? "", tvdb: row["s_id"], imdb: nil) else { continue }
                let followed = row["is_followed"] == "true" || row["is_for_later"] == "true"
                _ = builder.show(show, followed: followed && row["is_archived"] != "true")
            } else if key.hasPrefix("watch-episode-") {
                guard let show = TrackerIDs.show(title: row["series_name"] ?? "", tvdb: row["s_id"], imdb: nil) else {
                    builder.problem(Sentence(saying: "tracking-prod-records-v2.csv, line {line}: no show id or name", ["line": String(row.line)]))
                    continue
                }
                let showKey = builder.show(show)
                let season = row["is_special"] == "true" ? 0 : TrackerIDs.number(row["s_no", "season_number"])
                guard let season, let number = TrackerIDs.number(row["ep_no", "episode_number"]) else {
                    builder.problem(Sentence(saying: "tracking-prod-records-v2.csv, line {line}: {title} has no season or episode number",
                                             ["line": String(row.line), "title": show.title]))
                    continue
                }
                builder.watched(TrackerHistory.Episode(season: season, number: number, watchedAt: TrackerTime.parse(row["created_at"])),
                                of: showKey)
            }
        }
    }

    /// `followed_tv_show.csv` and `user_tv_show_data.csv`: followed shows by TVDB id (the GDPR export's older files,
    /// whose episodes name only TVDB's episode ids, which TVmaze cannot look up).
    static func followedShows(_ table: CSVTable, into builder: inout HistoryBuilder) {
        for row in table.records() {
            guard let show = TrackerIDs.show(title: row["tv_show_name"] ?? "", tvdb: row["tv_show_id"], imdb: nil) else { continue }
            let followed = row["active", "is_followed"].map { $0 == "1" || $0 == "true" } ?? true
            _ = builder.show(show, followed: followed && row["archived"] != "1")
        }
    }
}
