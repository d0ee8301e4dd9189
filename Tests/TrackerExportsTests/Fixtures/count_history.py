#!/usr/bin/python3
"""An independent reading of the tracker samples for the Swift tests: for each export, the shows it names and the
watched episodes (one per show, season and number), read with Python's csv and json modules and nothing of tvguide's.
Prints JSON: {"name": {"shows": N, "episodes": M}}; "tvtime-zip" and "trakt-zip" are the exports as they come, every
file of the folder zipped."""
import csv
import io
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trackers")


def rows(path):
    with open(os.path.join(ROOT, path), encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def load(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return json.load(f)


def show_key(tvdb, imdb, title):
    if tvdb not in (None, "", 0, "0"):
        return "tvdb:%s" % tvdb
    if imdb and str(imdb).startswith("tt"):
        return "imdb:%s" % imdb
    return "title:%s" % (title or "").strip().lower()


counts = {}

# TV Time, export my data (CSV): every show in either file; watched rows of the episodes file.
shows, episodes = set(), set()
for r in rows("tvtime/export-2026-anonymized/tvtime-series.csv"):
    shows.add(show_key(r["tvdb_id"], r["imdb_id"], r["title"]))
for r in rows("tvtime/export-2026-anonymized/tvtime-series-episodes.csv"):
    key = show_key(r["series_tvdb_id"], r["series_imdb_id"], r["title"])
    shows.add(key)
    if r["is_watched"].lower() == "true":
        season = "0" if r["special"].lower() == "true" else r["season"]
        episodes.add((key, int(season), int(r["episode"])))
counts["tvtime-csv"] = {"shows": len(shows), "episodes": len(episodes)}
tvtime_csv = (shows, episodes)
# Its rows not watched: what an importer that ignores is_watched would mark.
counts["tvtime-csv-unwatched"] = {"episodes": sum(1 for r in rows("tvtime/export-2026-anonymized/tvtime-series-episodes.csv")
                                                  if r["is_watched"].lower() != "true")}

# TV Time, export my data (JSON).
shows, episodes = set(), set()
for s in load("tvtime/export-2026-anonymized/tvtime-series.json"):
    key = show_key(s["id"].get("tvdb"), s["id"].get("imdb"), s["title"])
    shows.add(key)
    for season in s.get("seasons", []):
        for e in season.get("episodes", []):
            if e.get("is_watched") is True:
                episodes.add((key, 0 if e.get("special") else season["number"], e["number"]))
counts["tvtime-json"] = {"shows": len(shows), "episodes": len(episodes)}
# TV Time's export as it comes (a zip of both): one history of the two.
counts["tvtime-zip"] = {"shows": len(tvtime_csv[0] | shows), "episodes": len(tvtime_csv[1] | episodes)}

# TV Time, GDPR records v2: watch-episode rows and user-series rows.
shows, episodes = set(), set()
for r in rows("tvtime/gdpr-2026-anonymized/tracking-prod-records-v2.csv"):
    if r["key"].startswith("user-series-") or r["key"].startswith("watch-episode-"):
        key = show_key(r["s_id"], None, r["series_name"])
        shows.add(key)
        if r["key"].startswith("watch-episode-"):
            season = r["s_no"] or r["season_number"]
            number = r["ep_no"] or r["episode_number"]
            if r.get("is_special") == "true":
                season = "0"
            if season and number:
                episodes.add((key, int(season), int(number)))
counts["tvtime-gdpr"] = {"shows": len(shows), "episodes": len(episodes)}

# Trakt's history: episode events.
shows, episodes = set(), set()
for e in load("trakt/export-2026/watched-history.json"):
    if e.get("type") != "episode":
        continue
    ids = e["show"]["ids"]
    key = show_key(ids.get("tvdb"), ids.get("imdb"), e["show"]["title"])
    shows.add(key)
    episodes.add((key, e["episode"]["season"], e["episode"]["number"]))
counts["trakt-history"] = {"shows": len(shows), "episodes": len(episodes)}
# Trakt's export as it comes (a zip): the history, and the watchlist's shows (followed, no episodes); ratings say nothing
# of what was watched.
for e in load("trakt/export-2026/lists-watchlist.json"):
    if e.get("type") == "show":
        ids = e["show"]["ids"]
        shows.add(show_key(ids.get("tvdb"), ids.get("imdb"), e["show"]["title"]))
counts["trakt-zip"] = {"shows": len(shows), "episodes": len(episodes)}

# Trakt's watched shows (the API's answer).
shows, episodes = set(), set()
for s in load("trakt/api/users_watched_shows.yamtrack-2024.json"):
    ids = s["show"]["ids"]
    key = show_key(ids.get("tvdb"), ids.get("imdb"), s["show"]["title"])
    shows.add(key)
    for season in s["seasons"]:
        for e in season["episodes"]:
            episodes.add((key, season["number"], e["number"]))
counts["trakt-watched"] = {"shows": len(shows), "episodes": len(episodes)}

# SeriesGuide: watched and not skipped.
shows, episodes = set(), set()
for s in load("seriesguide/shows-export-example.json"):
    key = show_key(s.get("tvdb_id"), s.get("imdb_id"), s.get("title"))
    shows.add(key)
    for season in s.get("seasons", []):
        for e in season.get("episodes", []):
            if e.get("watched") and not e.get("skipped"):
                episodes.add((key, season["season"], e["episode"]))
counts["seriesguide"] = {"shows": len(shows), "episodes": len(episodes)}

# IMDb list: series rows.
shows = set()
for r in rows("other/imdb/imdb_list_export.yamtrack-fixture.csv"):
    if r["Title Type"].lower().replace(" ", "") in ("tvseries", "tvminiseries"):
        shows.add(show_key(None, r["Const"], r["Title"]))
counts["imdb"] = {"shows": len(shows), "episodes": 0}

json.dump(counts, sys.stdout)
