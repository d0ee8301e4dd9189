import BoxesReplay
import Foundation
import GuideCore
import GuideHTTP
@testable import Recorders
import StoreTestSupport
import Testing

/// Jellyfin (and Emby) as a recorder (``JellyfinRecorder``) against a stand-in answering as its Live TV API documents:
/// channels read; a programme recorded through its own guide, with the timer defaults sent back; a second one at the
/// same time with one tuner is a conflict, as Jellyfin says; a series timer scheduling every airing; cancelled; a
/// programme its guide lacks refused with that said; a wrong key refused; Emby's header.
@Suite struct JellyfinRecorderTests {
    static let one = "SYNTHETIC0000000000000000channel1", two = "SYNTHETIC0000000000000000channel2"
    static let evening = Date(timeIntervalSince1970: 1_771_185_600)   // 2026-02-15 20:00 UTC

    static func standIn() async throws -> JellyfinLiveTvStandIn {
        let standIn = try await JellyfinLiveTvStandIn()
        let hour: TimeInterval = 3600
        standIn.setGuide(channels: [.init(id: one, name: "BBC One HD", number: "101"), .init(id: two, name: "Channel 5", number: "105")],
                         programs: [.init(id: "SYNTHETICprogram01", channel: one, name: "Doctor Who", start: evening, end: evening + hour),
                                    .init(id: "SYNTHETICprogram02", channel: one, name: "Doctor Who", start: evening + 7 * 86400, end: evening + 7 * 86400 + hour),
                                    .init(id: "SYNTHETICprogram03", channel: two, name: "Quiz", start: evening, end: evening + hour / 2),
                                    .init(id: "SYNTHETICprogram04", channel: two, name: "Film", start: evening + hour, end: evening + 3 * hour)])
        return standIn
    }

    @Test func aTimerThroughItsOwnGuideAConflictASeriesAndCancelling() async throws {
        let standIn = try await Self.standIn()
        defer { Task { try? await standIn.stop() } }
        let recorder = JellyfinRecorder(JellyfinServer(address: "http://127.0.0.1:\(standIn.port)", key: "SYNTHETICjellyfinapikey0000000001", transport: TestHTTP.transport))
        #expect(try await recorder.channels() == [RecorderChannel(id: Self.one, name: "BBC One HD", number: "101"),
                                                  RecorderChannel(id: Self.two, name: "Channel 5", number: "105")])
        #expect(try await recorder.profiles().isEmpty)

        let who = try await recorder.record(RecordingRequest(channel: Self.one, title: "Doctor Who", start: Self.evening + 60, stop: Self.evening + 3600))
        #expect(who.title == "Doctor Who" && who.start == Self.evening && who.state == .scheduled && who.status == "Scheduled")
        // The defaults Jellyfin gave were sent back as the timer.
        let posted = try #require(standIn.requests.last { $0.method == "POST" && $0.path == "/LiveTv/Timers" })
        #expect(posted.json["ProgramId"] as? String == "SYNTHETICprogram01" && posted.json["PrePaddingSeconds"] != nil)
        #expect(posted.headers["authorization"]?.contains(#"Token="SYNTHETICjellyfinapikey0000000001""#) == true)
        #expect(try await recorder.record(RecordingRequest(channel: Self.one, title: "Doctor Who", start: Self.evening, stop: Self.evening + 3600)).id == who.id)

        // One tuner: the quiz at the same time cannot be recorded, and Jellyfin says so.
        let quiz = try await recorder.record(RecordingRequest(channel: Self.two, title: "Quiz", start: Self.evening, stop: Self.evening + 1800))
        #expect(quiz.state == .conflict && quiz.status.contains("no tuner"))

        let series = try await recorder.recordSeries(RecordingRequest(channel: Self.one, title: "Doctor Who", start: Self.evening, stop: Self.evening + 3600))
        #expect(series.title == "Doctor Who" && series.channel == Self.one)
        #expect(try await recorder.scheduled().filter { $0.title == "Doctor Who" }.count == 2)

        try await recorder.cancel(recording: quiz.id)
        #expect(try await recorder.scheduled().allSatisfy { $0.id != quiz.id })
        try await recorder.cancel(rule: series.id)
        #expect(try await recorder.rules().isEmpty)

        // Not in Jellyfin's guide: refused, saying why.
        do {
            _ = try await recorder.record(RecordingRequest(channel: Self.two, title: "Late Film", start: Self.evening + 30000, stop: Self.evening + 36000))
            Issue.record("a programme Jellyfin does not list was recorded")
        } catch let error as RecorderError {
            #expect(error.kind == .refused && error.description.contains("guide has nothing"), "\(error)")
        }
    }

    @Test func aWrongKeyIsRefusedAndEmbysHeaderIsItsOwn() async throws {
        let standIn = try await Self.standIn()
        defer { Task { try? await standIn.stop() } }
        let wrong = JellyfinRecorder(JellyfinServer(address: "http://127.0.0.1:\(standIn.port)", key: "wrong", transport: TestHTTP.transport))
        await #expect(throws: RecorderError(.refused, saying: "{recorder} refused the user name, password or key", ["recorder": "Jellyfin"])) { try await wrong.channels() }
        let emby = JellyfinRecorder(JellyfinServer(address: "http://127.0.0.1:\(standIn.port)/", key: "SYNTHETICjellyfinapikey0000000001", kind: .emby,
                                                   transport: TestHTTP.transport))
        #expect(try await emby.channels().count == 2)
        #expect(standIn.requests.last?.headers["x-emby-token"] == "SYNTHETICjellyfinapikey0000000001")
    }
}
