import BoxesReplay
import Foundation
import GuideCore
import GuideHTTP
@testable import Recorders
import StoreTestSupport
import Testing

/// NextPVR as a recorder (``NextPVRRecorder``) against a stand-in answering its `/service` API in JSON: the PIN proven by
/// its salted MD5 (and never sent), channels read, a programme recorded by its guide event, a conflict with one tuner
/// as NextPVR marks it, a series as all episodes on the channel, cancelled; a wrong PIN and a refusal in a 200 told.
@Suite struct NextPVRRecorderTests {
    static let evening: Int64 = 1_771_185_600   // 2026-02-15 20:00 UTC

    static func standIn() async throws -> NextPVRStandIn {
        let standIn = try await NextPVRStandIn()
        standIn.setGuide(channels: [.init(id: 7001, name: "BBC One HD", number: 101), .init(id: 7002, name: "Channel 5", number: 105)],
                         listings: [.init(id: 9001, channel: 7001, name: "Doctor Who", start: evening, end: evening + 3600),
                                    .init(id: 9002, channel: 7001, name: "Doctor Who", start: evening + 7 * 86400, end: evening + 7 * 86400 + 3600),
                                    .init(id: 9003, channel: 7002, name: "Quiz", start: evening, end: evening + 1800)])
        return standIn
    }

    static func at(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    @Test func recordingsASeriesAConflictAndCancelling() async throws {
        let standIn = try await Self.standIn()
        defer { Task { try? await standIn.stop() } }
        let recorder = NextPVRRecorder(address: "http://127.0.0.1:\(standIn.port)", pin: "4321", transport: TestHTTP.transport)
        #expect(try await recorder.channels() == [RecorderChannel(id: "7001", name: "BBC One HD", number: "101"),
                                                  RecorderChannel(id: "7002", name: "Channel 5", number: "105")])
        #expect(!standIn.requests.contains { $0.query.contains("4321") }, "the PIN is never sent")

        let who = try await recorder.record(RecordingRequest(channel: "7001", title: "Doctor Who", start: Self.at(Self.evening + 120), stop: Self.at(Self.evening + 3600)))
        #expect(who.title == "Doctor Who" && who.start == Self.at(Self.evening) && who.stop == Self.at(Self.evening + 3600) && who.state == .scheduled)
        #expect(try await recorder.record(RecordingRequest(channel: "7001", title: "Doctor Who", start: Self.at(Self.evening), stop: Self.at(Self.evening + 3600))).id == who.id)
        let quiz = try await recorder.record(RecordingRequest(channel: "7002", title: "Quiz", start: Self.at(Self.evening), stop: Self.at(Self.evening + 1800)))
        #expect(quiz.state == .conflict && quiz.status == "Conflict")

        let series = try await recorder.recordSeries(RecordingRequest(channel: "7001", title: "Doctor Who", start: Self.at(Self.evening), stop: Self.at(Self.evening + 3600)))
        #expect(series.title == "Doctor Who" && series.channel == "7001")
        #expect(try await recorder.scheduled().filter { $0.title == "Doctor Who" }.count == 2)

        try await recorder.cancel(recording: quiz.id)
        #expect(try await recorder.scheduled().allSatisfy { $0.id != quiz.id })
        try await recorder.cancel(rule: series.id)
        #expect(try await recorder.rules().isEmpty)
        // A refusal arrives as "stat": "fail" in a 200.
        await #expect(throws: RecorderError(.refused, saying: "NextPVR refused {method}: {answer}", ["method": "recording.delete", "answer": "Invalid recording"])) { try await recorder.cancel(recording: "424242") }
        do {
            _ = try await recorder.record(RecordingRequest(channel: "7002", title: "Nothing", start: Self.at(Self.evening + 40000), stop: Self.at(Self.evening + 43600)))
            Issue.record("a programme NextPVR does not list was recorded")
        } catch let error as RecorderError {
            #expect(error.kind == .refused, "\(error)")
        }
    }

    @Test func aWrongPINIsRefused() async throws {
        let standIn = try await Self.standIn()
        defer { Task { try? await standIn.stop() } }
        let recorder = NextPVRRecorder(address: "http://127.0.0.1:\(standIn.port)", pin: "0000", transport: TestHTTP.transport)
        await #expect(throws: RecorderError(.refused, saying: "NextPVR refused the PIN")) { try await recorder.channels() }
    }
}
