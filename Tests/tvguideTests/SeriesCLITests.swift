import Foundation
import GuideCore
import GuideStore
import StoreTestSupport
import TestReceivers
import Testing
import TVMazeReplay

/// The series commands against the TVmaze replay server, as a user runs them.
@Suite struct SeriesCLITests {
    @Test func searchFollowUpcomingEpisodePersonUnfollow() async throws {
        let replay = try await ReplayServer()
        let cli = CLI()
        let url = replay.base
        do {
            await #expect(try cli.run("follow", "--tvmaze-url", url, "1").stderr.contains("No profiles yet"))
            _ = try await TestDatabase.open(cli.database).createProfile(name: "Sam", role: .admin, secretKind: .pin, secretHash: "x")

            let search = try await cli.run("shows", "search", "--tvmaze-url", url, "girls")
            #expect(search.status == 0 && search.stdout.hasPrefix("139\tGirls (2012, HBO, Ended)\n"))
            let follow = try await cli.run("follow", "--tvmaze-url", url, "under", "the", "dome")
            #expect(follow.status == 0 && follow.stdout == "Sam follows Under the Dome (TVmaze 1, CBS).\n")

            let upcoming = try await cli.run("upcoming", "--at", "2013-06-24T20:00:00Z")
            #expect(upcoming.stdout == "Tue 25 Jun 2013, 02:00  Under the Dome S01E01 Pilot  [CBS]\n")
            let json = try await #require(try cli.run("upcoming", "--json", "--at", "2013-06-24T20:00:00Z").json() as? [[String: Any]])
            #expect(json.first?["airs"] as? String == "2013-06-25T02:00:00Z" && json.first?["state"] as? String == "next")
            await #expect(try cli.run("upcoming").stdout == "ended  Under the Dome\n")

            let episode = try await cli.run("episode", "--tvmaze-url", url, "13", "S2E2")
            #expect(episode.status == 0 && episode.stdout.hasPrefix("The Flash S02E02 Flash of Two Worlds\n"))
            let missing = try await cli.run("episode", "--tvmaze-url", url, "13", "s100e100")
            #expect(missing.status != 0 && missing.stderr.contains("has no s100e100"))
            await #expect(try cli.run("episode", "13", "two").stderr.contains("not an episode number"))

            let person = try await cli.run("person", "--tvmaze-url", url, "1")
            #expect(person.stdout.hasPrefix("Mike Vogel, born Tue 17 Jul 1979, United States\n  Under the Dome (2013) as Dale \"Barbie\" Barbara\n"))

            await #expect(try cli.run("unfollow", "nothing").stderr.contains("does not follow nothing"))
            await #expect(try cli.run("unfollow", "Under the dome").stdout == "Sam no longer follows Under the Dome.\n")
            await #expect(try cli.run("upcoming").stdout.contains("follows no shows yet"))
        } catch {
            try await replay.stop()
            throw error
        }
        try await replay.stop()
    }
}

/// `tvguide watched` and `tvguide progress` against the replay server's Under the Dome (all 39 episodes aired).
@Suite struct WatchedCLITests {
    @Test func markThenProgress() async throws {
        let replay = try await ReplayServer()
        let cli = CLI()
        let url = replay.base
        do {
            _ = try await TestDatabase.open(cli.database).createProfile(name: "Sam", role: .admin, secretKind: .pin, secretHash: "x")
            _ = try await cli.run("follow", "--tvmaze-url", url, "1")
            let one = try await cli.run("watched", "--tvmaze-url", url, "under", "the", "dome", "S01E01", "--at", "2013-06-25T03:00:00Z")
            #expect(one.status == 0 && one.stdout == "Sam: 1 episode of Under the Dome marked watched; 1 of 39 aired episodes watched, up next S01E02.\n", "\(one.stderr)")
            let upTo = try await cli.run("watched", "--tvmaze-url", url, "1", "--up-to", "1x5")
            #expect(upTo.stdout == "Sam: 4 episodes of Under the Dome marked watched; 5 of 39 aired episodes watched, up next S01E06.\n")
            await #expect(try cli.run("watched", "--tvmaze-url", url, "1", "--season", "1", "--not").stdout
                          == "Sam: 5 episodes of Under the Dome marked not watched; 0 of 39 aired episodes watched, up next S01E01.\n")
            await #expect(try cli.run("watched", "--tvmaze-url", url, "1", "--all").stdout.contains("39 episodes of Under the Dome marked watched"))
            let progress = try await cli.run("progress")
            #expect(progress.stdout == "Under the Dome\t39/39\tup to date\n")
            let json = try await #require(try cli.run("progress", "--json").json() as? [[String: Any]])
            #expect(json.first?["aired"] as? Int == 39 && json.first?["watched"] as? Int == 39)
            // Mistakes say what to write.
            await #expect(try cli.run("watched", "1").stderr.contains("Name one of"))
            await #expect(try cli.run("watched", "1", "S01E01", "--all").stderr.contains("Name one of"))
            await #expect(try cli.run("watched", "1", "--up-to", "five").stderr.contains("not an episode"))
            await #expect(try cli.run("watched", "1", "--all", "--at", "yesterday").stderr.contains("not a time"))
            await #expect(try cli.run("watched", "--tvmaze-url", url, "1", "S09E01").stderr.contains("has no S09E01"))

            // A history in: previewed (nothing changes), imported, imported again (nothing changes); then exported.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString).csv")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data("show,tvdb,season,episode,watched_at\nUnder the Dome,264492,2,1,2014-07-01 03:00:00\nNobody Knows This,999999999,1,1,\n".utf8).write(to: file)
            let preview = try await cli.run("history", "import", "--tvmaze-url", url, "--preview", file.path)
            #expect(preview.stdout.contains("Under the Dome → Under the Dome (TVmaze 1, by TVDB 264492): 1 episode"), "\(preview.stdout)\(preview.stderr)")
            #expect(preview.stdout.contains("Nobody Knows This: not found on TVmaze") && preview.stdout.contains("Preview: nothing changed."))
            // S02E01 was marked today (--all): the file's earlier time is taken; a second import changes nothing.
            let imported = try await cli.run("history", "import", "--tvmaze-url", url, file.path)
            #expect(imported.stdout.hasSuffix("Sam: 1 episode marked watched, 0 shows followed.\n"))
            await #expect(try cli.run("history", "import", "--tvmaze-url", url, file.path).stdout.hasSuffix("Sam: 0 episodes marked watched, 0 shows followed.\n"))
            await #expect(try cli.run("watched", "--tvmaze-url", url, "1", "--all", "--not").status == 0)
            await #expect(try cli.run("history", "import", "--tvmaze-url", url, file.path).stdout.hasSuffix("Sam: 1 episode marked watched, 0 shows followed.\n"))
            let csv = try await cli.run("history", "export", "--format", "csv")
            #expect(csv.stdout == "show,tvmaze,followed,season,episode,watched_at,plays\r\nUnder the Dome,1,true,2,1,2014-07-01T03:00:00Z,1\r\n")
            let exported = try await #require(try cli.run("history", "export").json() as? [String: Any])
            #expect((exported["shows"] as? [[String: Any]])?.first?["name"] as? String == "Under the Dome")
            await #expect(try cli.run("history", "import", "/nonexistent.csv").stderr.contains("cannot read"))
            await #expect(try cli.run("history", "import", "--choose", "nothing", file.path).stderr.contains("--choose nothing"))
        } catch {
            try await replay.stop()
            throw error
        }
        try await replay.stop()
    }

    /// Trakt's real export, zipped as Trakt sends it, through `tvguide history import`: what it read is what an
    /// independent count of the files reads (count_history.py), and what TVmaze found is marked once.
    @Test func aTrackersZipAsItCame() async throws {
        let replay = try await ReplayServer()
        let cli = CLI()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("trakt-export-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: file) }  // Test scratch file.
        do {
            try Data(try await TrackerSamples.zip("trakt/export-2026")).write(to: file)
            let expected = try #require(try await TrackerSamples.counts()["trakt-zip"])
            _ = try await TestDatabase.open(cli.database).createProfile(name: "Sam", role: .admin, secretKind: .pin, secretHash: "x")
            // The replay knows none of its shows by their ids or titles: Friends is named by hand (as Under the Dome).
            let choose = ["--choose", "Friends=1"]
            let preview = try await cli.run(arguments: ["history", "import", "--tvmaze-url", replay.base, "--preview"] + choose + [file.path])
            #expect(preview.stdout.hasPrefix("Trakt export: \(expected.shows) shows, \(expected.episodes) watched episodes.\n"), "\(preview.stdout)\(preview.stderr)")
            let found = preview.stdout.matches(of: /→ .*: (\d+) episodes?/).reduce(0) { $0 + Int($1.output.1)! }
            #expect(found > 0 && preview.stdout.contains("Friends → Under the Dome (TVmaze 1, by chosen)"), "\(preview.stdout)")
            let imported = try await cli.run(arguments: ["history", "import", "--tvmaze-url", replay.base] + choose + [file.path])
            #expect(imported.stdout.contains("Sam: \(found) episode\(found == 1 ? "" : "s") marked watched"), "\(imported.stdout)")
            let again = try await cli.run(arguments: ["history", "import", "--tvmaze-url", replay.base] + choose + [file.path])
            #expect(again.stdout.contains("Sam: 0 episodes marked watched"))
        } catch {
            try await replay.stop()
            throw error
        }
        try await replay.stop()
    }

    /// `tvguide tvmaze connect|sync|status|disconnect` against the replay server's account stand-in.
    @Test func tvmazeAccountConnectSyncStatusDisconnect() async throws {
        let replay = try await ReplayServer()
        replay.account.configure(username: "sam", apiKey: "k3y", premium: 1)
        replay.account.marks = [1: .init(markedAt: 1_372_200_000, type: 0)]
        let cli = CLI()
        let url = replay.base
        do {
            _ = try await TestDatabase.open(cli.database).createProfile(name: "Sam", role: .admin, secretKind: .pin, secretHash: "x")
            await #expect(try cli.run("tvmaze", "status").stdout == "Sam: no TVmaze account.\n")
            let wrong = try await cli.run(arguments: ["tvmaze", "connect", "--tvmaze-url", url, "--user", "sam"], input: "nope\n")
            #expect(wrong.status != 0 && wrong.stderr.contains("refused the username and API key"), "\(wrong.stderr)")
            let connected = try await cli.run(arguments: ["tvmaze", "connect", "--tvmaze-url", url, "--user", "sam"], input: "k3y\n")
            #expect(connected.status == 0 && connected.stdout.contains("TVmaze account sam kept (Premium)"), "\(connected.stderr)")
            _ = try await cli.run("watched", "--tvmaze-url", url, "1", "S01E02", "--at", "2013-07-02T03:00:00Z")
            let synced = try await cli.run("tvmaze", "sync", "--tvmaze-url", url)
            #expect(synced.stdout == "Sam: 1 marked here, 1 marked on TVmaze.\n", "\(synced.stdout)\(synced.stderr)")
            #expect(Set(replay.account.marks.keys) == [1, 2])
            let status = try await cli.run("tvmaze", "status")
            #expect(status.stdout.hasPrefix("Sam: TVmaze account sam (Premium), last synced ") && status.stdout.contains("1 marked here"), "\(status.stdout)")
            await #expect(try cli.run("tvmaze", "disconnect").stdout == "Sam: TVmaze account forgotten.\n")
            await #expect(try cli.run("tvmaze", "sync", "--tvmaze-url", url).stderr.contains("has no TVmaze account"))
        } catch {
            try await replay.stop()
            throw error
        }
        try await replay.stop()
    }
}
