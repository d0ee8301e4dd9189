import BoxesReplay
import Foundation
import GuideCore
import GuideHTTP
@testable import Recorders
import StoreTestSupport
import Testing

/// Tvheadend as a recorder (``TvheadendRecorder``) against a stand-in answering as Tvheadend's JSON API documents
/// (BoxesReplay's TvheadendStandIn: Digest sign-in, channel, dvr, epg and idnode calls): channels and profiles read, a
/// programme recorded by its EPG event and, where the EPG has none, by time; a series by its series link and by its
/// title (an expression, escaped); state read back; cancelled; a refused password and a recorder that is off told
/// apart.
@Suite struct TvheadendRecorderTests {
    static let bbc = "SYNTHETICchannelbbcone0000000001", five = "SYNTHETICchannelfive000000000002"
    static let evening: Int64 = 1_771_185_600   // 2026-02-15 20:00 UTC

    static func standIn() async throws -> TvheadendStandIn {
        let standIn = try await TvheadendStandIn()
        standIn.setGuide(channels: [.init(uuid: bbc, name: "BBC One HD", number: 101), .init(uuid: five, name: "Channel 5", number: 105)],
                         events: [.init(id: 501, channel: bbc, title: "Doctor Who", start: evening, stop: evening + 3600, serieslink: "crid://bbc.co.uk/who"),
                                  .init(id: 502, channel: bbc, title: "Doctor Who", start: evening + 7 * 86400, stop: evening + 7 * 86400 + 3600,
                                        serieslink: "crid://bbc.co.uk/who"),
                                  .init(id: 503, channel: bbc, title: "News at Ten", start: evening + 7200, stop: evening + 9000),
                                  .init(id: 504, channel: five, title: "Who? (1963)", start: evening, stop: evening + 5400),
                                  .init(id: 505, channel: five, title: "Who? (1963)", start: evening + 86400, stop: evening + 86400 + 5400),
                                  .init(id: 506, channel: five, title: "Who 1963", start: evening + 2 * 86400, stop: evening + 2 * 86400 + 5400)])
        return standIn
    }

    static func recorder(_ standIn: TvheadendStandIn, password: String = "hunter2 & more") -> TvheadendRecorder {
        TvheadendRecorder(address: "http://127.0.0.1:\(standIn.port)", credentials: HTTPCredentials(username: "tvguide", password: password),
                          transport: TestHTTP.transport)
    }

    static func at(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    @Test func channelsProfilesAndARecordingByItsEvent() async throws {
        let standIn = try await Self.standIn()
        defer { Task { try? await standIn.stop() } }
        let recorder = Self.recorder(standIn)
        #expect(try await recorder.channels() == [RecorderChannel(id: Self.bbc, name: "BBC One HD", number: "101"),
                                                  RecorderChannel(id: Self.five, name: "Channel 5", number: "105")])
        #expect(try await recorder.profiles().map(\.name) == ["(default profile)", "Keep for a week"])

        // tvguide's programme starts two minutes off the EPG's: still its event.
        let recording = try await recorder.record(RecordingRequest(channel: Self.bbc, title: "Doctor Who", start: Self.at(Self.evening + 120),
                                                                   stop: Self.at(Self.evening + 3600)))
        #expect(recording.title == "Doctor Who" && recording.start == Self.at(Self.evening) && recording.state == .scheduled)
        #expect(recording.status == "Scheduled for recording" && recording.rule == nil)
        #expect(standIn.requests.contains { $0.path == "/api/dvr/entry/create_by_event" && String(decoding: $0.body, as: UTF8.self).contains("event_id=501") })
        // Recording it again is the same recording.
        #expect(try await recorder.record(RecordingRequest(channel: Self.bbc, title: "Doctor Who", start: Self.at(Self.evening),
                                                           stop: Self.at(Self.evening + 3600))).id == recording.id)

        // Not in Tvheadend's EPG: a timed recording on the channel, with tvguide's title.
        let timed = try await recorder.record(RecordingRequest(channel: Self.five, title: "Late Film", subtitle: "1979", start: Self.at(Self.evening + 20000),
                                                               stop: Self.at(Self.evening + 27200), profile: "SYNTHETICweekprofile000000000002"))
        #expect(timed.title == "Late Film" && timed.channel == Self.five && timed.stop == Self.at(Self.evening + 27200))
        #expect(try await recorder.scheduled().count == 2)

        try await recorder.cancel(recording: timed.id)
        #expect(try await recorder.scheduled().map(\.id) == [recording.id])
        // Signed in with Digest, answering the stand-in's challenges (it answers nothing else).
        #expect(standIn.requests.contains { $0.headers["authorization"]?.hasPrefix("Digest ") == true })
    }

    @Test func seriesByLinkAndByExactTitle() async throws {
        let standIn = try await Self.standIn()
        defer { Task { try? await standIn.stop() } }
        let recorder = Self.recorder(standIn)
        // A series link: every airing of the series.
        let who = try await recorder.recordSeries(RecordingRequest(channel: Self.bbc, title: "Doctor Who", start: Self.at(Self.evening),
                                                                   stop: Self.at(Self.evening + 3600)))
        #expect(who.title == "Doctor Who" && who.channel == Self.bbc)
        #expect(try await recorder.scheduled().filter { $0.rule == who.id }.map(\.start) == [Self.at(Self.evening), Self.at(Self.evening + 7 * 86400)])
        // No link: the exact title on that channel, its ? and ( ) escaped, so "Who 1963" is not taken.
        let film = try await recorder.recordSeries(RecordingRequest(channel: Self.five, title: "Who? (1963)", start: Self.at(Self.evening),
                                                                    stop: Self.at(Self.evening + 5400)))
        #expect(film.title == "Who? (1963)")
        #expect(try await recorder.scheduled().filter { $0.rule == film.id }.count == 2)
        #expect(try await recorder.rules().count == 2)
        // Removing a rule removes what it scheduled.
        try await recorder.cancel(rule: who.id)
        #expect(try await recorder.rules().map(\.id) == [film.id])
        #expect(try await recorder.scheduled().allSatisfy { $0.rule == film.id })
    }

    @Test func refusedAndUnreachableAreToldApart() async throws {
        let standIn = try await Self.standIn()
        defer { Task { try? await standIn.stop() } }
        let wrong = Self.recorder(standIn, password: "wrong")
        await #expect(throws: RecorderError(.refused, saying: "{recorder} refused the user name, password or key", ["recorder": "Tvheadend"])) { try await wrong.channels() }
        let recorder = Self.recorder(standIn)
        do {
            _ = try await recorder.record(RecordingRequest(channel: "SYNTHETICnosuchchannel", title: "X", start: Self.at(Self.evening), stop: Self.at(Self.evening + 60)))
            Issue.record("an unknown channel was recorded")
        } catch let error as RecorderError {
            #expect(error.kind == .refused && error.description.contains("Invalid configuration"), "\(error)")
        }
        // Nothing listens on the discard port here: a recorder that is off.
        let off = TvheadendRecorder(address: "http://127.0.0.1:9", credentials: nil, transport: TestHTTP.transport)
        do {
            _ = try await off.scheduled()
            Issue.record("a recorder that is off answered")
        } catch let error as RecorderError {
            #expect(error.kind == .unreachable, "\(error)")
        }
    }

    @Test func hostileTimesFromARecorderAreBoundedNotOverflowed() {
        for value: Int64? in [nil, -1, Int64.min, Int64.max, 9_223_372_036_854_775_807, 1_771_185_600_000] {
            let seconds = NextPVRRecorder.seconds(value)
            #expect(RecorderTime.seconds.contains(seconds), "\(String(describing: value))")
            #expect(RecorderTime.seconds.contains(RecorderTime.seconds(value)))
            // The sums and differences the clients make cannot overflow.
            _ = abs(seconds - Int64(Date().timeIntervalSince1970)) + RecorderTime.length(value)
        }
        #expect(NextPVRRecorder.seconds(1_771_185_600_000) == 1_771_185_600)
        #expect(RecorderTime.length(Int64.max) == 7 * 86_400 && RecorderTime.length(-1) == 0)
    }

    @Test func titlesAreEscapedAsExpressionsAndReadBack() {
        for title in ["Who? (1963)", "Law & Order: SVU", "$100,000 Pyramid", "C++ [live] {x} a|b ^start end$ back\\slash", "Ünïcödé *"] {
            let pattern = "^" + TvheadendRecorder.escapedPattern(title) + "$"
            #expect(TvheadendRecorder.plainTitle(pattern) == title, "\(title)")
            let expression = try? NSRegularExpression(pattern: pattern)
            #expect(expression?.firstMatch(in: title, range: NSRange(title.startIndex..., in: title)) != nil, "\(title)")
        }
    }
}
