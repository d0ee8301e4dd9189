import Foundation
import GuideCore
import GuideStore
import StoreTestSupport
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
            #expect(upcoming.stdout == "Tue 25 Jun 2013 02:00  Under the Dome S01E01 Pilot  [CBS]\n")
            let json = try await #require(try cli.run("upcoming", "--json", "--at", "2013-06-24T20:00:00Z").json() as? [[String: Any]])
            #expect(json.first?["airs"] as? String == "2013-06-25T02:00:00Z" && json.first?["state"] as? String == "next")
            await #expect(try cli.run("upcoming").stdout == "ended  Under the Dome\n")

            let episode = try await cli.run("episode", "--tvmaze-url", url, "13", "S2E2")
            #expect(episode.status == 0 && episode.stdout.hasPrefix("The Flash S02E02 Flash of Two Worlds\n"))
            let missing = try await cli.run("episode", "--tvmaze-url", url, "13", "s100e100")
            #expect(missing.status != 0 && missing.stderr.contains("has no s100e100"))
            await #expect(try cli.run("episode", "13", "two").stderr.contains("not an episode number"))

            let person = try await cli.run("person", "--tvmaze-url", url, "1")
            #expect(person.stdout.hasPrefix("Mike Vogel, born 1979-07-17, United States\n  Under the Dome (2013) as Dale \"Barbie\" Barbara\n"))

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
