import Foundation
import GuideApplication
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/recordings`: what the household asked the recorder to record, with the recorder's state and words, and Cancel;
/// `POST /recordings` asks for a programme or its series (from the details); for profiles an admin lets record
/// (``RecordRequestContext``). The recorder is the household's: any profile that may record sees and cancels all.
struct RecordingsPage: Sendable {
    let store: any GuideDatabase
    let directory: ChannelDirectory
    let pages: Pages
    let settings: ServerSettings
    let desk: RecordingDesk

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var message: String?
        var hasRecorder: Bool
        var entries: [Line]
    }

    struct Line {
        var id: Int64
        var title: String
        var kind: String
        var when: String
        var channel: String
        var state: String
        var words: String
        var isProblem: Bool
    }

    func register(on routes: RouteGroups) {
        routes.record.get(.recordings) { request, context in
            try await page(request, context, message: request.uri.queryParameters.get("done").map { String($0.prefix(300)) })
        }
        routes.record.post(.recordings) { request, context in try await record(request, context) }
        routes.record.post(SitePath.cancelRecording) { request, context, id in try await cancel(request, context, id: id.rawValue) }
    }

    func page(_ request: Request, _ context: RecordRequestContext, message: String?) async throws -> HTMLPage {
        let clock = settings.clock(context)
        let snapshot = try await directory.snapshot()
        let now = settings.now()
        let entries = try await store.recordings(limit: RecordingDesk.mostKept).filter { $0.what.stop > now.addingTimeInterval(-7 * 86400) }
        let words = pages.words(context)
        let model = await Model(
            chrome: pages.chrome(context, section: "recordings"), title: words("Recordings"), message: message,
            hasRecorder: try await store.recorder() != nil,
            entries: entries.map { entry in
                Line(id: entry.id, title: entry.what.title, kind: entry.what.series ? words("Series") : words("Once"),
                     when: words("{date}, {start}–{end}", ["date": clock.date(entry.what.start), "start": clock.time(entry.what.start),
                                                           "end": clock.time(entry.what.stop)]),
                     channel: snapshot.channel(entry.what.channel)?.name ?? entry.what.channel.rawValue,
                     state: entry.state.rawValue, words: Self.state(entry, words), isProblem: [.refused, .failed, .conflict].contains(entry.state))
            })
        return try pages.page("recordings", model)
    }

    /// What a request's state is, for the viewer (with what the recorder said, as it said it).
    static func state(_ entry: RecordingEntry, _ words: Localizer) -> String {
        let state = switch entry.state {
        case .requested: words("Waiting for the recorder")
        case .scheduled: entry.what.series ? words("Series rule set") : words("Scheduled")
        case .recording: words("Recording now")
        case .completed: words("Recorded")
        case .failed: words("Not recorded")
        case .conflict: words("Conflict")
        case .refused: words("Refused by the recorder")
        }
        return entry.status.map { words("{state}: {detail}", ["state": state, "detail": $0.worded(words)]) } ?? state
    }

    private func record(_ request: Request, _ context: RecordRequestContext) async throws -> Response {
        let form = try await RecordForm(request, context)
        let words = pages.words(context)
        guard let id = Bounded.integer(form.programme, in: 1...Int64.max), let stored = try await store.programme(ProgrammeID(rawValue: id)) else {
            throw Refusal(.notFound, saying: "That programme is not in the guide (a newer import may have replaced it).")
        }
        let entry: RecordingEntry
        do {
            entry = try await desk.request(stored, series: form.series, by: context.profile.id)
        } catch let failure as RecordingFailure {
            throw Refusal(.badRequest, failure.sentence)
        }
        let next = form.next ?? SitePath.recordings()
        return Response.redirect(to: SitePath.done(next, words("{title}: {state}", ["title": entry.what.title, "state": Self.state(entry, words)])))
    }

    private func cancel(_ request: Request, _ context: RecordRequestContext, id: Int64) async throws -> Response {
        guard let entry = try await store.recording(id) else {
            throw Refusal(.notFound, saying: "No such recording.")
        }
        do {
            try await desk.cancel(entry)
        } catch let failure as RecordingFailure {
            throw Refusal(.serviceUnavailable, failure.sentence)
        }
        let next = try await NextForm(request, context).next ?? SitePath.recordings()
        let words = pages.words(context)
        return Response.redirect(to: SitePath.done(next, words("Cancelled {title}.", ["title": entry.what.title])))
    }
}

/// "Record" or "Record series" on a programme: its id, which, and the page to go back to.
struct RecordForm: PostedForm {
    let programme: String
    let series: Bool
    let next: String?

    init(_ form: FormFields) throws(FieldError) {
        programme = try form.text("programme", limit: 20, called: "The programme") ?? ""
        series = try form.integer("series", in: 0...1, called: "Series") == 1
        next = try form.text("next", limit: 2_000, called: "The page to go back to").map { SignInPages.safeReturn($0) }
    }
}

/// A form that only names the page to go back to.
struct NextForm: PostedForm {
    let next: String?

    init(_ form: FormFields) throws(FieldError) {
        next = try form.text("next", limit: 2_000, called: "The page to go back to").map { SignInPages.safeReturn($0) }
    }
}

