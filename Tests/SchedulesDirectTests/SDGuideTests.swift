import Foundation
import GuideCore
import GuideIngest
import GuideStore
import SchedulesDirect
import SchedulesDirectReplay
import StoreTestSupport
import TestReceivers
import Testing

/// A Schedules Direct refresh keeps SD's caching contract (issue 28): the first asks for everything once; a second
/// with nothing changed asks only the status and the md5s; a changed day fetches that day and the programme whose md5
/// changed, nothing else; an error stops the refresh with SD's reason, asks nothing more, and the guide keeps what it
/// had. What it writes is the ordinary XMLTV import's: titles, episodes, credits, numbers.
@Suite struct SDGuideTests {
    static let lineup = "USA-IL57303-X"

    /// The requests the stand-in received, by call, since `from`.
    static func calls(_ setup: SchedulesDirectClientTests.Setup, since from: Int) -> [String: Int] {
        setup.standIn.requests.dropFirst(from).reduce(into: [:]) { counts, request in
            counts[String(request.path.dropFirst(SchedulesDirectStandIn.root.count + 1)), default: 0] += 1
        }
    }

    /// A stand-in whose schedules start yesterday, a refresh of it, and the file it writes.
    static func refreshing() async throws -> (SchedulesDirectClientTests.Setup, SDGuide, URL) {
        let setup = try await SchedulesDirectClientTests.Setup.make()
        setup.standIn.schedulesStart(on: String(CivilTime.iso8601(setup.clock.now.addingTimeInterval(-86_400)).prefix(10)))
        let guide = SDGuide(client: setup.client(), store: setup.store, now: { setup.clock.now })
        return (setup, guide, FileManager.default.temporaryDirectory.appendingPathComponent("sd-\(UUID().uuidString).xml"))
    }

    @Test func onlyWhatChangedIsAskedFor() async throws {
        let (setup, guide, file) = try await Self.refreshing()
        let today = setup.clock.now
        defer { try? FileManager.default.removeItem(at: file) }

        let first = try await guide.refresh(lineups: [Self.lineup], days: 14, into: file)
        #expect(Self.calls(setup, since: 0) == ["token": 1, "status": 1, "lineups/\(Self.lineup)": 1, "schedules/md5": 1, "schedules": 1, "programs": 1])
        #expect(first.stations == 3 && first.lineupsFetched == 1 && first.daysFetched == 3 * 15 && first.daysUnchanged == 0)
        #expect(first.programmesFetched == 28 && first.programmesMissing == 0)
        // What it wrote is valid XMLTV (the XMLTV project's validator), and read by the ordinary import.
        if XMLTVValidator.isAvailable {
            let complaints = try await XMLTVValidator.complaints(about: Data(contentsOf: file))
            #expect(complaints.isEmpty, "\(complaints)")
        }
        let summary = try await ListingImporter(store: setup.store).importFile(at: file.path, as: SourceName("Schedules Direct"))
        #expect(summary.channels == 3 && summary.programmes == first.airings && first.airings > 3 * 14 * 20)
        let episode = try #require(try await setup.store.everyProgramme().first { $0.programme.title == "Hot in Cleveland" }?.programme)
        #expect(episode.subTitle == "Blow Outs" && episode.numbering?.season == 3 && episode.numbering?.episode == 24)
        #expect(episode.onScreenNumber == "S3E24")
        #expect(episode.credits.contains { $0.name == "Betty White" && $0.character == "Elka Ostrovsky" && $0.role == .actor })
        // A guest star playing a character, as xmltv.dtd has it: an actor marked as a guest.
        #expect(episode.credits.contains { $0.name == "David Spade" && $0.role == .actor && $0.isGuest && $0.character == "Christopher" })
        let channels = try await setup.store.channels()
        #expect(channels.first { $0.id == ChannelID("I11523.json.schedulesdirect.org") }?.name == "WHP")
        #expect(channels.allSatisfy { !$0.icons.contains { $0.src.contains("token") } })

        // A programme no refresh has used for 10 days is forgotten; what this one used stays.
        try await setup.store.storeSDDocuments([SDDocument(key: "program/EP000000000009", version: "x", body: Data("{}".utf8))],
                                               at: today.addingTimeInterval(-SDGuide.keptUnused - 60))
        // Nothing changed: the status and the md5s, nothing else (the token is kept).
        let asked = setup.standIn.requests.count
        let second = try await guide.refresh(lineups: [Self.lineup], days: 14, into: file)
        #expect(Self.calls(setup, since: asked) == ["status": 1, "schedules/md5": 1])
        #expect(second.daysUnchanged == 45 && second.daysFetched == 0 && second.programmesFetched == 0 && second.programmesKept == 28)
        #expect(second.airings == first.airings && second.forgotten == 1)
        #expect(try await setup.store.sdVersions(under: "program/").count == 28)
        #expect(second.fingerprint == first.fingerprint && second.isWritten)
        // Given the fingerprint of the guide last imported, nothing is written: there is nothing new to import.
        try FileManager.default.removeItem(at: file)
        let same = try await guide.refresh(lineups: [Self.lineup], days: 14, into: file, unchanged: first.fingerprint)
        #expect(!same.isWritten && same.fingerprint == first.fingerprint && !FileManager.default.fileExists(atPath: file.path))
        // Choosing artwork, or another number of days, is another guide.
        #expect(try await guide.refresh(lineups: [Self.lineup], days: 14, artwork: true, into: file, unchanged: first.fingerprint).isWritten)
        #expect(try await guide.refresh(lineups: [Self.lineup], days: 7, into: file, unchanged: first.fingerprint).isWritten)

        // One day changed: that day, and the one programme whose md5 changed.
        let date = String(CivilTime.iso8601(today).prefix(10))
        setup.standIn.change(station: "11559", date: date)
        let before = setup.standIn.requests.count
        let third = try await guide.refresh(lineups: [Self.lineup], days: 14, into: file)
        #expect(Self.calls(setup, since: before) == ["status": 1, "schedules/md5": 1, "schedules": 1, "programs": 1])
        let days = try #require(setup.standIn.requests(to: "schedules").last?.body)
        #expect(String(decoding: days, as: UTF8.self) == #"[{"date":["\#(date)"],"stationID":"11559"}]"#
                || String(decoding: days, as: UTF8.self) == #"[{"stationID":"11559","date":["\#(date)"]}]"#)
        let programs = try #require(setup.standIn.requests(to: "programs").last?.body)
        #expect(String(decoding: programs, as: UTF8.self) == #"["EP003781390281"]"#)
        #expect(third.daysFetched == 1 && third.daysUnchanged == 44 && third.programmesFetched == 1)
        #expect(third.fingerprint != first.fingerprint && third.isWritten)
        try await setup.stop()
    }

    @Test func anErrorStopsTheRefreshAndTheGuideKeepsWhatItHad() async throws {
        let (setup, guide, file) = try await Self.refreshing()
        let today = setup.clock.now
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await guide.refresh(lineups: [Self.lineup], days: 7, into: file)
        let kept = try await setup.store.sdVersions(under: "schedule/")
        setup.standIn.change(station: "11523", date: String(CivilTime.iso8601(today).prefix(10)))
        // SD is busy when the changed day is asked for: the refresh fails with SD's words and asks nothing more.
        try setup.standIn.fail("schedules", with: "jellyfin/token_offline_response.json")
        let before = setup.standIn.requests.count
        await #expect { _ = try await guide.refresh(lineups: [Self.lineup], days: 7, into: file) } throws: { error in
            (error as? SDFailure)?.code == .serviceOffline && "\(error)".contains("Server offline for maintenance.")
        }
        #expect(Self.calls(setup, since: before) == ["status": 1, "schedules/md5": 1, "schedules": 1])
        #expect(try await setup.store.sdVersions(under: "schedule/") == kept)
        // Within the hour SD asked for, a refresh asks nothing at all.
        setup.advance(30 * 60)
        let after = setup.standIn.requests.count
        await #expect { _ = try await guide.refresh(lineups: [Self.lineup], days: 7, into: file) } throws: { ($0 as? SDFailure)?.until != nil }
        #expect(setup.standIn.requests.count == after)
        try await setup.stop()
    }

    @Test func aLineupNotOnTheAccountIsAnError() async throws {
        let setup = try await SchedulesDirectClientTests.Setup.make()
        let guide = SDGuide(client: setup.client(), store: setup.store, now: { setup.clock.now })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sd-\(UUID().uuidString).xml")
        await #expect { _ = try await guide.refresh(lineups: ["USA-NONE-X"], days: 7, into: file) } throws: {
            ($0 as? SDFailure)?.code == .lineupNotFound
        }
        #expect(setup.standIn.requests(to: "schedules/md5").isEmpty)
        try await setup.stop()
    }

    /// A lineup map's entry as Schedules Direct's antenna maps write them (API-NOTES.md: `{stationID, uhfVhf, atscMajor,
    /// atscMinor}`, and some with `uhfVhf` alone): the number a viewer dials, within a channel's range.
    @Test func antennaStationsGetTheirChannelNumber() throws {
        func number(_ json: String) throws -> String? {
            try JSONDecoder().decode(SDLineupMap.Entry.self, from: Data(json.utf8)).number
        }
        #expect(try number(#"{"stationID": "20454", "uhfVhf": 27, "atscMajor": 4, "atscMinor": 1}"#) == "4.1")
        #expect(try number(#"{"stationID": "20454", "uhfVhf": 27}"#) == "27")
        #expect(try number(#"{"stationID": "20454", "channel": "004"}"#) == "4")
        // Out of range: not a channel number (the next that is, else none).
        #expect(try number(#"{"stationID": "20454", "uhfVhf": 27, "atscMajor": 0, "atscMinor": 1}"#) == "27")
        #expect(try number(#"{"stationID": "20454", "uhfVhf": 9223372036854775807}"#) == nil)
        #expect(try number(#"{"stationID": "20454", "uhfVhf": -1, "logicalChannelNumber": "0101"}"#) == "101")
    }
}
