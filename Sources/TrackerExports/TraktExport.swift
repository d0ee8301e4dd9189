import Foundation
import GuideCore

/// Trakt's export (FORMATS.md section 2): `watched-history*.json` (one event per play, newest first, `id` unique per
/// play), `watched-shows.json` (the API's `/sync/watched/shows`: plays and the last watch per episode), and
/// `lists-watchlist.json`; traktexport's one-object backup holds the same arrays under `history`, `watched` and
/// `watchlist`. Shows are known by `show.ids` (`tvdb`, `imdb`, `tvrage`); movies are left out.
enum TraktExport {
    /// History events: each `watch`, `scrobble` or `checkin` of an episode is a play; the earliest time is its first watch.
    static func history(_ events: [[String: Any]], into builder: inout HistoryBuilder) {
        var seen = Set<String>()
        for event in events where event["type"] as? String == "episode" {
            // An event id seen already (two files of one export) is one play.
            if let id = TrackerIDs.text(event["id"]), !seen.insert(id).inserted { continue }
            guard let show = self.show(event["show"]), let episode = event["episode"] as? [String: Any] else {
                builder.problem(Sentence(saying: "a history entry with no show"))
                continue
            }
            let key = builder.show(show)
            guard let season = TrackerIDs.number(TrackerIDs.text(episode["season"])), let number = TrackerIDs.number(TrackerIDs.text(episode["number"])) else {
                builder.problem(Sentence(saying: "{title}: an episode with no season or number", ["title": show.title]))
                continue
            }
            builder.watched(TrackerHistory.Episode(season: season, number: number, title: episode["title"] as? String,
                                                   watchedAt: TrackerTime.parse(event["watched_at"] as? String)), of: key)
        }
    }

    /// `watched-shows.json`: per show, its seasons' watched episodes with their plays and last watch (the only time
    /// this file keeps).
    static func watchedShows(_ entries: [[String: Any]], into builder: inout HistoryBuilder) {
        for entry in entries {
            guard let show = self.show(entry["show"]) else { continue }
            let key = builder.show(show)
            for season in entry["seasons"] as? [[String: Any]] ?? [] {
                guard let seasonNumber = TrackerIDs.number(TrackerIDs.text(season["number"])) else { continue }
                for episode in season["episodes"] as? [[String: Any]] ?? [] {
                    guard let number = TrackerIDs.number(TrackerIDs.text(episode["number"])) else { continue }
                    let plays = TrackerIDs.plays(TrackerIDs.text(episode["plays"]))
                    builder.watched(TrackerHistory.Episode(season: seasonNumber, number: number,
                                                           watchedAt: TrackerTime.parse(episode["last_watched_at"] as? String), plays: plays),
                                    of: key)
                }
            }
        }
    }

    /// `lists-watchlist.json`: shows to follow.
    static func watchlist(_ entries: [[String: Any]], into builder: inout HistoryBuilder) {
        for entry in entries where entry["type"] as? String == "show" {
            if let show = self.show(entry["show"]) { _ = builder.show(show, followed: true) }
        }
    }

    static func show(_ value: Any?) -> TrackerHistory.Show? {
        guard let show = value as? [String: Any] else { return nil }
        let ids = show["ids"] as? [String: Any]
        var found = TrackerIDs.show(title: show["title"] as? String ?? "", tvdb: TrackerIDs.text(ids?["tvdb"]), imdb: ids?["imdb"] as? String,
                                    year: TrackerIDs.number(TrackerIDs.text(show["year"])))
        found?.tvrage = TrackerIDs.text(ids?["tvrage"]).flatMap { Bounded.integer($0, in: 1...99_999_999) }
        return found
    }
}
