import Foundation
import GuideCore
import SchedulesDirectReplay
import Testing

/// Schedules Direct from the command line, against the loopback stand-in (issue 28): sign in (the password on
/// standard input), find and list lineups, add a source of the account's lineup, refresh it into the guide; a second
/// refresh asks SD only for its status and the schedules' md5s.
@Suite struct SchedulesDirectCLITests {
    @Test func signInFindRefreshAndRefreshAgain() async throws {
        let standIn = try await SchedulesDirectStandIn(now: { Date() })
        standIn.schedulesStart(on: String(CivilTime.iso8601(Date().addingTimeInterval(-86_400)).prefix(10)))
        var cli = CLI()
        cli.environment["TVGUIDE_SCHEDULES_DIRECT_URL"] = standIn.base
        let notYet = try await cli.run("schedules-direct", "status")
        #expect(notYet.status != 0 && notYet.stderr.contains("not signed in to Schedules Direct"))
        let wrong = try await cli.run(arguments: ["schedules-direct", "login", "tvguide-test"], input: "wrong\n")
        #expect(wrong.status != 0 && wrong.stderr.contains("Schedules Direct 4003: the user name or password is wrong (it said: Invalid username or token has expired.)"), "\(wrong.stderr)")
        let login = try await cli.run(arguments: ["schedules-direct", "login", "tvguide-test"], input: "correct horse\n")
        #expect(login.status == 0 && login.stdout.contains("Signed in to Schedules Direct as tvguide-test"), "\(login.stderr)")
        let status = try await cli.run("schedules-direct")
        #expect(status.stdout.contains("online") && status.stdout.contains("USA-IL57303-X  Comcast Waukegan/Lake Forest Area - Digital"))
        let found = try await cli.run("schedules-direct", "find", "USA", "90210")
        #expect(found.stdout.contains("USA-CA00053-X  Time Warner Cable - Digital, Cable, Beverly Hills"), "\(found.stdout)")

        let added = try await cli.run("schedules-direct", "add", "USA-CA00053-X")
        #expect(added.stdout == "Added USA-CA00053-X; 5 changes left today.\n", "\(added.stdout) \(added.stderr)")
        let removed = try await cli.run("schedules-direct", "remove", "USA-CA00053-X")
        #expect(removed.stdout == "Removed USA-CA00053-X; 4 changes left today.\n")
        let notALineup = try await cli.run("sources", "add", "--format", "schedulesdirect", "Comcast", "http://example.com/guide.xml")
        #expect(notALineup.status != 0 && notALineup.stderr.contains("name 1 to 4 Schedules Direct lineups"))
        let tooOften = try await cli.run("sources", "add", "--format", "schedulesdirect", "--interval", "1", "Comcast", "USA-IL57303-X")
        #expect(tooOften.status != 0 && tooOften.stderr.contains("every 2 hours at most"))
        #expect(try await cli.run("sources", "add", "--format", "schedulesdirect", "Comcast", "USA-IL57303-X").status == 0)
        let refreshed = try await cli.run("refresh", "--json")
        let report = try #require((try refreshed.json() as? [[String: Any]])?.first)
        #expect(report["outcome"] as? String == "imported" && report["channels"] as? Int == 3, "\(refreshed.stdout) \(refreshed.stderr)")
        #expect((report["programmes"] as? Int ?? 0) > 3 * 20)
        let listings = try await cli.run("channels")
        #expect(listings.stdout.contains("WHP"), "\(listings.stdout)")

        let asked = standIn.requests.count
        let again = try await cli.run("refresh", "--json")
        #expect(again.status == 0, "\(again.stderr)")
        let calls = standIn.requests.dropFirst(asked).map { String($0.path.dropFirst(SchedulesDirectStandIn.root.count + 1)) }
        #expect(calls == ["status", "schedules/md5"])
        #expect(standIn.requests(to: "token").count == 2, "one for the wrong password, one for the right: never again")
        try await standIn.stop()
    }
}
