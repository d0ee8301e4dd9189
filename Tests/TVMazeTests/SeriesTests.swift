import Foundation
import GuideCore
import GuideStore
import Testing
import TVMazeReplay
@testable import TVMaze

/// Following shows through the replay server: the store keeps what the upcoming list, the calendar and the feed
/// read; refreshes go through `/updates/shows`.
@Suite struct SeriesTests {
    /// Under the Dome's pilot: 2013-06-24 22:00 in New York, 2013-06-25 02:00 UTC.
    static let pilot = Date(timeIntervalSince1970: 1_372_125_600)
    static let london = TimeZone(identifier: "Europe/London")!

    struct Rig {
        let rig: TVMazeClientTests.Rig
        let tracker: SeriesTracker
        let profile: ProfileID
        var store: any GuideDatabase { rig.store! }

        init() async throws {
            rig = try await TVMazeClientTests.Rig(cached: true)
            let store = rig.store!
            tracker = SeriesTracker(client: rig.client, store: store, now: { [clock = rig.clock] in clock.now })
            profile = try await store.createProfile(name: "Sam", role: .viewer, secretKind: .pin, secretHash: "x").id
        }

        func schedule(shift: Int = 0, zone: TimeZone = SeriesTests.london) throws -> EpisodeSchedule {
            var settings = SeriesSettings()
            settings.shiftMinutes = shift
            return EpisodeSchedule(store: store, profile: profile, zone: zone, settings: settings)
        }
    }

    @Test func followingFetchesTheShowAndItsEpisodesOnce() async throws {
        let rig = try await Rig()
        let show = try await rig.tracker.follow(show: 1, by: rig.profile)
        #expect(show.name == "Under the Dome" && show.channel?.name == "CBS" && show.channel?.zone == "America/New_York")
        #expect(rig.rig.server.requests.map(\.path) == ["/shows/1", "/shows/1/episodes", "/shows/1/akas"])
        // Its other titles are kept with it, to find it in listings in those countries.
        #expect(try await rig.store.trackedShow(1)?.show.akas == [AlsoKnownAs(name: "Под куполом", country: "RU"),
                                                                    AlsoKnownAs(name: "A búra alatt", country: "HU")])
        #expect(try await rig.store.following(rig.profile).first?.show.akas.count == 2)
        let episodes = try await rig.store.episodes(ofShow: 1)
        #expect(episodes.count == 39 && episodes.first?.code == "S01E01" && episodes.last?.code == "S03E13")
        // TVmaze's 2022 answer: 22:00 EDT is 02:00 UTC (its 2019 answer said 03:00, API-NOTES §5).
        #expect(episodes.first?.airstamp == "2013-06-25T02:00:00+00:00")
        #expect(episodes.first?.show?.channel?.zone == "America/New_York" && episodes.first?.airTime() == .instant(Date(timeIntervalSince1970: 1_372_125_600)))
        // Following again asks TVmaze nothing and keeps one row.
        try await rig.tracker.follow(show: 1, by: rig.profile)
        #expect(rig.rig.server.requests.count == 3)
        #expect(try await rig.store.following(rig.profile).count == 1)

        await #expect(throws: TVMazeError.notFound(path: "/shows/999999")) { try await rig.tracker.follow(show: 999_999, by: rig.profile) }
        try await rig.tracker.unfollow(show: 1, by: rig.profile)
        #expect(try await rig.store.following(rig.profile).isEmpty)
        #expect(try await rig.store.trackedShow(1) == nil)
        try await rig.rig.close()
    }

    @Test func upcomingIsTheNextEpisodeInTheViewersZoneAndShift() async throws {
        let rig = try await Rig()
        try await rig.tracker.follow(show: 1, by: rig.profile)
        let before = Self.pilot.addingTimeInterval(-6 * 3600)
        let next = try #require(try await rig.schedule().upcoming(at: before).first?.next)
        #expect(next.episode.code == "S01E01" && next.time == .instant(Self.pilot))
        #expect(next.time.day(in: Self.london) == CivilDate(year: 2013, month: 6, day: 25))
        #expect(next.time.day(in: TimeZone(identifier: "America/New_York")!) == CivilDate(year: 2013, month: 6, day: 24))
        // On air: still the pilot until it ends an hour later; then episode 2.
        #expect(try await rig.schedule().upcoming(at: Self.pilot.addingTimeInterval(1800)).first?.next?.episode.code == "S01E01")
        #expect(try await rig.schedule().upcoming(at: Self.pilot.addingTimeInterval(3601)).first?.next?.episode.code == "S01E02")
        // A channel showing it a day later.
        let shifted = try #require(try await rig.schedule(shift: 1440).upcoming(at: before).first?.next)
        #expect(shifted.time == .instant(Self.pilot.addingTimeInterval(86_400)))
        // Airing today: one episode on the 25th in London, none on the 24th; on the 24th in New York.
        #expect(try await rig.schedule().airingToday(at: Self.pilot) == 1)
        #expect(try await rig.schedule().airingToday(at: before) == 0)
        #expect(try await rig.schedule(zone: TimeZone(identifier: "America/New_York")!).airingToday(at: before) == 1)
        // After the finale: ended.
        #expect(try await rig.schedule().upcoming(at: Date(timeIntervalSince1970: 1_800_000_000)).first?.state == .ended)
        try await rig.rig.close()
    }

    @Test func runningShowWithoutADateSaysSoAndStreamingReleasesAreAllDay() async throws {
        let rig = try await Rig()
        let checked = Date(timeIntervalSince1970: 1_700_000_000)
        try await rig.store.saveShow(.kept(id: 44458, name: "Ted Lasso", status: "Running", channel: "Apple TV+", web: true,
                                           episodes: [.kept(id: 1, season: 4, number: 1, airdate: "", airtime: "")]), checked: checked)
        try await rig.store.saveShow(.kept(id: 7, name: "Streamer", status: "Running", channel: "Netflix", web: true,
                                           episodes: [.kept(id: 2, season: 1, number: 1, airdate: "2024-03-01", airtime: "",
                                                            airstamp: "2024-03-01T12:00:00+00:00")]), checked: checked)
        try await rig.store.follow(show: 44458, by: rig.profile, at: checked)
        try await rig.store.follow(show: 7, by: rig.profile, at: checked)
        let list = try await rig.schedule().upcoming(at: Date(timeIntervalSince1970: 1_709_200_000))  // 2024-02-29
        #expect(list.map(\.followed.show.name) == ["Streamer", "Ted Lasso"])
        #expect(list[0].next?.time == .day(CivilDate(year: 2024, month: 3, day: 1)) && list[1].state == .noDate)
        let days = try await rig.schedule().airings(from: CivilDate(year: 2024, month: 3, day: 1), through: CivilDate(year: 2024, month: 3, day: 1))
        #expect(days.map(\.episode.id) == [2])
        // The store keeps the values: a web channel stays one, and each episode names its show and channel.
        #expect(try await rig.store.trackedShow(44458)?.show.channel == ShowChannel(id: nil, name: "Apple TV+", isWebChannel: true))
        #expect(try await rig.store.episodes(ofShow: 7).first?.show == ShowReference(id: 7, name: "Streamer",
                                                                                   channel: ShowChannel(id: nil, name: "Netflix", isWebChannel: true)))
        // A daily show's thousands of episodes are saved whole (a thousand rows a statement).
        let daily = (1...2_345).map { Episode.kept(id: 100_000 + $0, season: 2024, number: $0, airdate: "2024-03-01") }
        try await rig.store.saveShow(.kept(id: 8, name: "Daily", channel: "CBS", zone: "America/New_York", episodes: daily), checked: checked)
        #expect(try await rig.store.episodes(ofShow: 8).map(\.id) == daily.map(\.id))
        try await rig.rig.close()
    }

    @Test func refreshAsksForUpdatesOnceAndRefetchesOnlyChangedShowsThatHaveNotEnded() async throws {
        let rig = try await Rig()
        let longAgo = Date(timeIntervalSince1970: 1_000_000_000)
        // Copies older than a month: the whole /updates/shows map (recorded, 2017) is asked for.
        try await rig.store.saveShow(.kept(id: 1, name: "Under the Dome", status: "Running", updated: 0), checked: longAgo)
        try await rig.store.saveShow(.kept(id: 13, name: "The Flash", status: "Running", updated: 2_000_000_000), checked: longAgo)
        try await rig.store.saveShow(.kept(id: 180, name: "Firefly", status: "Ended", updated: 0), checked: longAgo)
        for id in [1, 13, 180] { try await rig.store.follow(show: id, by: rig.profile, at: longAgo) }

        let report = try await rig.tracker.refresh()
        #expect(report.refetched == [1] && report.unchanged == [13] && report.ended == [180] && report.failed.isEmpty)
        #expect(rig.rig.server.requests.map(\.path) == ["/updates/shows", "/shows/1", "/shows/1/episodes", "/shows/1/akas"])
        #expect(try await rig.store.trackedShow(1)?.show.status == "Ended")
        #expect(try await rig.store.episodes(ofShow: 1).count == 39)
        #expect(try await rig.store.trackedShow(13)?.checked == rig.rig.clock.now)

        // Checked just now, the next refresh asks for a day's updates (none recorded: TVmaze's 404 is an empty map).
        let again = try await rig.tracker.refresh()
        #expect(again.refetched.isEmpty && again.unchanged == [13])
        #expect(rig.rig.server.requests.last?.query == ["since": ["day"]])
        try await rig.rig.close()
    }

    /// Followed shows' episodes become reminders like any other: the next two days' timed airings of shows with
    /// reminders on, at the profile's lead time; dropped when reminders are turned off, made again when on, and a
    /// reminder the profile cancelled stays cancelled.
    @Test func episodeRemindersFollowTheFollowedShows() async throws {
        let rig = try await Rig()
        try await rig.tracker.follow(show: 1, by: rig.profile)
        let episodes = EpisodeReminders(store: rig.store, defaultZone: Self.london)
        let profile = try #require(try await rig.store.profile(rig.profile))
        let evening = Self.pilot.addingTimeInterval(-6 * 3600)
        #expect(try await episodes.sync(profile, at: evening) == EpisodeReminders.Changes(added: 1))
        let pending = try await rig.store.reminders(of: rig.profile, in: [.pending], limit: 10)
        #expect(pending.map(\.what.title) == ["Under the Dome S01E01 Pilot"] && pending.first?.what.kind == .episode)
        #expect(pending.first?.what.due == Self.pilot.addingTimeInterval(-15 * 60) && pending.first?.what.channelName == "CBS")
        #expect(try await episodes.sync(profile, at: evening) == EpisodeReminders.Changes())   // Nothing new.

        var settings = try await rig.store.seriesSettings(of: rig.profile)
        settings.leadMinutes = 60
        try await rig.store.saveSeriesSettings(settings, of: rig.profile)
        #expect(try await episodes.sync(profile, at: evening) == EpisodeReminders.Changes(changedLead: 1))
        #expect(try await rig.store.reminders(of: rig.profile, in: [.pending], limit: 1).first?.what.due == Self.pilot.addingTimeInterval(-3600))

        try await rig.store.setReminders(false, show: 1, by: rig.profile)
        #expect(try await episodes.sync(profile, at: evening) == EpisodeReminders.Changes(dropped: 1))
        try await rig.store.setReminders(true, show: 1, by: rig.profile)
        #expect(try await episodes.sync(profile, at: evening) == EpisodeReminders.Changes(added: 1))

        let again = try #require(try await rig.store.reminders(of: rig.profile, in: [.pending], limit: 1).first)
        try await rig.store.cancelReminder(again.id, of: rig.profile, at: evening)
        #expect(try await episodes.sync(profile, at: evening) == EpisodeReminders.Changes())
        #expect(try await rig.store.reminders(of: rig.profile, in: [.pending], limit: 1).isEmpty)
        try await rig.rig.close()
    }
}
