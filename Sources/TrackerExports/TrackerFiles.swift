import Foundation

/// Reads a tracker's export from what the user gives: a zip as the tracker sent it, or its files one by one. The kind
/// is told by headers and shapes (FORMATS.md), whatever the files are called, never by column positions; only the files holding
/// shows and watches are opened (never TV Time's `access_token.csv`, nor Trakt's `user-settings.json` with its e-mail).
public enum TrackerFiles {
    /// A file at most, zipped or not: 50 MB. A zip's members read from it unpack to at most as much together
    /// (``ZipArchive``).
    public static let largestFile = 50 << 20

    /// The history in `files` (a zip is opened); a ``TrackerError`` saying what was expected when none is one tvguide
    /// reads.
    public static func read(_ files: [(name: String, bytes: [UInt8])]) throws(TrackerError) -> TrackerHistory {
        var opened: [(name: String, bytes: [UInt8])] = []
        for file in files {
            guard file.bytes.count <= Self.largestFile else {
                throw TrackerError(saying: "{file} is larger than {size} MB", ["file": file.name, "size": String(Self.largestFile >> 20)])
            }
            if ZipArchive.isZip(file.bytes) {
                opened += try ZipArchive.files(file.bytes) { isWanted(base($0)) }
            } else {
                opened.append(file)
            }
        }
        // Each file once, in name order: JSON as it is, anything else as a CSV table (a file is told by what it holds,
        // whatever it is called: TV Time's episodes arrive as history.csv from its API's default).
        var tables: [(name: String, table: CSVTable)] = [], json: [(name: String, bytes: [UInt8])] = []
        for file in opened.sorted(by: { base($0.name) < base($1.name) }) {
            let name = base(file.name)
            if name.lowercased().hasSuffix(".json") || file.bytes.first(where: { $0 > 0x20 }).map({ $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }) == true {
                json.append((name, file.bytes))
            } else {
                tables.append((name, try CSVTable(file.bytes, file: name)))
            }
        }
        var builder: HistoryBuilder?
        // TV Time's "export my data": its episodes (every episode of a followed show, watched or not) and its series,
        // and its JSON beside them when both were chosen, each watch once (FORMATS.md 1.3); its movies and lists say
        // nothing of shows watched.
        if let episodes = tables.first(where: { TVTimeExport.isEpisodes($0.table) }) {
            var tvTime = HistoryBuilder(.tvTime)
            TVTimeExport.exportCSV(episodes: episodes.table, series: tables.first { TVTimeExport.isSeries($0.table) }?.table, into: &tvTime)
            builder = tvTime
            tables = []
        }
        for file in json { try readJSON(file.bytes, name: file.name, into: &builder) }
        for file in tables { try readCSV(file.table, name: file.name, into: &builder) }
        guard let builder else {
            throw TrackerError(saying: "tvguide reads TV Time's export (tvtime-series-episodes.csv, tvtime-series.json or tracking-prod-records-v2.csv), Trakt's (watched-history.json, watched-shows.json), SeriesGuide's backup (seriesguide-shows-backup.json), an IMDb list (CSV) or a CSV of show, season, episode and watched_at; {files} is none of them",
                               ["files": files.map { base($0.name) }.joined(separator: ", ")])
        }
        return builder.history
    }

    private static func readJSON(_ bytes: [UInt8], name: String, into builder: inout HistoryBuilder?) throws(TrackerError) {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw TrackerError(saying: "{file} is not JSON ({error})", ["file": name, "error": error.localizedDescription])
        }
        if let object = value as? [String: Any], object["history"] != nil || object["watched"] != nil {
            // traktexport's one-object backup.
            var trakt = builder ?? HistoryBuilder(.trakt)
            TraktExport.history(object["history"] as? [[String: Any]] ?? [], into: &trakt)
            TraktExport.watchedShows((object["watched"] as? [[String: Any]] ?? []).filter { $0["show"] != nil }, into: &trakt)
            TraktExport.watchlist(object["watchlist"] as? [[String: Any]] ?? [], into: &trakt)
            builder = trakt
            return
        }
        guard let entries = value as? [[String: Any]] else { return }
        let first = entries.first ?? [:]
        if first["watched_at"] != nil, first["action"] != nil || first["type"] != nil {
            var trakt = builder ?? HistoryBuilder(.trakt)
            TraktExport.history(entries, into: &trakt)
            builder = trakt
        } else if first["show"] != nil, first["seasons"] != nil {
            var trakt = builder ?? HistoryBuilder(.trakt)
            TraktExport.watchedShows(entries, into: &trakt)
            builder = trakt
        } else if first["listed_at"] != nil {
            var trakt = builder ?? HistoryBuilder(.trakt)
            TraktExport.watchlist(entries, into: &trakt)
            builder = trakt
        } else if first["tmdb_id"] != nil || first["tvdb_id"] != nil, first["seasons"] != nil || first["title"] != nil {
            var seriesGuide = builder ?? HistoryBuilder(.seriesGuide)
            OtherExports.seriesGuide(entries, into: &seriesGuide)
            builder = seriesGuide
        } else if first["id"] is [String: Any], first["seasons"] != nil {
            var tvTime = builder ?? HistoryBuilder(.tvTime)
            TVTimeExport.seriesJSON(entries, into: &tvTime)
            builder = tvTime
        }
    }

    private static func readCSV(_ table: CSVTable, name: String, into builder: inout HistoryBuilder?) throws(TrackerError) {
        if table.has("key"), table.has("s_id") || table.has("series_name") {
            var tvTime = builder ?? HistoryBuilder(.tvTime)
            TVTimeExport.gdprRecords(table, into: &tvTime)
            builder = tvTime
        } else if table.has("tv_show_id") {
            var tvTime = builder ?? HistoryBuilder(.tvTime)
            TVTimeExport.followedShows(table, into: &tvTime)
            builder = tvTime
        } else if table.has("episode_id", "created_at"), !table.has("season") {
            throw TrackerError(saying: "{file} is TV Time's old export: it names episodes only by TheTVDB's ids, which TVmaze cannot look up. Import user_tv_show_data.csv from the same export for the shows you follow, or TV Time's newer export for what you watched",
                               ["file": name])
        } else if table.has("const", "title_type") {
            var imdb = builder ?? HistoryBuilder(.imdb)
            OtherExports.imdb(table, into: &imdb)
            builder = imdb
        } else if table.has("show") || table.has("title"), table.has("season") || table.has("tvdb") || table.has("imdb") || table.has("tvmaze") {
            var plain = builder ?? HistoryBuilder(.plain)
            OtherExports.plain(table, into: &plain)
            builder = plain
        }
    }

    /// The files of an export worth opening.
    static func isWanted(_ name: String) -> Bool {
        let lower = name.lowercased()
        guard lower.hasSuffix(".csv") || lower.hasSuffix(".json") else { return false }
        let stem = folded(name)
        let secrets = ["access_token", "auth", "user_settings", "user_profile", "comments", "notes"]
        return !secrets.contains { stem.hasPrefix(folded($0)) }
    }

    static func base(_ name: String) -> String {
        String(name.split(separator: "/").last ?? Substring(name))
    }

    /// A file name as compared: lower case, letters and digits only (TV Time's names vary in hyphens and underscores).
    static func folded(_ name: String) -> String {
        String(name.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
