import Foundation
import GuideCore
import GuideStore
import Testing
import TrackerExports
import TVMazeReplay
@testable import TVMaze

/// A tracker's history matched to TVmaze and kept (issue 29), against the replay server: Under the Dome found by its
/// TVDB id, its IMDb id and its title (TVmaze's lookups answered with a redirect to the show, as TVmaze documents),
/// episodes by season and number, else air date, else title; what matches nothing listed; the same file twice
/// changing nothing; the export read back.
@Suite struct HistoryImportTests {
    static func csv(_ text: String) throws -> TrackerHistory {
        try TrackerFiles.read([("history.csv", Array(text.utf8))])
    }

    @Test func showsByTheirIdsOrTitleAndEpisodesByNumberDateOrName() async throws {
        let rig = try await WatchHistoryTests.Rig()
        let importer = HistoryImport(client: rig.series.rig.client, history: rig.history)
        let tracked = try Self.csv("""
            show,tvdb,imdb,year,season,episode,watched_at
            Under the Dome,264492,,2013,1,1,2013-06-25 03:00:00
            Under the Dome,264492,,2013,1,2,
            Under the Dome,264492,,2013,7,7,2020-01-01T00:00:00Z
            A Show TVmaze Never Had,999999999,,,1,1,2020-01-01T00:00:00Z
            """)
        let plan = try await importer.plan(tracked)
        #expect(plan.matched.count == 1 && plan.unmatched.map(\.title) == ["A Show TVmaze Never Had"])
        let match = try #require(plan.matched.first)
        #expect(match.show.id == 1 && match.how == "TVDB 264492")
        #expect(match.marks.map(\.number) == [1, 2] && match.unmatched.map(\.season) == [7])
        #expect(match.marks[0].watchedAt == CivilTime.parseISO8601("2013-06-25T03:00:00Z") && match.marks[1].watchedAt == nil)
        // The preview kept nothing.
        #expect(try await rig.store.watched(by: rig.profile, show: nil).isEmpty)
        #expect(try await importer.apply(plan, to: rig.profile, follow: true) == HistoryImport.Report(marked: 2, followed: 1))
        #expect(try await rig.history.progress(of: rig.profile).first?.next?.code == "S01E03")
        // Again: nothing changes.
        #expect(try await importer.apply(try await importer.plan(tracked), to: rig.profile, follow: true) == HistoryImport.Report(marked: 0, followed: 0))

        // By IMDb id; by title (its year agreeing); a title whose year does not agree is not taken; chosen by hand.
        let byIMDb = try await importer.plan(try Self.csv("show,imdb,season,episode\nUTD,tt1553656,1,3\n"))
        #expect(byIMDb.matched.first?.how == "IMDb tt1553656")
        let byTitle = try await importer.plan(try Self.csv("show,year,season,episode\nunder the dome,2013,1,3\n"))
        #expect(byTitle.matched.first?.how == "title" && byTitle.matched.first?.show.id == 1)
        let remake = try await importer.plan(try Self.csv("show,year,season,episode\nunder the dome,1990,1,3\n"))
        #expect(remake.matched.isEmpty && remake.unmatched.count == 1)
        let chosen = try await importer.plan(try Self.csv("show,year,season,episode\nunder the dome,1990,1,3\n"), choices: ["under the dome": 1])
        #expect(chosen.matched.first?.how == "chosen")
        try await rig.series.rig.close()
    }

    @Test func anEpisodeByAirDateOrNameWhenTheNumbersDiffer() throws {
        var pilot = Episode(id: 1)
        (pilot.season, pilot.number, pilot.airdate, pilot.name) = (1, 1, "2013-06-24", "Pilot")
        var second = Episode(id: 2)
        (second.season, second.number, second.airdate, second.name) = (1, 2, "2013-07-01", "The Fire")
        let episodes = [pilot, second]
        // Numbered another way (absolute, a year): found by the day it aired, else its name; two on one day are neither.
        #expect(HistoryImport.episode(.init(season: 2013, number: 9, airdate: CivilDate("2013-07-01"), watchedAt: nil), in: episodes)?.id == 2)
        #expect(HistoryImport.episode(.init(season: 5, number: 131, title: "PILOT", watchedAt: nil), in: episodes)?.id == 1)
        #expect(HistoryImport.episode(.init(season: 5, number: 131, watchedAt: nil), in: episodes) == nil)
    }

    @Test func theExportReadsBackAsTheSameHistory() async throws {
        let rig = try await WatchHistoryTests.Rig()
        try await rig.series.tracker.follow(show: 1, by: rig.profile)
        try await rig.history.mark(.season(1), show: 1, watched: true, by: rig.profile, at: Date(timeIntervalSince1970: 1_380_000_000))
        let document = try await HistoryExport(store: rig.store).document(of: rig.profile, at: Date())
        #expect(document.shows.count == 1 && document.shows[0].episodes.count == 13 && document.shows[0].followed)
        let csv = HistoryExport.csv(document)
        #expect(csv.hasPrefix("show,tvmaze,followed,season,episode,watched_at,plays\r\nUnder the Dome,1,true,1,1,2013-09-24T05:20:00Z,1\r\n"))
        // Into another profile through the importer: the same marks, by TVmaze's own id.
        let other = try await rig.store.createProfile(name: "Alex", role: .viewer, secretKind: .pin, secretHash: "y").id
        let importer = HistoryImport(client: rig.series.rig.client, history: rig.history)
        let plan = try await importer.plan(try Self.csv(csv))
        #expect(plan.matched.first?.how == "TVmaze 1")
        _ = try await importer.apply(plan, to: other, follow: true)
        let theirs = try await rig.store.watched(by: other, show: 1), mine = try await rig.store.watched(by: rig.profile, show: 1)
        #expect(theirs == mine)
        // A title a spreadsheet would run is written inert and read back as it was.
        #expect(HistoryExport.cell("=cmd|' /C calc'!A0") == "'=cmd|' /C calc'!A0" && HistoryExport.cell("a,\"b\"") == "\"a,\"\"b\"\"\"")
        // A tab or a carriage return first, which some spreadsheets skip before a formula, too (issue 43).
        #expect(HistoryExport.cell("\t=1+1") == "'\t=1+1" && HistoryExport.cell("\r=1+1") == "\"'\r=1+1\"")
        #expect(HistoryExport.cell("Doctor Who") == "Doctor Who" && HistoryExport.cell("'Allo 'Allo!") == "'Allo 'Allo!")
        let round = try Self.csv("show,tvmaze\n'=Evil,1\n\"'\t@Tabbed\",2\n'Allo 'Allo!,3\n")
        // (A title's surrounding whitespace is not kept.)
        #expect(round.shows.map(\.title) == ["=Evil", "@Tabbed", "'Allo 'Allo!"])
        try await rig.series.rig.close()
    }
}
