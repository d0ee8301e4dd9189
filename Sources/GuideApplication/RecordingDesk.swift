import Foundation
import GuideCore
import GuideHTTP
import GuideReminders
import GuideStore
import Logging
import Recorders

/// Between viewers and the recorder an admin set up: a request to record is kept first (``RecordingStore``), then sent;
/// a recorder that does not answer leaves it waiting (``RecordingEntry/State/requested``) and ``sync()`` sends it again;
/// one that says no leaves its words with it (``RecordingEntry/State/refused``); what the recorder then does with it
/// (recording, done, a conflict, gone) is read back by ``sync()``. Each call to the recorder is bounded: a page's
/// by ``pageDeadline`` (a request the recorder did not answer then waits for ``sync()``), the background's by
/// ``deadline``, so a viewer never waits long on a recorder that is off or hangs.
public struct RecordingDesk: Sendable {
    public let store: any GuideDatabase
    /// The admin's addresses' transport (as media servers' reloads use).
    public let transport: any HTTPTransport
    public let now: @Sendable () -> Date
    public let logger: Logger
    /// How long one call to the recorder may take in the background (``sync()``).
    public static let deadline: Duration = .seconds(15)
    /// How long a page (a viewer's request, a cancel, the admin's recorder page) waits for the recorder.
    public static let pageDeadline: Duration = .seconds(3)
    /// Requests kept at most (a household's; the oldest finished ones go first).
    public static let mostKept = 2000
    /// How long this desk's pages wait (``pageDeadline``; a test of what the recorder answers may wait longer on a
    /// loaded machine).
    public let pageWait: Duration

    public init(store: any GuideDatabase, transport: any HTTPTransport, now: @escaping @Sendable () -> Date,
                logger: Logger = Logger(label: "tvguide.recordings"), pageWait: Duration = RecordingDesk.pageDeadline) {
        (self.store, self.transport, self.now, self.logger, self.pageWait) = (store, transport, now, logger, pageWait)
    }

    /// The recorder the admin set up, as a client; nil when there is none.
    public func recorder() async throws -> (client: any Recorder, settings: RecorderSettings)? {
        guard let settings = try await store.recorder() else { return nil }
        return (Self.client(settings, transport: transport), settings)
    }

    public static func client(_ settings: RecorderSettings, transport: any HTTPTransport) -> any Recorder {
        switch settings.kind {
        case .tvheadend:
            TvheadendRecorder(address: settings.address,
                              credentials: settings.username.map { HTTPCredentials(username: $0, password: settings.secret ?? "") },
                              transport: transport)
        case .jellyfin: JellyfinRecorder(JellyfinServer(address: settings.address, key: settings.secret ?? "", kind: .jellyfin, transport: transport))
        case .emby: JellyfinRecorder(JellyfinServer(address: settings.address, key: settings.secret ?? "", kind: .emby, transport: transport))
        case .nextpvr: NextPVRRecorder(address: settings.address, pin: settings.secret ?? "", transport: transport)
        }
    }

    /// Asks for `programme` (or its series) to be recorded for `profile`: kept, then sent. The entry as it stands.
    public func request(_ programme: StoredProgramme, series: Bool, by profile: ProfileID) async throws -> RecordingEntry {
        guard try await store.recorder() != nil else { throw RecordingFailure(saying: "No recorder is set up (an admin sets one up on the recorder page).") }
        let channels = try await store.recorderChannels()
        guard channels[programme.programme.channel] != nil else {
            throw RecordingFailure(saying: "This channel is not matched to one of the recorder's (an admin matches them on the recorder page).")
        }
        guard programme.end > now() else { throw RecordingFailure(saying: "{title} has already ended.", ["title": programme.programme.title]) }
        let entry = try await store.addRecording(NewRecording(profile: profile, series: series, channel: programme.programme.channel,
                                                              title: programme.programme.title, subtitle: programme.programme.subTitle,
                                                              start: programme.programme.start, stop: programme.end), at: now())
        guard entry.state == .requested || entry.state == .refused else { return entry }
        return try await send(entry, within: pageWait)
    }

    /// Records what saved searches that record find (``NewSavedSearch/records``), for profiles that may record, on
    /// channels matched to the recorder: each airing asked once (one cancelled here is not asked again while it is
    /// kept). How many were asked.
    @discardableResult
    public func recordSavedSearches(of profile: ProfileID? = nil, at instant: Date) async throws -> Int {
        guard try await store.recorder() != nil else { return 0 }
        let searches = try await store.savedSearches(of: profile).filter(\.what.records)
        guard !searches.isEmpty else { return 0 }
        let profiles = Dictionary(try await store.profiles().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let mapped = try await store.recorderChannels()
        let finder = SavedSearchReminders(store: store)
        var asked = 0
        for search in searches where profiles[search.what.profile]?.mayRecord == true {
            for match in try await finder.matches(of: search, at: instant) where mapped[match.programme.channel] != nil {
                let known = try await store.recordings(in: TimeWindow(start: match.programme.start, end: match.end))
                guard !known.contains(where: { $0.what.channel == match.programme.channel && $0.what.start == match.programme.start }) else { continue }
                _ = try await request(match, series: false, by: search.what.profile)
                asked += 1
            }
        }
        return asked
    }

    /// Sends a kept request to the recorder, waiting for it at most `limit`; the entry as it stands after.
    func send(_ entry: RecordingEntry, within limit: Duration) async throws -> RecordingEntry {
        guard let (recorder, settings) = try await recorder(), let channel = try await store.recorderChannels()[entry.what.channel] else {
            return entry
        }
        let request = RecordingRequest(channel: channel, title: entry.what.title, subtitle: entry.what.subtitle, start: entry.what.start,
                                       stop: entry.what.stop, profile: settings.profile)
        var updated = entry
        do {
            if entry.what.series {
                let rule = try await Self.bounded(within: limit) { try await recorder.recordSeries(request) }
                (updated.recorderID, updated.state, updated.status) = (rule.id, .scheduled, Sentence(saying: "Every airing of {title}", ["title": rule.title]))
            } else {
                let recording = try await Self.bounded(within: limit) { try await recorder.record(request) }
                (updated.recorderID, updated.state, updated.status) = (recording.id, Self.state(recording.state), .verbatim(recording.status))
            }
        } catch let error as RecorderError where error.kind == .unreachable {
            (updated.state, updated.status) = (.requested, Sentence(saying: "The recorder did not answer; tvguide asks again every few minutes."))
            logger.notice("recorder unreachable", metadata: ["detail": "\(error)"])
        } catch let error as RecorderError {
            (updated.state, updated.status) = (.refused, error.sentence)
        }
        try await store.updateRecording(entry.id, recorderID: updated.recorderID, state: updated.state, status: updated.status, at: now())
        return updated
    }

    /// Sends what waits, and reads back what the recorder has made of the rest; a no-op without a recorder.
    public func sync() async throws {
        guard let (recorder, _) = try await recorder() else { return }
        let entries = try await store.recordings(limit: Self.mostKept)
        let instant = now()
        for entry in entries where entry.state == .requested && entry.what.stop > instant {
            _ = try await send(entry, within: Self.deadline)
        }
        let sent = entries.filter { $0.recorderID != nil && [.scheduled, .recording, .conflict].contains($0.state) }
        guard !sent.isEmpty else { return }
        let scheduled: [ScheduledRecording], rules: [RecordingRule]
        do {
            scheduled = try await Self.bounded(within: Self.deadline) { try await recorder.scheduled() }
            rules = try await Self.bounded(within: Self.deadline) { try await recorder.rules() }
        } catch let error as RecorderError {
            logger.notice("recorder state not read", metadata: ["detail": "\(error)"])
            return
        }
        for entry in sent {
            var state = entry.state, status = entry.status
            if entry.what.series {
                if !rules.contains(where: { $0.id == entry.recorderID }) { (state, status) = (.failed, Sentence(saying: "The recorder no longer has this series rule.")) }
            } else if let recording = scheduled.first(where: { $0.id == entry.recorderID }) {
                (state, status) = (Self.state(recording.state), .verbatim(recording.status))
            } else if entry.what.stop <= instant {
                (state, status) = (.completed, Sentence(saying: "Recorded (the recorder lists it no longer as upcoming)."))
            } else {
                (state, status) = (.failed, Sentence(saying: "The recorder no longer has this recording (cancelled there?)."))
            }
            if state != entry.state || status != entry.status {
                try await store.updateRecording(entry.id, recorderID: entry.recorderID, state: state, status: status, at: instant)
            }
        }
    }

    /// Cancels a request: at the recorder first when it was sent (a recorder that does not answer keeps it), then here.
    public func cancel(_ entry: RecordingEntry) async throws {
        if let id = entry.recorderID, entry.isScheduled || entry.state == .conflict, let (recorder, _) = try await recorder() {
            do {
                try await Self.bounded(within: pageWait) {
                    entry.what.series ? try await recorder.cancel(rule: id) : try await recorder.cancel(recording: id)
                }
            } catch let error as RecorderError where error.kind == .unreachable {
                throw RecordingFailure(saying: "The recorder did not answer, so the recording is still on it. Try again later.")
            } catch let error as RecorderError where error.kind == .refused {
                // Already gone there: it goes here too.
                logger.notice("recorder refused a cancel", metadata: ["detail": "\(error)"])
            }
        }
        try await store.removeRecording(entry.id)
    }

    public static func state(_ state: ScheduledRecording.State) -> RecordingEntry.State {
        switch state {
        case .scheduled: .scheduled
        case .recording: .recording
        case .completed: .completed
        case .failed: .failed
        case .conflict: .conflict
        }
    }

    /// `body`, or ``RecorderError/Kind/unreachable`` when it takes longer than `limit`.
    public static func bounded<T: Sendable>(within limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let value = try await withTimeLimit(limit, body) else {
            throw RecorderError(.unreachable, saying: "the recorder took longer than {seconds} s", ["seconds": "\(limit.components.seconds)"])
        }
        return value
    }
}

/// Why a recording could not be asked for, in words for the viewer.
public struct RecordingFailure: WordedError, CustomStringConvertible, Equatable {
    public var sentence: Sentence
    public init(saying text: String, _ values: [String: String] = [:]) { sentence = Sentence(saying: text, values) }
    public var description: String { sentence.description }
}
