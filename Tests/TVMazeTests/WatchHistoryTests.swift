import Foundation
import GuideCore
import GuideStore
import Testing
import TVMazeReplay
@testable import TVMaze

/// Watched episodes per profile (issue 29): an episode, a season, everything up to an episode, every aired one, and
/// back; the progress "Up next" shows; marks that outlive the show's refreshes and the show itself. Against the replay
/// server's Under the Dome (39 episodes, 2013-2015) on a real store.
@Suite struct WatchHistoryTests {
    struct Rig {
        let series: SeriesTests.Rig
        let history: WatchHistory
        var store: any GuideDatabase { series.store }
        var profile: ProfileID { series.profile }

        /// `now` moves with the series rig's clock (2027, after every episode aired) unless a test sets one.
        init(now: (@Sendable () -> Date)? = nil) async throws {
            series = try await SeriesTests.Rig()
            let clock = series.rig.clock
            history = WatchHistory(store: series.store, tracker: series.tracker, now: now ?? { clock.now })
        }
    }

    @Test func markingAnEpisodeASeasonUpToAndEverythingAired() async throws {
        let rig = try await Rig()
        try await rig.series.tracker.follow(show: 1, by: rig.profile)
        let episodes = try await rig.store.episodes(ofShow: 1)
        let third = try #require(episodes.first { $0.code == "S01E03" })
        let watchedAt = Date(timeIntervalSince1970: 1_373_500_000)

        #expect(try await rig.history.mark(.upTo(third.id), show: 1, watched: true, by: rig.profile, at: watchedAt) == 3)
        var progress = try #require(try await rig.history.progress(of: rig.profile).first)
        #expect(progress.aired == 39 && progress.watched == 3 && progress.next?.code == "S01E04")
        #expect(progress.lastWatched == watchedAt && progress.newSinceLastWatched == 36)
        // Marking again changes nothing, whatever time it names; the first known time stays.
        #expect(try await rig.history.mark(.upTo(third.id), show: 1, watched: true, by: rig.profile) == 0)
        #expect(try await rig.store.watched(by: rig.profile, show: 1).allSatisfy { $0.watchedAt == watchedAt && $0.plays == 1 })

        // A season: its 13; "up next" is the one after the last watched in air order, S03E01, though S01E04 is not watched.
        #expect(try await rig.history.mark(.season(2), show: 1, watched: true, by: rig.profile) == 13)
        progress = try #require(try await rig.history.progress(of: rig.profile).first)
        #expect(progress.watched == 16 && progress.next?.code == "S03E01")
        // Back: the season unmarked.
        #expect(try await rig.history.mark(.season(2), show: 1, watched: false, by: rig.profile) == 13)
        #expect(try await rig.store.watched(by: rig.profile, show: 1).map(\.number) == [1, 2, 3])
        // Everything aired; then up to date.
        #expect(try await rig.history.mark(.allAired, show: 1, watched: true, by: rig.profile) == 36)
        progress = try #require(try await rig.history.progress(of: rig.profile).first)
        #expect(progress.watched == 39 && progress.next == nil && progress.newSinceLastWatched == 0)
        // A scope naming no episode of the show.
        await #expect(throws: StoreError.self) { try await rig.history.mark(.season(9), show: 1, watched: true, by: rig.profile) }
        await #expect(throws: StoreError.self) { try await rig.history.mark(.episode(999_999), show: 1, watched: true, by: rig.profile) }
        try await rig.series.rig.close()
    }

    @Test func onlyAiredEpisodesAreCountedAndMarkedInBulk() async throws {
        // Before season 2's premiere on 2014-06-30: season 1 has aired, seasons 2 and 3 have not.
        let between = Date(timeIntervalSince1970: 1_400_000_000)  // 2014-05-13
        let rig = try await Rig(now: { between })
        try await rig.series.tracker.follow(show: 1, by: rig.profile)
        #expect(try await rig.history.mark(.allAired, show: 1, watched: true, by: rig.profile) == 13)
        let progress = try #require(try await rig.history.progress(of: rig.profile).first)
        #expect(progress.aired == 13 && progress.watched == 13 && progress.next == nil)
        // A season that has not aired names nothing in bulk; one episode can still be marked (an early release).
        await #expect(throws: StoreError.self) { try await rig.history.mark(.season(2), show: 1, watched: true, by: rig.profile) }
        let premiere = try #require(try await rig.store.episodes(ofShow: 1).first { $0.code == "S02E01" })
        #expect(try await rig.history.mark(.episode(premiere.id), show: 1, watched: true, by: rig.profile) == 1)
        try await rig.series.rig.close()
    }

    /// Specials are kept with the show (it is fetched with specials=1), marked one at a time and counted apart; bulk marks
    /// and "up next" leave them out. (No recorded TVmaze answer has a special: this one is made here.)
    @Test func specialsAreKeptMarkedOneAtATimeAndCountedApart() async throws {
        let rig = try await Rig()
        var show = try await rig.series.tracker.follow(show: 1, by: rig.profile)
        #expect(rig.series.rig.server.requests(to: "/shows/1/episodes").map(\.query) == [["specials": ["1"]]])
        var special = Episode(id: 9_000_001)
        special.name = "Inside Chester's Mill"
        special.season = 1
        special.type = "significant_special"
        special.airdate = "2013-09-20"
        special.airstamp = "2013-09-21T02:00:00+00:00"
        show.episodes = try await rig.store.episodes(ofShow: 1) + [special]
        try await rig.store.saveShow(show, checked: Date())
        #expect(try await rig.history.mark(.allAired, show: 1, watched: true, by: rig.profile) == 39)
        var progress = try #require(try await rig.history.progress(of: rig.profile).first)
        #expect(progress.watched == 39 && progress.aired == 39 && progress.specialsAired == 1 && progress.specialsWatched == 0 && progress.next == nil)
        #expect(try await rig.history.mark(.episode(special.id), show: 1, watched: true, by: rig.profile) == 1)
        progress = try #require(try await rig.history.progress(of: rig.profile).first)
        #expect(progress.watched == 39 && progress.specialsWatched == 1)
        #expect(try await rig.store.watched(by: rig.profile, show: 1).first { $0.episodeID == special.id }?.number == nil)
        try await rig.series.rig.close()
    }

    @Test func marksOutliveTheShowsRefreshAndUnfollowing() async throws {
        let rig = try await Rig()
        let show = try await rig.series.tracker.follow(show: 1, by: rig.profile)
        try await rig.history.mark(.season(1), show: 1, watched: true, by: rig.profile)
        // A refresh replaces the show's episodes; the marks stay.
        var again = show
        again.episodes = try await rig.store.episodes(ofShow: 1)
        try await rig.store.saveShow(again, checked: Date())
        #expect(try await rig.store.watched(by: rig.profile, show: 1).count == 13)
        // Unfollowed: the show is kept, as its history names it; gone with the last mark.
        try await rig.series.tracker.unfollow(show: 1, by: rig.profile)
        #expect(try await rig.store.trackedShow(1)?.show.name == "Under the Dome")
        #expect(try await rig.history.progress(of: rig.profile).isEmpty)
        try await rig.history.mark(.season(1), show: 1, watched: false, by: rig.profile)
        try await rig.store.unfollow(show: 1, by: rig.profile)
        #expect(try await rig.store.trackedShow(1) == nil)
        // A show nobody keeps is fetched when marked, and kept.
        try await rig.history.mark(.episode(1), show: 1, watched: true, by: rig.profile)
        #expect(try await rig.store.trackedShow(1) != nil)
        try await rig.series.rig.close()
    }

    @Test func manyMarksAtOnceAndTheSameEpisodeTwice() async throws {
        let rig = try await Rig()
        try await rig.series.tracker.follow(show: 1, by: rig.profile)
        // 2,500 marks (more than one statement's thousand), the same episode twice: its earlier time, its most plays.
        var marks = (0..<2_500).map { WatchedEpisode(episodeID: 10_000 + $0, showID: 1, season: 1, number: $0, watchedAt: nil) }
        marks.append(WatchedEpisode(episodeID: 10_000, showID: 1, season: 1, number: 0, watchedAt: Date(timeIntervalSince1970: 100), plays: 3))
        #expect(try await rig.store.markWatched(marks, by: rig.profile, at: Date()) == 2_500)
        let first = try #require(try await rig.store.watched(by: rig.profile, show: 1).first { $0.episodeID == 10_000 })
        #expect(first.watchedAt == Date(timeIntervalSince1970: 100) && first.plays == 3)
        #expect(try await rig.store.markWatched(marks, by: rig.profile, at: Date()) == 0)
        #expect(try await rig.store.unmarkWatched(episodes: marks.map(\.episodeID), by: rig.profile, at: Date()) == 2_500)
        // Another profile's marks are its own.
        let other = try await rig.store.createProfile(name: "Alex", role: .viewer, secretKind: .pin, secretHash: "y").id
        try await rig.store.markWatched([marks[0]], by: other, at: Date())
        #expect(try await rig.store.watched(by: rig.profile, show: nil).isEmpty)
        #expect(try await rig.store.watched(by: other, show: nil).count == 1)
        try await rig.series.rig.close()
    }

    @Test func continueWatchingOrder() {
        func progress(_ name: String, watched: Int, next: Bool, last: TimeInterval?) -> ShowProgress {
            var show = ShowProgress(show: Show(id: name.count, name: name), episodes: [], marks: [], now: Date())
            (show.watched, show.next, show.lastWatched) = (watched, next ? Episode(id: 1) : nil, last.map(Date.init(timeIntervalSince1970:)))
            return show
        }
        let shows = [progress("Done", watched: 5, next: false, last: 300), progress("New", watched: 0, next: true, last: nil),
                     progress("Older", watched: 2, next: true, last: 100), progress("Recent", watched: 2, next: true, last: 200)]
        #expect(shows.sorted(by: ShowProgress.continueWatching).map(\.show.name) == ["Recent", "Older", "New", "Done"])
    }
}
