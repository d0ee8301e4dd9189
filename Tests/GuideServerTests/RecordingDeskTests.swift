import BoxesReplay
import Foundation
import Glibc
import GuideApplication
import GuideCore
import GuideHTTP
@testable import GuideServer
import GuideStore
import Recorders
import StoreTestSupport
import Testing

/// Requests to record (``RecordingDesk``) against stand-ins answering as Tvheadend's and Jellyfin's APIs document: kept
/// first, then sent; a recorder that does not answer keeps the request waiting, sent by the next sync; one that says no
/// leaves its words; the recorder's state (a conflict, a recording cancelled there) read back; cancelled at the
/// recorder and here. On both stores.
@Suite struct RecordingDeskTests {
    static let now = Date(timeIntervalSince1970: 1_771_184_400)   // 2026-02-15 19:40 UTC
    static let evening: Int64 = 1_771_185_600                     // 20:00
    static let listings = """
        <tv><channel id="bbc1.uk"><display-name>BBC One</display-name></channel><channel id="five.uk"><display-name>Channel 5</display-name></channel>
        <programme start="20260215200000 +0000" stop="20260215210000 +0000" channel="bbc1.uk"><title>Doctor Who</title></programme>
        <programme start="20260215200000 +0000" stop="20260215203000 +0000" channel="five.uk"><title>Quiz</title></programme>
        <programme start="20260215230000 +0000" stop="20260216010000 +0000" channel="five.uk"><title>Late Film</title></programme>
        </tv>
        """
    static let bbc = "SYNTHETICchannelbbcone0000000001", five = "SYNTHETICchannelfive000000000002"

    static func programme(_ server: TestServer, _ channel: String, at seconds: Int64) async throws -> StoredProgramme {
        try #require(try await server.store.programmes(on: ChannelID(channel), in: TimeWindow(start: Date(timeIntervalSince1970: TimeInterval(seconds)),
                                                                                                end: Date(timeIntervalSince1970: TimeInterval(seconds + 60)))).first)
    }

    static func tvheadend() async throws -> TvheadendStandIn {
        let standIn = try await TvheadendStandIn()
        standIn.setGuide(channels: [.init(uuid: bbc, name: "BBC One HD", number: 101), .init(uuid: five, name: "Channel 5", number: 105)],
                         events: [.init(id: 501, channel: bbc, title: "Doctor Who", start: evening, stop: evening + 3600, serieslink: "crid://bbc/who"),
                                  .init(id: 502, channel: five, title: "Quiz", start: evening, stop: evening + 1800)])
        return standIn
    }

    @Test func keptSentReadBackAndCancelled() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        let standIn = try await Self.tvheadend()
        defer { Task { try? await standIn.stop() } }
        let ada = try await server.store.createProfile(name: "Ada", role: .admin, secretKind: .password, secretHash: "x", onlyIfFirst: false)
        let desk = RecordingDesk(store: server.store, transport: TestHTTP.outbound, now: { Self.now },
                                 pageWait: .seconds(30))  // What the recorder answers, not how fast: a loaded machine is slow.
        let who = try await Self.programme(server, "bbc1.uk", at: Self.evening)

        await #expect(throws: RecordingFailure(saying: "No recorder is set up (an admin sets one up on the recorder page).")) {
            try await desk.request(who, series: false, by: ada.id)
        }
        try await server.store.setRecorder(RecorderSettings(kind: .tvheadend, address: "http://127.0.0.1:\(standIn.port)", username: "tvguide",
                                                            secret: "hunter2 & more"), at: Self.now)
        await #expect(throws: RecordingFailure(saying: "This channel is not matched to one of the recorder's (an admin matches them on the recorder page).")) {
            try await desk.request(who, series: false, by: ada.id)
        }
        try await server.store.setRecorderChannels([ChannelID("bbc1.uk"): Self.bbc, ChannelID("five.uk"): Self.five])

        let entry = try await desk.request(who, series: false, by: ada.id)
        #expect(entry.state == .scheduled && entry.recorderID != nil && entry.status?.description == "Scheduled for recording")
        #expect(try await desk.request(who, series: false, by: ada.id).id == entry.id)
        #expect(standIn.recordingCount == 1)
        let series = try await desk.request(who, series: true, by: ada.id)
        #expect(series.state == .scheduled && series.status?.description == "Every airing of Doctor Who" && standIn.ruleCount == 1)

        // Not in Tvheadend's EPG: a timed recording; refused there (a channel it no longer has): its words kept.
        let film = try await desk.request(try await Self.programme(server, "five.uk", at: Self.evening + 3 * 3600), series: false, by: ada.id)
        #expect(film.state == .scheduled)
        try await server.store.setRecorderChannels([ChannelID("bbc1.uk"): Self.bbc, ChannelID("five.uk"): "SYNTHETICgone"])
        let quiz = try await desk.request(try await Self.programme(server, "five.uk", at: Self.evening), series: false, by: ada.id)
        #expect(quiz.state == .refused && quiz.status?.description.contains("Tvheadend answered HTTP 400") == true, "\(quiz)")

        // Cancelled at the recorder by someone else: the next sync says so.
        let recorder = try #require(try await desk.recorder()).client
        try await recorder.cancel(recording: try #require(film.recorderID))
        try await desk.sync()
        let after = try #require(try await server.store.recording(film.id))
        #expect(after.state == .failed && after.status?.description.contains("no longer has") == true)

        // Cancelled here: at the recorder too.
        try await desk.cancel(entry)
        try await desk.cancel(series)
        #expect(standIn.recordingCount == 0 && standIn.ruleCount == 0)
        #expect(try await server.store.recording(entry.id) == nil)
    }

    /// The recorder page's suggestions (the one channel matcher): by name and number, each of the recorder's channels
    /// once, for the guide channel it fits best.
    @Test func eachRecorderChannelIsSuggestedOnce() async throws {
        let guide = [Channel(id: ChannelID("bbc1.uk"), displayNames: [LocalizedText("BBC One")], number: "101"),
                     Channel(id: ChannelID("bbc1hd.uk"), displayNames: [LocalizedText("BBC One HD")]),
                     Channel(id: ChannelID("five.uk"), displayNames: [LocalizedText("Channel 5")], number: "105"),
                     Channel(id: ChannelID("dave.uk"), displayNames: [LocalizedText("Dave")])]
        let recorder = [RecorderChannel(id: "a", name: "BBC ONE HD", number: "101"), RecorderChannel(id: "b", name: "5", number: "105")]
        let found = try await RecordingDesk.suggestions(for: guide, among: recorder)
        #expect(found[ChannelID("bbc1.uk")]?.channel == "a" && found[ChannelID("bbc1hd.uk")] == nil, "\(found)")
        #expect(found[ChannelID("five.uk")]?.channel == "b" && found[ChannelID("five.uk")]?.why.contains("same number 105") == true)
        #expect(found[ChannelID("dave.uk")] == nil)
    }

    @Test func aRecorderThatIsOffKeepsTheRequestForTheNextSync() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        let ada = try await server.store.createProfile(name: "Ada", role: .admin, secretKind: .password, secretHash: "x", onlyIfFirst: false)
        // A loaded machine (a clean clone's full run) took the stand-in past the page's 3 s: what it answers is the test.
        let desk = RecordingDesk(store: server.store, transport: TestHTTP.outbound, now: { Self.now }, pageWait: .seconds(30))
        let standIn = try await JellyfinLiveTvStandIn()
        defer { Task { try? await standIn.stop() } }
        let start = Date(timeIntervalSince1970: TimeInterval(Self.evening))
        standIn.setGuide(channels: [.init(id: "SYNTHETICjf1", name: "BBC One", number: "101"), .init(id: "SYNTHETICjf5", name: "Channel 5", number: "105")],
                         programs: [.init(id: "SYNTHETICp1", channel: "SYNTHETICjf1", name: "Doctor Who", start: start, end: start + 3600),
                                    .init(id: "SYNTHETICp2", channel: "SYNTHETICjf5", name: "Quiz", start: start, end: start + 1800)])
        // Off: nothing listens on the discard port.
        try await server.store.setRecorder(RecorderSettings(kind: .jellyfin, address: "http://127.0.0.1:9", secret: "SYNTHETICjellyfinapikey0000000001"), at: Self.now)
        try await server.store.setRecorderChannels([ChannelID("bbc1.uk"): "SYNTHETICjf1", ChannelID("five.uk"): "SYNTHETICjf5"])
        let who = try await desk.request(try await Self.programme(server, "bbc1.uk", at: Self.evening), series: false, by: ada.id)
        #expect(who.state == .requested && who.status?.description.contains("did not answer") == true)

        // The recorder comes back, at another address (whose channels an admin matches again).
        try await server.store.setRecorder(RecorderSettings(kind: .jellyfin, address: "http://127.0.0.1:\(standIn.port)", secret: "SYNTHETICjellyfinapikey0000000001"),
                                           at: Self.now)
        try await server.store.setRecorderChannels([ChannelID("bbc1.uk"): "SYNTHETICjf1", ChannelID("five.uk"): "SYNTHETICjf5"])
        try await desk.sync()
        #expect(try await server.store.recording(who.id)?.state == .scheduled)
        // One tuner: the quiz at the same time is a conflict, as Jellyfin says.
        let quiz = try await desk.request(try await Self.programme(server, "five.uk", at: Self.evening), series: false, by: ada.id)
        #expect(quiz.state == .conflict && quiz.status?.description.contains("no tuner") == true)
        #expect(try await server.store.recordings(in: TimeWindow(start: start, end: start + 60)).map(\.state).sorted { $0.rawValue < $1.rawValue }
                == [.conflict, .scheduled])
    }

    /// A recorder that takes the connection and never answers holds a viewer's request for the page's 3 s, not the
    /// background's 15 (issue 43): the request is kept, waiting for the next sync.
    @Test func aRecorderThatHangsHoldsAPageForItsShortDeadline() async throws {
        let server = try await TestServer(listings: Self.listings, now: Self.now)
        let ada = try await server.store.createProfile(name: "Ada", role: .admin, secretKind: .password, secretHash: "x", onlyIfFirst: false)
        let desk = RecordingDesk(store: server.store, transport: TestHTTP.outbound, now: { Self.now })
        let hanging = try SilentListener()
        defer { hanging.close() }
        try await server.store.setRecorder(RecorderSettings(kind: .jellyfin, address: "http://127.0.0.1:\(hanging.port)", secret: "SYNTHETICjellyfinapikey0000000001"),
                                           at: Self.now)
        try await server.store.setRecorderChannels([ChannelID("bbc1.uk"): "SYNTHETICjf1"])
        let started = ContinuousClock.now
        let who = try await desk.request(try await Self.programme(server, "bbc1.uk", at: Self.evening), series: false, by: ada.id)
        let waited = ContinuousClock.now - started
        #expect(who.state == .requested && who.status?.description.contains("did not answer") == true, "\(who)")
        #expect(waited >= RecordingDesk.pageDeadline && waited < RecordingDesk.deadline, "the page waited \(waited)")
    }
}

/// A TCP port on loopback whose connections the kernel completes and nobody reads: a peer that hangs.
struct SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && listen(socket, 16) == 0
                && getsockname(socket, $0, &length) == 0 }
        }
        guard socket >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        (descriptor, port) = (socket, Int(UInt16(bigEndian: address.sin_port)))
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}
