import Foundation
import GuideCore
import GuideStore
import Testing
import TVMazeReplay
@testable import TVMaze

/// A profile's marks and follows synced both ways with a TVmaze account (issue 29), against the replay server's user
/// API stand-in (synthetic, as TVmaze's OpenAPI document describes it) and Under the Dome's recorded episodes, on a
/// real store. The clock starts in 2027; each sync moves it on a minute.
@Suite struct TVMazeSyncTests {
    struct Rig {
        let watched: WatchHistoryTests.Rig
        let sync: TVMazeSync
        /// Under the Dome's episodes by code ("S01E03": id).
        let ids: [String: Int]
        var server: ReplayServer { watched.series.rig.server }
        var account: UserAccountStandIn { server.account }
        var store: any GuideDatabase { watched.store }
        var profile: ProfileID { watched.profile }
        var now: Date { watched.history.now() }

        init(premium: Int = 1) async throws {
            watched = try await WatchHistoryTests.Rig()
            sync = TVMazeSync(history: watched.history, client: watched.series.rig.client, accounts: watched.store)
            _ = try await watched.history.kept(1)
            ids = Dictionary(try await watched.store.episodes(ofShow: 1).map { ($0.code, $0.id) }, uniquingKeysWith: { first, _ in first })
            watched.series.rig.server.account.configure(username: "sam", apiKey: "k3y", premium: premium)
        }

        func mark(_ codes: [String], at instant: Date? = nil) async throws {
            try await store.markWatched(codes.map { WatchedEpisode(episodeID: ids[$0]!, showID: 1, season: nil, number: nil, watchedAt: instant) },
                                        by: profile, at: now)
        }

        /// The codes marked here.
        func here() async throws -> Set<String> {
            let codes = Dictionary(ids.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
            return Set(try await store.watched(by: profile, show: nil).compactMap { codes[$0.episodeID] })
        }

        /// The codes marked on TVmaze.
        func there() -> Set<String> {
            let codes = Dictionary(ids.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
            return Set(account.marks.keys.compactMap { codes[$0] })
        }

        func syncOnce() async throws -> TVMazeSync.Report {
            watched.series.rig.clock.advance(by: 60)
            let report = try #require(try await sync.sync(profile))
            watched.series.rig.clock.advance(by: 60)
            return report
        }
    }

    @Test func theFirstSyncJoinsBothSidesAndTheNextChangesNothing() async throws {
        let rig = try await Rig()
        try await rig.sync.connect(.init(username: "sam", apiKey: "k3y"), profile: rig.profile)
        let watchedAt = Date(timeIntervalSince1970: 1_372_200_000)
        try await rig.mark(["S01E01", "S01E02"], at: watchedAt)
        try await rig.mark(["S01E03"])
        // There: S01E03 with a time (here it has none) and S01E05; the show followed there.
        rig.account.marks = [rig.ids["S01E03"]!: .init(markedAt: 1_372_900_000, type: 0), rig.ids["S01E05"]!: .init(markedAt: 1_373_500_000, type: 0),
                             rig.ids["S01E06"]!: .init(markedAt: 1_373_600_000, type: 1)]  // acquired, not watched
        rig.account.follows = [1]

        let report = try await rig.syncOnce()
        #expect(report.markedHere == 2 && report.markedThere == 2 && report.followedHere == 1, "\(report)")
        #expect(try await rig.here() == ["S01E01", "S01E02", "S01E03", "S01E05"])
        #expect(rig.there() == ["S01E01", "S01E02", "S01E03", "S01E05", "S01E06"])
        // Times: TVmaze's fills the one not known here; ours goes there with the mark.
        let marks = try await rig.watched.history.marks(of: 1, by: rig.profile)
        #expect(marks[rig.ids["S01E03"]!]?.watchedAt == Date(timeIntervalSince1970: 1_372_900_000))
        #expect(rig.account.marks[rig.ids["S01E01"]!] == .init(markedAt: 1_372_200_000, type: 0))
        #expect(try await rig.store.following(rig.profile).map(\.show.id) == [1])
        let account = try #require(try await rig.store.tvmazeAccount(of: rig.profile))
        // Kept as counts, worded for whoever reads them.
        #expect(account.succeeded == true && account.premium == 1 && TVMazeSync.Report.outcome(account.outcome ?? "").description == report.description)
        #expect(TVMazeSync.Report.outcome(account.outcome ?? "").description != account.outcome)
        // An outcome kept as text before sentences were reads back as it was.
        #expect(TVMazeSync.Report.outcome("TVmaze did not answer") == .verbatim("TVmaze did not answer"))

        let before = rig.server.requests.count
        let again = try await rig.syncOnce()
        #expect(again == TVMazeSync.Report() && again.description == "already the same on both sides")
        // Read-only: the key checked, the marks and the follows read; nothing sent.
        #expect(rig.server.requests.dropFirst(before).map { "\($0.method) \($0.path)" }
            == ["GET /v1/auth/validate", "GET /v1/user/episodes", "GET /v1/user/follows/shows"])
        try await rig.watched.series.rig.close()
    }

    @Test func changesOnEachSideSinceTheLastSyncCrossAndTheLaterWins() async throws {
        let rig = try await Rig()
        try await rig.sync.connect(.init(username: "sam", apiKey: "k3y"), profile: rig.profile)
        try await rig.mark(["S01E01", "S01E02", "S01E03", "S01E04"])
        try await rig.watched.series.tracker.follow(show: 1, by: rig.profile)
        _ = try await rig.syncOnce()
        #expect(rig.there() == ["S01E01", "S01E02", "S01E03", "S01E04"] && rig.account.follows == [1])

        // Here: S01E01 unmarked, S01E07 marked. There: S01E02 unmarked, S01E06 marked.
        try await rig.watched.history.mark(.episode(rig.ids["S01E01"]!), show: 1, watched: false, by: rig.profile)
        try await rig.mark(["S01E07"])
        rig.account.marks[rig.ids["S01E02"]!] = nil
        rig.account.marks[rig.ids["S01E06"]!] = .init(markedAt: 0, type: 0)
        // Both sides changed S01E03 and S01E04: unmarked here now; marked there again, S01E03 watched after the unmark
        // (TVmaze's time), S01E04 before it.
        let unmarkedAt = rig.now
        try await rig.watched.history.mark(.episode(rig.ids["S01E03"]!), show: 1, watched: false, by: rig.profile)
        try await rig.watched.history.mark(.episode(rig.ids["S01E04"]!), show: 1, watched: false, by: rig.profile)
        rig.account.marks[rig.ids["S01E03"]!] = .init(markedAt: Int(unmarkedAt.timeIntervalSince1970) + 30, type: 0)
        rig.account.marks[rig.ids["S01E04"]!] = .init(markedAt: Int(unmarkedAt.timeIntervalSince1970) - 86_400, type: 0)

        let report = try await rig.syncOnce()
        #expect(report.unmarkedThere == 2 && report.unmarkedHere == 1 && report.markedHere == 2 && report.markedThere == 1, "\(report)")
        #expect(try await rig.here() == ["S01E03", "S01E06", "S01E07"])
        #expect(rig.there() == ["S01E03", "S01E06", "S01E07"])

        // A show unfollowed here is unfollowed there.
        try await rig.watched.series.tracker.unfollow(show: 1, by: rig.profile)
        #expect(try await rig.syncOnce().unfollowedThere == 1)
        #expect(rig.account.follows.isEmpty)
        #expect(try await rig.syncOnce() == TVMazeSync.Report())
        try await rig.watched.series.rig.close()
    }

    /// Without Premium TVmaze's /user calls answer 403: the marks of shows followed here are read by show, marks are
    /// sent by scrobbling, an unmark stays unmarked here and marked there (said so), follows are left alone.
    @Test func withoutPremiumMarksOfFollowedShowsAreSyncedByScrobbling() async throws {
        let rig = try await Rig(premium: 0)
        try await rig.sync.connect(.init(username: "sam", apiKey: "k3y"), profile: rig.profile)
        try await rig.watched.series.tracker.follow(show: 1, by: rig.profile)
        try await rig.mark(["S01E01", "S01E02"])
        rig.account.marks = [rig.ids["S01E05"]!: .init(markedAt: 1_373_500_000, type: 0)]
        var report = try await rig.syncOnce()
        #expect(report.markedHere == 1 && report.markedThere == 2, "\(report)")
        #expect(try await rig.here() == ["S01E01", "S01E02", "S01E05"] && rig.there() == ["S01E01", "S01E02", "S01E05"])

        try await rig.watched.history.mark(.episode(rig.ids["S01E02"]!), show: 1, watched: false, by: rig.profile)
        report = try await rig.syncOnce()
        #expect(report.keptThere == 1 && report.description.contains("needs Premium"), "\(report)")
        #expect(try await rig.here() == ["S01E01", "S01E05"] && rig.there() == ["S01E01", "S01E02", "S01E05"])
        // It stays so: the next sync does not mark it here again.
        #expect(try await rig.syncOnce().markedHere == 0)
        #expect(try await rig.here() == ["S01E01", "S01E05"])
        #expect(rig.server.requests.filter { $0.path.hasPrefix("/v1/user") }.isEmpty)
        #expect(try await rig.store.tvmazeAccount(of: rig.profile)?.premium == 0)
        try await rig.watched.series.rig.close()
    }

    @Test func aWrongKeyIsRefusedAndSaidSoAndForgettingTheAccountLeavesTheMarks() async throws {
        let rig = try await Rig()
        await #expect(throws: TVMazeError.unauthorized) {
            try await rig.sync.connect(.init(username: "sam", apiKey: "wrong"), profile: rig.profile)
        }
        #expect(try await rig.store.tvmazeAccount(of: rig.profile) == nil)
        #expect(try await rig.sync.sync(rig.profile) == nil)

        try await rig.sync.connect(.init(username: "sam", apiKey: "k3y"), profile: rig.profile)
        try await rig.mark(["S01E01"])
        _ = try await rig.syncOnce()
        // The key changed on TVmaze's dashboard: the sync fails, says why, and changes nothing.
        rig.account.configure(username: "sam", apiKey: "new", premium: 1)
        try await rig.mark(["S01E02"])
        await #expect(throws: TVMazeError.unauthorized) { try await rig.sync.sync(rig.profile) }
        let account = try #require(try await rig.store.tvmazeAccount(of: rig.profile))
        // Kept as the error's sentence, so each reader gets it in their language.
        #expect(account.succeeded == false && TVMazeSync.Report.outcome(account.outcome ?? "") == TVMazeError.unauthorized.sentence)
        #expect(TVMazeSync.Report.outcome(account.outcome ?? "").description.contains("API key"))
        #expect(rig.there() == ["S01E01"])

        try await rig.sync.disconnect(profile: rig.profile)
        #expect(try await rig.store.tvmazeAccount(of: rig.profile) == nil)
        #expect(try await rig.here() == ["S01E01", "S01E02"])
        try await rig.watched.series.rig.close()
    }

    /// TVmaze's numbers are held to their ranges: an id or a time out of range is dropped or "not known"; a number
    /// that is not an integer fails the sync, said so, and changes nothing.
    @Test func hostileNumbersFromTVmazeAreHeldToTheirRanges() async throws {
        let rig = try await Rig()
        try await rig.sync.connect(.init(username: "sam", apiKey: "k3y"), profile: rig.profile)
        let json = { (text: String) in ReplayServer.Answer(status: 200, headers: [("Content-Type", "application/json")], body: Array(text.utf8)) }
        rig.server.script("/v1/user/episodes", json("""
            [{"episode_id": 9223372036854775807, "marked_at": 1372200000, "type": 0},
             {"episode_id": -1, "marked_at": 1372200000, "type": 0},
             {"episode_id": \(rig.ids["S01E01"]!), "marked_at": 9223372036854775807, "type": 0},
             {"episode_id": \(rig.ids["S01E02"]!), "marked_at": -9223372036854775808, "type": 0},
             {"episode_id": \(rig.ids["S01E03"]!), "marked_at": 1372200000, "type": 2}]
            """))
        rig.server.script("/v1/auth/validate", json(#"{"premium": 9223372036854775807}"#))
        _ = try await rig.syncOnce()
        #expect(try await rig.here() == ["S01E01", "S01E02"])
        #expect(try await rig.store.watched(by: rig.profile, show: nil).allSatisfy { $0.watchedAt == nil })
        #expect(try await rig.store.tvmazeAccount(of: rig.profile)?.premium == 3)

        rig.server.script("/v1/user/episodes", json(#"[{"episode_id": 1e308, "marked_at": 0, "type": 0}]"#))
        await #expect(throws: TVMazeError.self) { try await rig.sync.sync(rig.profile) }
        let account = try #require(try await rig.store.tvmazeAccount(of: rig.profile))
        #expect(account.succeeded == false && TVMazeSync.Report.outcome(account.outcome ?? "").description.contains("could not be read"), "\(account)")
        try await rig.watched.series.rig.close()
    }
}
