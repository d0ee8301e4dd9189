import Foundation
import GuideCore
import TestReceivers
import Testing
@testable import TrackerExports

/// Tracker exports read from the real samples in Fixtures/trackers (PROVENANCE.md), each one's shows and watched
/// episodes counted against an independent reading in Python (Fixtures/count_history.py); and hostile files, each
/// refused or repaired as documented.
@Suite struct TrackerFilesTests {
    static let fixtures = Bundle.module.url(forResource: "trackers", withExtension: nil)!

    static func file(_ path: String) throws -> (name: String, bytes: [UInt8]) {
        (path, [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(path))))
    }

    /// What count_history.py reads of the samples (TrackerSamples runs it, for the end-to-end tests too).
    static let independent = Task<[String: TrackerSamples.Count], Never> { (try? await TrackerSamples.counts()) ?? [:] }

    @Test(arguments: [
        ("tvtime-csv", ["tvtime/export-2026-anonymized/tvtime-series-episodes.csv", "tvtime/export-2026-anonymized/tvtime-series.csv"], TrackerHistory.Kind.tvTime),
        ("tvtime-json", ["tvtime/export-2026-anonymized/tvtime-series.json"], .tvTime),
        // Both serializations, as a zip of the whole export has them: one history, each watch once (the JSON was
        // passed over when the CSV was there).
        ("tvtime-zip", ["tvtime/export-2026-anonymized/tvtime-series-episodes.csv", "tvtime/export-2026-anonymized/tvtime-series.csv",
                        "tvtime/export-2026-anonymized/tvtime-series.json", "tvtime/export-2026-anonymized/tvtime-movies.json",
                        "tvtime/export-2026-anonymized/tvtime-lists.csv"], .tvTime),
        ("trakt-zip", ["trakt/export-2026/watched-history.json", "trakt/export-2026/ratings-episodes.json",
                       "trakt/export-2026/ratings-shows.json", "trakt/export-2026/lists-watchlist.json"], .trakt),
        ("tvtime-gdpr", ["tvtime/gdpr-2026-anonymized/tracking-prod-records-v2.csv", "tvtime/gdpr-2026-anonymized/lists-prod-lists.csv"], .tvTime),
        ("trakt-history", ["trakt/export-2026/watched-history.json", "trakt/export-2026/ratings-episodes.json"], .trakt),
        ("trakt-watched", ["trakt/api/users_watched_shows.yamtrack-2024.json"], .trakt),
        ("seriesguide", ["seriesguide/shows-export-example.json"], .seriesGuide),
        ("imdb", ["other/imdb/imdb_list_export.yamtrack-fixture.csv"], .imdb),
    ])
    func eachSampleReadsAsPythonReadsIt(name: String, paths: [String], kind: TrackerHistory.Kind) async throws {
        let history = try TrackerFiles.read(try paths.map(Self.file))
        let expected = try #require(await Self.independent.value[name], "count_history.py did not run")
        #expect(history.kind == kind)
        #expect(history.shows.count == expected.shows, "\(name): \(history.shows.map(\.title))")
        #expect(history.episodeCount == expected.episodes, "\(name)")
    }

    /// A file is told by what it holds, whatever it is called: TV Time's episodes as `history.csv` (its API's default
    /// name) and its series as `shows.csv` read as the originals do, and its unwatched rows are not marked watched (the
    /// plain CSV reader took every row as watched before). A plain CSV's own watched column is honoured too.
    @Test func filesAreToldByWhatTheyHold() async throws {
        let episodes = try Self.file("tvtime/export-2026-anonymized/tvtime-series-episodes.csv")
        let series = try Self.file("tvtime/export-2026-anonymized/tvtime-series.csv")
        let renamed = try TrackerFiles.read([("history.csv", episodes.bytes), ("shows.csv", series.bytes)])
        let expected = try #require(await Self.independent.value["tvtime-csv"], "count_history.py did not run")
        let unwatched = try #require(await Self.independent.value["tvtime-csv-unwatched"]?.episodes)
        #expect(unwatched > 0)
        #expect(renamed.kind == .tvTime && renamed.shows.count == expected.shows && renamed.episodeCount == expected.episodes)
        let alone = try TrackerFiles.read([("history.csv", episodes.bytes)])
        #expect(alone.kind == .tvTime && alone.episodeCount == expected.episodes)
        // Trakt's and SeriesGuide's JSON under other names.
        let trakt = try TrackerFiles.read([("export (1).json", try Self.file("trakt/export-2026/watched-history.json").bytes)])
        let traktExpected = await Self.independent.value["trakt-history"]?.episodes
        #expect(trakt.kind == .trakt && trakt.episodeCount == traktExpected)
        let plain = try TrackerFiles.read([("mine.csv", Array("show,season,episode,watched\nLost,1,1,true\nLost,1,2,false\nLost,1,3,\n".utf8))])
        #expect(plain.kind == .plain && plain.shows.first?.episodes.map(\.number) == [1, 3])
    }

    @Test func whatTheSamplesSay() throws {
        // TV Time's CSV: no zone is UTC; Grimm's special is season 0; "Marvel's Agent Carter" is on the watch list.
        let tvTime = try TrackerFiles.read([try Self.file("tvtime/export-2026-anonymized/tvtime-series-episodes.csv"),
                                            try Self.file("tvtime/export-2026-anonymized/tvtime-series.csv")])
        let elite = try #require(tvTime.shows.first { $0.tvdb == 346328 })
        #expect(elite.title == "Elite" && elite.episodes.first?.watchedAt == CivilTime.parseISO8601("2019-10-04T03:43:42Z"))
        #expect(tvTime.shows.first { $0.title == "Marvel's Agent Carter" }?.isFollowed == true)
        #expect(tvTime.shows.first { $0.title == "The Wheel of Time" }?.isFollowed == false)
        // Trakt: a show's ids; a rewatch is a second play of one episode, its first time kept.
        let trakt = try TrackerFiles.read([try Self.file("trakt/export-2026/watched-history.json")])
        let squid = try #require(trakt.shows.first { $0.title == "Squid Game" })
        #expect(squid.tvdb != nil && squid.imdb?.hasPrefix("tt") == true)
        let replayed = try #require(squid.episodes.first { $0.plays == 2 })
        #expect(replayed.watchedAt != nil)
        // The watch list marks shows to follow.
        let withList = try TrackerFiles.read([try Self.file("trakt/export-2026/watched-history.json"), try Self.file("trakt/export-2026/lists-watchlist.json")])
        #expect(withList.shows.contains { $0.isFollowed })
    }

    @Test func aZipAsTheTrackerSentIt() async throws {
        // Made with Python's zipfile (deflated), holding the export and a secret file never to be opened.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = folder.appendingPathComponent("tvtime-export.zip").path
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.write(sys.argv[2], "export/tvtime-series-episodes.csv")
                z.write(sys.argv[3], "export/tvtime-series.csv")
                z.writestr("export/access_token.csv", "token\\nnot-json\\x00\\xff")
            """
        let zipped = try await Program.run("/usr/bin/python3", arguments: [
            "-c", script, zip, Self.fixtures.appendingPathComponent("tvtime/export-2026-anonymized/tvtime-series-episodes.csv").path,
            Self.fixtures.appendingPathComponent("tvtime/export-2026-anonymized/tvtime-series.csv").path,
        ])
        try #require(zipped.status == 0, "\(zipped.errorText)")
        let history = try TrackerFiles.read([("tvtime-export.zip", [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip))))])
        let independent = await Self.independent.value["tvtime-csv"]
        #expect(history.shows.count == independent?.shows && history.episodeCount == independent?.episodes)
        // Cut short, it says so.
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip)))
        #expect(throws: TrackerError.self) { try TrackerFiles.read([("cut.zip", Array(whole.prefix(whole.count / 2)))]) }
    }

    /// Zips that inflate far past what was sent (issue 43, point 2), made with Python's zipfile: each is refused before
    /// it costs more memory than its own size allows. Before, every member was inflated with room for 256 MB, and a
    /// member within 50 MB was taken whatever its ratio: a 40 MiB member from an 80 KB zip was read whole.
    @Test func zipsInflatingPastTheirBoundsAreRefusedAsTheyInflate() async throws {
        let script = """
            import io, struct, sys, zipfile
            def zipped(size, say=None):
                out = io.BytesIO()
                with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
                    z.writestr("history.csv", bytes(size))
                data = bytearray(out.getvalue())
                if say is not None:  # the member says it is smaller than it is, in both headers
                    struct.pack_into("<I", data, 22, say)
                    central = data.rfind(b"PK\\x01\\x02")
                    struct.pack_into("<I", data, central + 24, say)
                return bytes(data)
            for blob in [zipped(40 << 20), zipped(300 << 20), zipped(40 << 20, say=1000), zipped(2000)]:
                sys.stdout.buffer.write(struct.pack("<I", len(blob)) + blob)
            """
        let made = try await Program.run("/usr/bin/python3", arguments: ["-c", script])
        try #require(made.status == 0, "\(made.errorText)")
        var zips: [[UInt8]] = [], at = 0
        while at + 4 <= made.output.count {
            let length = made.output[at..<(at + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
            zips.append(Array(made.output[(at + 4)..<(at + 4 + length)]))
            at += 4 + length
        }
        try #require(zips.count == 4 && zips[0].count < 100 << 10)
        func refusal(_ zip: [UInt8]) -> String? {
            (#expect(throws: TrackerError.self) { try ZipArchive.files(zip) { _ in true } })?.description
        }
        // 40 MiB of zeros in an 80 KB zip: within the 50 MB a file may be, past 50 times the zip's size.
        #expect(refusal(zips[0]) == "the zip file unpacks to more than 50 times its size, as no export does")
        #expect(refusal(zips[1]) == "the zip file unpacks to more than 50 times its size, as no export does")
        // A member that says it holds 1,000 bytes is inflated into 1,000 and found damaged at the next.
        #expect(refusal(zips[2]) == "history.csv in the zip file is damaged")
        // A small zip is not held to the ratio: 2,000 zeros from about 150 bytes.
        #expect(try ZipArchive.files(zips[3]) { _ in true }.first?.bytes.count == 2000)
    }

    /// Two real zips (Python's zipfile: a stored member, a deflated one, a ZIP64 one) with a few bytes changed at random,
    /// from a mutation run of 200,000 that this reader survived. ZIPFoundation 0.9.20, the mirror's zip library, trapped on
    /// the first (its in-memory archive: a range with reversed bounds) and never returned from the second (a file-backed
    /// archive whose ZIP64 sizes run past the end), so tvguide keeps its own reader. Each is refused, saying what is wrong.
    @Test(arguments: [
        ("a/history.csv in the zip file is damaged", [
            "UEsDBBQAAAAIAORAfV2Qo3m6JwAAAFgCAAANAAAAYS9oaXN0b3J5LmNzdivOyC/XKU5NLM7P00ktyCzOT0nlcs3JLEnVMdQx5CoelR2V",
            "JUsWAFBLAwQUAAAACADkQH1dXFnrOwkAAAAHAAAABgAAAGIuanNvbqtWqlCyMqwFAFBLAwQtAAAACAAAACEABe0B+f//////////BQAU",
            "AGMuY3N2AQAQABoAAAAAAAAAHAAAAAAAAAArzsgv1ylOgCzOz9NJLcgszk8B5YrQMdQx4gIAUEsBAhQDFAAAAAgA5EB9XZCjebonAAAA",
            "WAIAAA0AAAAAAAAAAAAAAIABALIAAGEvaGlzdG9yeS5jc3ZQSwECFAMUAAAACADkQH1dXFnrOwkAAAAHAAAABgAAAAAAAAAAAAAAgAFS",
            "AAAAYi5qc29uUEsBAi0DLQAAAAgAAAAhAAXtAfkcAAAAGgAAAAUAAAAAAAAAAAAAAIABfwAAAGMuY3N2UEsFBgAAAAADAAMAogAAANIA",
            "AAAAAA==",
        ]),
        ("c.csv in the zip file is cut short", [
            "UEsDBBQAAAAIAORAfV2QWHm6JwAAAFgCAAANAAAAYS9oaXN0b3J5LmNzdivOyC/XKU5NLM7P00ktyCzOT0nlcs3JLEnVMdQx5CoelR2V",
            "JUsWAFBLAwQUAAAACADkQH9dXFnr/gkAAAAHAAAABgAAAGIuanNvbqtWqlCyMqwFAFBLAwQtAAAACAAAACEABe0B+f//////////2QAU",
            "AGMuY3N2AQAQABoAAAAAAAAAHAAAAAAAAAArzsgv1ylOTSzOz9NJAMgszk9J5YrQMdQx4gIAUEsBAhQDFAD+AAgA5EB9XZCjebonAAAA",
            "WAIAAA0AAAAAAAAAAAAAAIABAAAAAGEvaGlzdG9yeS5jc3ZQSwECFAMUAAAACADkQH1dXFnrOwkAAAAHAAAABgAAAAAAAAAAAAAAgAFS",
            "AAAAYi5qc29uUEsBAi0DLQAAAAgAAAAhAAXtAfkcAAAAGgAAwgUAAAAAAAAAAAAAAIABfwAAAGMuY3N2UEsFBgAAAAADAAMAogAAANIA",
            "AAAAAA==",
        ]),
    ])
    func damagedZipsAreRefusedSayingWhy(message: String, base64: [String]) throws {
        let bytes = try #require(Data(base64Encoded: base64.joined()))
        let error = #expect(throws: TrackerError.self) { try ZipArchive.files([UInt8](bytes)) { _ in true } }
        #expect(error?.description == message)
    }

    @Test func hostileFilesAreRefusedOrRepairedAsDocumented() throws {
        func read(_ text: String, name: String = "history.csv") throws -> TrackerHistory {
            try TrackerFiles.read([(name, Array(text.utf8))])
        }
        // A byte-order mark and CRLF; the same episode twice is one, with two plays and the earlier time; a time
        // outside 1928-2100 is none; a formula cell is a title like any other.
        let plain = try read("\u{FEFF}show,tvdb,season,episode,watched_at\r\nElite,346328,1,1,2019-10-04 03:43:42\r\nElite,346328,1,1,2019-10-03T01:00:00Z\r\n"
                             + "Elite,346328,1,2,9999-01-01T00:00:00Z\r\n\"=HYPERLINK(\"\"http://x\"\")\",,1,1,2020-01-01\r\nElite,346328,one,2,\r\n")
        #expect(plain.kind == .plain && plain.shows.count == 2)
        let elite = try #require(plain.shows.first)
        #expect(elite.episodes.count == 2 && elite.episodes[0].plays == 2 && elite.episodes[0].watchedAt == CivilTime.parseISO8601("2019-10-03T01:00:00Z"))
        #expect(elite.episodes[1].watchedAt == nil)
        #expect(plain.shows[1].title == "=HYPERLINK(\"http://x\")")
        #expect(plain.problems.map(\.description) == ["line 6: Elite has no season or episode number"])
        // Columns that are no export's.
        #expect(throws: TrackerError.self) { try read("a,b,c\n1,2,3\n") }
        // Not UTF-8; a quote never closed; a field past 64 KB; more than 50 MB.
        #expect(throws: TrackerError.self) { try TrackerFiles.read([("x.csv", [0x73, 0x68, 0x6F, 0x77, 0x0A, 0xFF, 0xFE])]) }
        #expect(throws: TrackerError.self) { try read("show,season,episode\n\"Elite,1,1\n") }
        #expect(throws: TrackerError.self) { try read("show,season,episode\n" + String(repeating: "x", count: 70_000) + ",1,1\n") }
        #expect(throws: TrackerError.self) { try TrackerFiles.read([("big.csv", [UInt8](repeating: 0x41, count: TrackerFiles.largestFile + 1))]) }
        // TV Time's old export names episodes only by TheTVDB's ids: said so.
        let old = #expect(throws: TrackerError.self) { try read("tweet_id,user_id,episode_id,created_at,updated_at,fb_action_id\n,1,306587,2017-05-02 21:24:51 +0000 UTC,,\n") }
        #expect(old?.description.contains("TV Time's old export") == true)
        // Ids that are no ids, numbers out of range.
        let odd = try read("show,imdb,tvdb,season,episode\nX,-1,0,100000,1\nY,tt12,abc,1,1\n")
        #expect(odd.shows.map(\.imdb) == [nil, "tt12"] && odd.shows.allSatisfy { $0.tvdb == nil } && odd.episodeCount == 1)
        // Numbers past every range: no id, one play, no season.
        let huge = try read("show,tvdb,tvmaze,season,episode,plays,watched_at\nX,9223372036854775807,9223372036854775807,1,1,-1,1e308\nX,1,,nan,1,9223372036854775807,\n")
        #expect(huge.shows.first?.tvdb == nil && huge.shows.first?.tvmaze == nil)
        #expect(huge.shows.first?.episodes.map(\.plays) == [1] && huge.shows.first?.episodes.first?.watchedAt == nil)
        #expect(huge.problems.contains { $0.description.hasPrefix("line 3:") })
        // JSON that is not JSON.
        #expect(throws: TrackerError.self) { try TrackerFiles.read([("watched-history.json", Array("[{".utf8))]) }
    }

    @Test func timesAreUTCWhateverTheTrackerWrote() {
        #expect(TrackerTime.parse("2019-10-04 03:43:42") == CivilTime.parseISO8601("2019-10-04T03:43:42Z"))
        #expect(TrackerTime.parse("2017-05-02 21:24:51 +0000 UTC") == CivilTime.parseISO8601("2017-05-02T21:24:51Z"))
        #expect(TrackerTime.parse("2025-03-20T10:15:42.067614Z") == CivilTime.parseISO8601("2025-03-20T10:15:42Z"))
        #expect(TrackerTime.parse("2024-02-09") == CivilTime.parseISO8601("2024-02-09T12:00:00Z"))
        #expect(TrackerTime.parse("1500000000") == Date(timeIntervalSince1970: 1_500_000_000))
        for nonsense in ["", "0001-01-01", "yesterday", "99999999999999", "2024-13-45 99:99:99", String(repeating: "9", count: 100)] {
            #expect(TrackerTime.parse(nonsense) == nil, "\(nonsense)")
        }
    }
}
