import Foundation
import GuideCore
@testable import SchedulesDirect
import SchedulesDirectReplay
import Testing

/// Schedules Direct's artwork (issue 28: "images off unless chosen, never stored as SD addresses, fetched with the
/// token within SD's daily limits"), against the stand-in answering `metadata/programs/` with SD's recorded image
/// lists and `image/` with SD's redirect to another host, and with SD's recorded image errors.
@Suite struct SDArtworkTests {
    typealias Setup = SchedulesDirectClientTests.Setup
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
    /// What `metadata/programs/` offers for SH01966829 first: 16x9 title art 960 pixels wide.
    static let chosen = "assets/p10949089_b_h12_aa.jpg"

    @Test func oneSeriesIsAskedForAndItsImageFetchedWithTheTokenInTheAddress() async throws {
        let setup = try await Setup.make()
        let client = setup.client()
        let bytes = try #require(try await client.artwork(seriesID: "SH01966829"))
        #expect(Array(bytes.prefix(4)) == Self.png)
        let index = setup.standIn.requests(to: "metadata/programs/")
        #expect(index.count == 1)
        #expect((try JSONSerialization.jsonObject(with: try #require(index.first).body)) as? [String] == ["SH01966829"])
        let image = try #require(setup.standIn.requests(to: "image/" + Self.chosen).first)
        #expect(image.query.hasPrefix("token=") && image.headers["token"] == nil && image.headers["accept"] == "image/*")
        // SD's redirect to its image host: the token stays behind.
        let hosted = try #require(setup.standIn.imageHostRequests.first)
        #expect(hosted.path == "/schedulesdirect/" + Self.chosen && hosted.query.isEmpty && hosted.headers["token"] == nil)
        #expect(try await client.imageCallsToday() == (2, SchedulesDirectClient.imageCallsPerDay))
        // An id SD does not write is not asked about.
        #expect(try await client.artwork(seriesID: "../token") == nil)
        #expect(setup.standIn.requests(to: "metadata/programs/").count == 1)
        try await setup.stop()
    }

    @Test func anImageSDDoesNotHaveIsNeverAskedForAgain() async throws {
        let setup = try await Setup.make()
        setup.standIn.forgetImage(Self.chosen)
        let client = setup.client()
        #expect(try await client.artwork(seriesID: "SH01966829") == nil)
        // The next view takes the next best image; the one SD said it lacks is not asked again, after a restart too.
        let restarted = setup.client()
        #expect(try await restarted.artwork(seriesID: "SH01966829") != nil)
        #expect(setup.standIn.requests(to: "image/" + Self.chosen).count == 1)
        #expect(setup.standIn.requests(to: "image/assets/p10949089_b_h11_aa.jpg").count == 1)
        #expect(try await client.locksInForce().isEmpty)
        try await setup.stop()
    }

    @Test func sdsDailyLimitStopsEveryImageCallUntilMidnightUTC() async throws {
        let setup = try await Setup.make()
        setup.standIn.limitImages(to: 0)
        let client = setup.client()
        let failure = try await #require(throws: SDFailure.self) { try await client.artwork(seriesID: "SH01966829") }
        #expect(failure.code == .maxImageDownloads)
        let lock = try #require(try await client.locksInForce().first)
        #expect(lock.scope == .images && lock.lock.until == SchedulesDirectClient.nextMidnight(after: setup.clock.now))
        // Nothing more is asked for an image until then, by this client or after a restart; the listings still are.
        let asked = setup.standIn.requests.count
        await #expect(throws: SDFailure.self) { try await setup.client().artwork(seriesID: "SH01966829") }
        #expect(setup.standIn.requests.count == asked)
        _ = try await client.status()
        // SD's counter resets at 00:00 UTC.
        setup.standIn.limitImages(to: 10)
        setup.advance(SchedulesDirectClient.nextMidnight(after: setup.clock.now).timeIntervalSince(setup.clock.now) + 1)
        #expect(try await setup.client().artwork(seriesID: "SH01966829") != nil)
        try await setup.stop()
    }

    @Test func aLimitInsideAnHTTP200StopsImagesToo() async throws {
        // Jellyfin's recorded mid-batch answer: the second series' entry is 5003, in an HTTP 200.
        let setup = try await Setup.make()
        try setup.standIn.fail("metadata/programs/", with: "jellyfin/metadata_programs_image_limit_response.json")
        let client = setup.client()
        let failure = try await #require(throws: SDFailure.self) { try await client.artwork(seriesID: "SH00712241") }
        #expect(failure.code == .maxImageDownloadsTrial && failure.status == 200)
        #expect(try await client.locksInForce().map(\.scope) == [.images])
        #expect(setup.standIn.requests(to: "metadata/programs/").count == 1)
        #expect(setup.standIn.imagesServed == 0)
        try await setup.stop()
    }

    @Test func seriesSDHasNoImageForAreNoneWithoutALock() async throws {
        let setup = try await Setup.make()
        let client = setup.client()
        // SageTV's recorded 1013 (an object where the images would be), and SD's 5001 "queued" in the same form.
        try setup.standIn.fail("metadata/programs/", with: "sagetv/metadata_programs_error_1013_invalid_tms_id.json")
        #expect(try await client.artwork(seriesID: "SH02468914") == nil)
        #expect(try await client.locksInForce().isEmpty)
        #expect(setup.standIn.imagesServed == 0)
        try await setup.stop()
    }

    @Test func tvguidesOwnDailyShareHoldsWhateverViewersOpen() async throws {
        let setup = try await Setup.make()
        let client = setup.client(imageCallLimit: 3)
        #expect(try await client.artwork(seriesID: "SH01966829") != nil)
        let failure = try await #require(throws: SDFailure.self) { try await client.artwork(seriesID: "MV00015892") }
        #expect(failure.code == .maxImageDownloads && failure.message.description == "tvguide's own limit of 3 image calls a day is reached")
        // The lock keeps the sentence, not its English: the admin's page words it in their language.
        #expect(try await client.locksInForce().map(\.lock.sentence) == [failure.message])
        #expect(setup.standIn.requests(to: "metadata/programs/").count + setup.standIn.requests.filter { $0.path.contains("/image/") }.count == 3)
        #expect(try await client.locksInForce().first?.scope == .images)
        try await setup.stop()
    }

    @Test func anImageAnsweredInvalidUserGetsOneNewTokenOnce() async throws {
        let setup = try await Setup.make()
        let client = setup.client()
        // SD's recorded answer to an image asked with an old token; the client logs in again once and asks once more.
        try setup.standIn.fail("image/" + Self.chosen, with: "issue-captures/image_error_4003_INVALID_USER_expired_token_2023-12-29.json")
        #expect(try await client.artwork(seriesID: "SH01966829") != nil)
        #expect(setup.standIn.requests(to: "image/" + Self.chosen).count == 2)
        #expect(try await client.locksInForce().isEmpty)
        // Twice in a row: images stop until midnight; the account is not locked.
        try setup.standIn.fail("image/" + Self.chosen, with: "issue-captures/image_error_4003_INVALID_USER_expired_token_2023-12-29.json")
        try setup.standIn.fail("image/" + Self.chosen, with: "issue-captures/image_error_4003_INVALID_USER_expired_token_2023-12-29.json")
        await #expect(throws: SDFailure.self) { try await client.artwork(seriesID: "SH01966829") }
        #expect(try await client.locksInForce().map(\.scope) == [.images])
        _ = try await client.status()
        try await setup.stop()
    }

    @Test func theGuideNamesArtworkOnlyWhenChosenAndNeverBySDsAddress() async throws {
        let program = try JSONDecoder().decode(SDProgram.self, from: Data(#"{"programID":"EP012599310061","hasImageArtwork":true,"titles":[{"title120":"A"}]}"#.utf8))
        let airing = try JSONDecoder().decode(SDAiring.self, from: Data(#"{"programID":"EP012599310061","airDateTime":"2016-08-04T00:00:00Z","duration":1800,"md5":"x"}"#.utf8))
        #expect(SDMapping.programme(airing, program, station: "1")?.icons == [])
        let chosen = try #require(SDMapping.programme(airing, program, station: "1", artwork: true))
        #expect(chosen.icons == [Icon(src: "schedulesdirect-artwork:EP01259931")])
        #expect(ProgrammeArtwork.addressed(chosen.icons, at: { "https://guide.example/artwork?p=" + $0 }) == [Icon(src: "https://guide.example/artwork?p=EP01259931")])
        #expect(ProgrammeArtwork.addressed(chosen.icons, at: nil).isEmpty)
        for hostile in ["schedulesdirect-artwork:../../x", "schedulesdirect-artwork:EP0125993", "schedulesdirect-artwork:ep01259931x"] {
            #expect(ProgrammeArtwork.seriesID(of: Icon(src: hostile)) == nil, "\(hostile)")
        }
    }
}
