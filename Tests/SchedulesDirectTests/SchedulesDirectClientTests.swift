import Foundation
import GuideCore
import GuideHTTP
import GuideStore
@testable import SchedulesDirect
import SchedulesDirectReplay
import StoreTestSupport
import Synchronization
import Testing

/// The Schedules Direct client keeps SD's rules (issue 28; ../shared/data/schedulesdirect/API-NOTES.md) against a
/// loopback stand-in answering with SD's real recorded answers: one token, kept across restarts; SD's code read before
/// the HTTP status; one new token and one retry on 4006, never more; each code's stop kept without asking SD again.
@Suite struct SchedulesDirectClientTests {
    /// The time the stand-in and the client share, which a test moves.
    final class TestClock: Sendable {
        private let value = Mutex(Date(timeIntervalSince1970: 1_780_000_000))
        var now: Date { value.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    /// A client of the stand-in on a real store, with a clock the test moves.
    final class Setup: Sendable {
        let standIn: SchedulesDirectStandIn
        let store: any GuideDatabase
        let clock: TestClock

        init(standIn: SchedulesDirectStandIn, store: any GuideDatabase, clock: TestClock) {
            (self.standIn, self.store, self.clock) = (standIn, store, clock)
        }

        static func make() async throws -> Setup {
            let folder = TestScratch.folder("sd")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let clock = TestClock()
            return Setup(standIn: try await SchedulesDirectStandIn(now: { clock.now }), store: try await TestDatabase.open(in: folder),
                         clock: clock)
        }

        func client(password: String = "correct horse", imageCallLimit: Int = SchedulesDirectClient.imageCallsPerDay) -> SchedulesDirectClient {
            let clock = self.clock
            let now: @Sendable () -> Date = { clock.now }
            return SchedulesDirectClient(account: .init(username: "tvguide-test", password: password), transport: TestHTTP.transport,
                                         states: StoredSDState(cache: store, now: now), base: standIn.base, imageCallLimit: imageCallLimit, now: now)
        }

        func advance(_ seconds: TimeInterval) { clock.advance(seconds) }

        func stop() async throws { try await standIn.stop() }
    }

    @Test func passwordsAreSentAsLowercaseHexSHA1() {
        #expect(SchedulesDirectClient.Account.hash("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SchedulesDirectClient.Account(username: "u", passwordHash: "A9993E364706816ABA3E25717850C26C9CD0D89D").passwordHash
                == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test func oneTokenServesEveryCallAndOutlivesARestart() async throws {
        let setup = try await Setup.make()
        let client = setup.client()
        let status = try await client.status()
        #expect(status.isOnline && status.account?.maxLineups == 4)
        #expect(try await client.lineups().map(\.lineup).contains("USA-IL57303-X"))
        let map = try await client.lineupMap("USA-IL57303-X")
        #expect(map.map.prefix(3).map(\.number) == ["2", "3", "4"])
        #expect(map.stations?.first { $0.stationID == "11523" }?.callsign == "WHP")
        // A new client on the same store (serve restarted) keeps the token.
        _ = try await setup.client().status()
        #expect(setup.standIn.requests(to: "token").count == 1)
        for request in setup.standIn.requests where !request.path.hasSuffix("/token") {
            #expect(request.headers["token"] != nil && request.headers["authorization"] == nil, "\(request.path)")
        }
        #expect(setup.standIn.requests.allSatisfy { $0.headers["user-agent"] == "tvguide/\(TVGuideVersion.number)" })
        // SD asks for compressed answers (its 1002 DEFLATE_REQUIRED).
        #expect(setup.standIn.requests.allSatisfy { $0.headers["accept-encoding"] == "gzip, deflate" })
        // Nearly a day later the token is a minute from expiring: one new login, then that token again.
        setup.advance(86_400 - 30)
        _ = try await client.status()
        _ = try await client.status()
        #expect(setup.standIn.requests(to: "token").count == 2)
        try await setup.stop()
    }

    @Test func anExpiredTokenIsReplacedOnceAndTheCallRetriedOnce() async throws {
        let setup = try await Setup.make()
        let client = setup.client()
        _ = try await client.status()
        setup.standIn.expireToken()
        _ = try await client.status()
        #expect(setup.standIn.requests(to: "token").count == 2)
        #expect(setup.standIn.requests(to: "status").count == 3)
        // Expired again, and the login then answers that SD is offline: the call fails with SD's reason, nothing is
        // asked twice, and nothing more is asked for an hour.
        setup.standIn.expireToken()
        try setup.standIn.fail("token", with: "jellyfin/token_offline_response.json")
        await #expect { try await client.status() } throws: { ($0 as? SDFailure)?.code == .serviceOffline }
        #expect(setup.standIn.requests(to: "token").count == 3)
        #expect(setup.standIn.requests(to: "status").count == 4)
        let asked = setup.standIn.requests.count
        setup.advance(59 * 60)
        await #expect { try await client.lineups() } throws: { ($0 as? SDFailure)?.until != nil }
        #expect(setup.standIn.requests.count == asked, "nothing is asked while SD said it is offline")
        setup.advance(2 * 60)
        #expect(try await client.status().isOnline)
        try await setup.stop()
    }

    @Test func codesInASuccessfulAnswerAreFailures() async throws {
        let setup = try await Setup.make()
        let client = setup.client()
        // SD's offline answer as a 200 (its recording has no status): read by its code, not its status.
        try setup.standIn.fail("status", with: "jellyfin/token_offline_response.json", status: 200)
        await #expect { try await client.status() } throws: { error in
            guard let failure = error as? SDFailure else { return false }
            return failure.code == .serviceOffline && failure.status == 200 && failure.message == .verbatim("Server offline for maintenance.")
        }
        try await setup.stop()
    }

    @Test func aWrongPasswordStopsEveryCallUntilTheCredentialsChange() async throws {
        let setup = try await Setup.make()
        let wrong = setup.client(password: "wrong")
        await #expect { try await wrong.status() } throws: { ($0 as? SDFailure)?.code == .invalidUser }
        setup.advance(7 * 86_400)
        await #expect { try await wrong.lineups() } throws: { ($0 as? SDFailure)?.until == .distantFuture }
        #expect(setup.standIn.requests(to: "token").count == 1, "a wrong password is tried once, ever")
        #expect(setup.standIn.requests(to: "lineups").isEmpty)
        // The admin types the right password: new credentials, no lock.
        #expect(try await setup.client().status().isOnline)
        try await setup.stop()
    }

    @Test func noLineupsIsAnEmptyListAndLineupChangesAreCounted() async throws {
        let setup = try await Setup.make()
        let client = setup.client()
        var remaining: Int?
        for lineup in try await client.lineups().map(\.lineup) { remaining = try await client.removeLineup(lineup) }
        #expect(try await client.lineups().isEmpty)
        #expect(remaining == 1)
        #expect(try await client.addLineup("USA-IL57303-X") == 0)
        // A map of a lineup not on the account: SD's recorded 2101, as the error it is.
        await #expect { try await client.lineupMap("USA-NY67791-X") } throws: { ($0 as? SDFailure)?.code == .lineupNotFound }
        try await setup.stop()
    }

    @Test func schedulesAndProgrammesAreReadElementByElement() async throws {
        let setup = try await Setup.make()
        let client = setup.client()
        let hashes = try await client.scheduleHashes(["11523", "19610"])
        #expect(hashes["11523"]?.count == SchedulesDirectStandIn.daysKept && hashes["19610"] == nil)
        #expect(hashes["11523"]?["2016-08-04"]?.md5?.count == 22)
        let days = try await client.schedules([("11523", ["2016-08-04", "2016-08-05"]), ("10001", ["2016-08-04"]), ("11559", ["2030-01-01"])])
        #expect(days.count == 4)
        #expect(days.filter { $0.stationID == "11523" }.map { $0.metadata?.startDate } == ["2016-08-04", "2016-08-05"])
        #expect(days.first?.programs?.first?.programID == "EP003781390281" && days.first?.programs?.first?.duration == 3600)
        #expect(days.first?.programs?.first?.airDateTime == "2016-08-04T00:00:00Z")
        #expect(days.first { $0.stationID == "10001" }?.code == SDCode.stationDeleted.rawValue)
        #expect(days.first { $0.stationID == "11559" }?.code == SDCode.scheduleRangeExceeded.rawValue)
        let programs = try await client.programs(["EP012599310061", "EP000000000001"])
        let episode = try #require(programs.first { $0.programID == "EP012599310061" })
        #expect(episode.titles?.first?.title120 == "Hot in Cleveland" && episode.episodeTitle150 == "Blow Outs")
        #expect(episode.numbering?.season == 3 && episode.numbering?.episode == 24)
        #expect(episode.cast?.first?.characterName == "Melanie Moretti")
        #expect(programs.first { $0.programID == "EP000000000001" }?.code == SDCode.invalidProgram.rawValue)
        try await setup.stop()
    }

    @Test func noRequestNamesMoreThan5000Programmes() async throws {
        let setup = try await Setup.make()
        let ids = (0..<12_001).map { String(format: "EP%012d", $0) }
        let programs = try await setup.client().programs(ids)
        #expect(programs.count == 12_001)
        let sizes = setup.standIn.requests(to: "programs").map { ((try? JSONSerialization.jsonObject(with: $0.body)) as? [Any])?.count ?? 0 }
        #expect(sizes == [5_000, 5_000, 2_001])
        try await setup.stop()
    }

    /// Numbers SD sends are held to what they may mean: a token said to expire before it was issued (or in the
    /// year 292 billion) lasts 10 minutes to a day, so no answer turns every call into a login (SD's 4009).
    @Test func aTokensExpiryIsHeldToTenMinutesToADay() async throws {
        for (said, lasts) in [(Int64(-1), 600.0), (Int64.max, 86_400.0), (Int64.min, 600.0), (Int64(0), 600.0)] {
            let setup = try await Setup.make()
            setup.standIn.answerTokenExpires(said)
            let client = setup.client()
            _ = try await client.status()
            setup.advance(lasts - 61)
            _ = try await client.status()
            #expect(setup.standIn.requests(to: "token").count == 1, "tokenExpires \(said)")
            setup.advance(2)
            _ = try await client.status()
            #expect(setup.standIn.requests(to: "token").count == 2, "tokenExpires \(said)")
            try await setup.stop()
        }
    }

    /// SD's numbers in an airing or a programme, however absurd, never trap: an airing of no length or of more than
    /// 31 days is left out, and numbering past what XMLTV holds is written as SD gave it for the reader to refuse.
    @Test func absurdNumbersInAnswersAreBounded() throws {
        func airing(_ duration: String, part: String = "1") throws -> SDAiring {
            try JSONDecoder().decode(SDAiring.self, from: Data("""
                {"programID":"EP000000000001","airDateTime":"2026-05-28T00:00:00Z","duration":\(duration),"md5":"x",
                 "multipart":{"partNumber":\(part),"totalParts":9223372036854775807}}
                """.utf8))
        }
        for duration in ["9223372036854775807", "-1", "0", "2678401", "-9223372036854775808"] {
            #expect(SDMapping.programme(try airing(duration), nil, station: "1") == nil, "\(duration)")
        }
        #expect(SDMapping.programme(try airing("3600"), nil, station: "1")?.stop == Date(timeIntervalSince1970: 1_779_930_000))
        for number in ["1e308", "nan", "99999999999999999999"] {
            #expect(throws: (any Error).self) { try airing(number) }
        }
        let program = try JSONDecoder().decode(SDProgram.self, from: Data("""
            {"programID":"EP000000000001","titles":[{"title120":"T"}],"duration":9223372036854775807,
             "metadata":[{"Gracenote":{"season":9223372036854775807,"episode":-9223372036854775808,"totalEpisodes":-1}}]}
            """.utf8))
        let programme = try #require(SDMapping.programme(try airing("3600", part: "9223372036854775807"), program, station: "1"))
        #expect(programme.length == nil && programme.numbering == nil)
        #expect(programme.episodeNumbers.first?.value == "9223372036854775806..9223372036854775806/9223372036854775807")
    }
}
