import Foundation
import GuideCore
import GuideStore
import GuideWebFormats
import Hummingbird
import TrackerExports
import TVMaze

/// A tracker's export brought in from the web: `/history/import` takes the upload (a zip as the tracker sent it, or
/// its files; 50 MB at most) and matches it on TVmaze in the background (a large history is minutes of TVmaze's rate
/// limit); `/history/imports/TOKEN` says how far it is, reloading itself, then shows the preview (what matched, by
/// what; what did not, each with a box for a TVmaze id); `/history/import/confirm` imports it, with the shows fixed by
/// hand, again in the background, and the same page reports. Nothing is kept before the confirmation; an import waits
/// at most ``HistoryImportJobs/lifetime``.
struct HistoryImportPages: Sendable {
    let importer: HistoryImport
    let series: SeriesServices
    let pages: Pages
    let jobs: HistoryImportJobs

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        /// While TVmaze is being asked: how far it is.
        var working: String?
        var token: String?
        var kind: String
        var summary: String
        var matched: [MatchEntry]
        var unmatched: [UnmatchedEntry]
        var problems: [String]
        var report: String?
    }

    struct MatchEntry {
        var tracked: String
        var showID: Int
        var show: String
        var how: String
        /// "12 episodes".
        var episodes: String
        var missing: String?
    }

    struct UnmatchedEntry {
        var title: String
        var episodes: String
    }

    func register(on routes: RouteGroups) {
        routes.profile.post(.historyImport, body: .file) { request, context in try await upload(request, context) }
        routes.profile.post(.historyConfirm) { request, context in try await confirm(request, context) }
        routes.profile.get(SitePath.historyImportJob) { _, context, token in try await job(context, token: token.rawValue) }
        routes.api(ProfileChanges.self).post(.apiHistoryImport, body: .file) { request, context in try await imported(request, context) }
    }

    /// What `POST /api/history/import` answers: what was found on TVmaze, and with `preview` false what was kept.
    struct ImportDocument: ResponseEncodable {
        struct Found: Encodable {
            var title: String
            var tvmaze: Int
            var name: String
            var how: String
            var episodes: Int
            var notOnTVmaze: Int
        }

        struct NotFound: Encodable {
            var title: String
            var episodes: Int
        }

        var kind: String
        var preview: Bool
        var found: [Found]
        var notFound: [NotFound]
        var problems: [Sentence]
        var marked: Int?
        var followed: Int?
    }

    /// The export is the request's body (50 MB at most), `name` its file name (a zip, or which CSV or JSON it is);
    /// `preview=true` keeps nothing, `follow=false` follows none of its shows, `choose=TITLE=ID` names a show by hand.
    func imported(_ request: Request, _ context: APIRequestContext<ProfileChanges>) async throws -> ImportDocument {
        let query = QueryParameters(request: request)
        let name = query.string("name") ?? "history.csv"
        guard name.count <= 255 else { throw Refusal(.badRequest, saying: "name is the export's file name, 255 characters at most") }
        var choices: [String: Int] = [:]
        for text in query.strings("choose") {
            guard let choice = HistoryImport.choice(text) else {
                throw Refusal(.badRequest, saying: "choose is a title, = and a TVmaze id, like choose=The%20Office%3D526")
            }
            choices[choice.title] = choice.id
        }
        let body = try await context.fileBody(of: request)
        let tracked: TrackerHistory
        do throws(TrackerError) {
            tracked = try TrackerFiles.read([(name, body)])
        } catch {
            throw Refusal(.badRequest, error.sentence)
        }
        let preview = query.string("preview") == "true"
        let plan = try await series.tvmaze { try await importer.plan(tracked, choices: choices) }
        var document = ImportDocument(
            kind: plan.kind.rawValue, preview: preview,
            found: plan.matched.map { ImportDocument.Found(title: $0.tracked.title, tvmaze: $0.show.id, name: $0.show.name, how: $0.how,
                                                           episodes: $0.marks.count, notOnTVmaze: $0.unmatched.count) },
            notFound: plan.unmatched.map { ImportDocument.NotFound(title: $0.title, episodes: $0.episodes.count) }, problems: plan.problems)
        if !preview {
            let report = try await series.tvmaze { try await importer.apply(plan, to: context.profile.id, follow: query.string("follow") != "false") }
            (document.marked, document.followed) = (report.marked, report.followed)
        }
        return document
    }

    func upload(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let form = try MultipartForm.posted(context)
        guard !form.files("export").isEmpty else {
            throw Refusal(.badRequest, saying: "Choose the export's file (a zip, or its CSV or JSON files) to import.")
        }
        let tracked: TrackerHistory
        do throws(TrackerError) {
            tracked = try TrackerFiles.read(form.files("export"))
        } catch {
            throw Refusal(.badRequest, error.sentence)
        }
        let token: String
        switch await jobs.start(tracked, for: context.profile.id) {
        case .started(let started): token = started
        case .profileBusy:
            throw Refusal(.tooManyRequests, headers: [.retryAfter: "60"], saying: "Your other imports are still being matched; try again when one is done.")
        case .serverBusy:
            throw Refusal(.serviceUnavailable, headers: [.retryAfter: "60"], saying: "Other imports are being matched; try again in a minute.")
        }
        let importer = importer, jobs = jobs
        Task {
            do {
                let plan = try await importer.plan(tracked) { done, of in await jobs.set(token, .matching(done: done, of: of)) }
                await jobs.set(token, .preview(plan))
            } catch {
                await jobs.set(token, .failed(Sentence(error), whileKeeping: false))
            }
        }
        return .redirect(to: SitePath.historyImportJob(PathText(token)))
    }

    func confirm(_ request: Request, _ context: ProfileRequestContext) async throws -> Response {
        let form = try await HistoryConfirmForm(request, context)
        guard let tracked = await jobs.confirm(form.token, for: context.profile.id) else {
            throw Refusal(.notFound, saying: "This import is no longer waiting (it is kept for 30 minutes): upload the export again.")
        }
        var choices: [String: Int] = [:]
        for (title, id) in zip(form.titles, form.ids) { if let id { choices[title] = id } }
        let importer = importer, jobs = jobs, token = form.token, profile = context.profile.id, follows = form.follows
        Task {
            do {
                // Matched again, from the cache but for the shows named by hand.
                let plan = try await importer.plan(tracked, choices: choices)
                let report = try await importer.apply(plan, to: profile, follow: follows) { done, of in
                    await jobs.set(token, .keeping(done: done, of: of))
                }
                await jobs.set(token, .done(plan, marked: report.marked, followed: report.followed))
            } catch {
                await jobs.set(token, .failed(Sentence(error), whileKeeping: true))
            }
        }
        return .redirect(to: SitePath.historyImportJob(PathText(form.token)))
    }

    /// How the import is going: reloading itself every 2 seconds while TVmaze is asked; then its preview or report.
    func job(_ context: ProfileRequestContext, token: String) async throws -> HTMLPage {
        guard let stage = await jobs.stage(token, for: context.profile.id) else {
            throw Refusal(.notFound, saying: "No such import waits (one is kept for 30 minutes): upload the export again.")
        }
        let words = pages.words(context)
        switch stage {
        case .matching(let done, let of), .keeping(let done, let of):
            var working = if case .matching = stage {
                words.plural("Finding the shows on TVmaze: {done} of {count} show", "Finding the shows on TVmaze: {done} of {count} shows",
                             count: of, ["done": words.number(done)])
            } else {
                words.plural("Keeping the shows and their episodes: {done} of {count} show",
                             "Keeping the shows and their episodes: {done} of {count} shows", count: of, ["done": words.number(done)])
            }
            // TVmaze takes 20 requests in 10 seconds; a show is a request or two.
            let minutes = (of - done + 59) / 60
            if minutes > 1 { working += " " + words.plural("About {count} minute left.", "About {count} minutes left.", count: minutes) }
            var page = try await pages.page("history-import", Model(
                chrome: pages.chrome(context, section: "up-next"), title: words("Import: working"),
                working: working,
                token: nil, kind: "", summary: "", matched: [], unmatched: [], problems: [], report: nil))
            page.refresh = 2
            return page
        case .preview(let plan):
            return try await page(context, plan: plan, token: token, report: nil)
        case .done(let plan, let marked, let followed):
            var report = words("Imported: {episodes}, {shows}.", [
                "episodes": words.plural("{count} episode marked watched", "{count} episodes marked watched", count: marked),
                "shows": words.plural("{count} show followed", "{count} shows followed", count: followed)])
            if !plan.unmatched.isEmpty {
                report += " " + words.plural("{count} show TVmaze did not find was left out.", "{count} shows TVmaze did not find were left out.",
                                             count: plan.unmatched.count)
            }
            return try await page(context, plan: plan, token: nil, report: report)
        case .failed(let error, let whileKeeping):
            throw whileKeeping
                ? Refusal(.badGateway, Sentence(saying: "The import stopped: {error}. What was kept stays; importing again adds the rest.",
                                                sentences: ["error": error]))
                : Refusal(.badGateway, Sentence(saying: "TVmaze could not be asked: {error}", sentences: ["error": error]))
        }
    }

    private func page(_ context: ProfileRequestContext, plan: HistoryImport.Plan, token: String?, report: String?) async throws -> HTMLPage {
        let words = pages.words(context)
        let matched = plan.matched.map { match in
            MatchEntry(tracked: match.tracked.title, showID: match.show.id, show: match.show.name,
                       how: match.how == "chosen" ? words("chosen by hand") : match.how == "title" ? words("by title")
                        : words("by {id}", ["id": match.how]),
                       episodes: words.plural("{count} episode", "{count} episodes", count: match.marks.count),
                       missing: match.unmatched.isEmpty ? nil : words.plural("{count} not on TVmaze: {episodes}", "{count} not on TVmaze: {episodes}",
                                                                             count: match.unmatched.count, ["episodes": match.unmatched.prefix(5).map {
                                                                                 Episode.code(season: $0.season, number: $0.number) }.joined(separator: ", ")]))
        }
        let shows = words.plural("{count} show", "{count} shows", count: plan.matched.count + plan.unmatched.count)
        let episodes = words.plural("{count} episode", "{count} episodes", count: plan.episodes)
        return try await pages.page("history-import", Model(
            chrome: pages.chrome(context, section: "up-next"), title: report == nil ? words("Import: preview") : words("Import: done"),
            working: nil, token: token, kind: plan.kind.rawValue,
            summary: plan.unmatchedEpisodes > 0
                ? words.plural("{shows}, {episodes} found on TVmaze, {count} not.", "{shows}, {episodes} found on TVmaze, {count} not.",
                               count: plan.unmatchedEpisodes, ["shows": shows, "episodes": episodes])
                : words("{shows}, {episodes} found on TVmaze.", ["shows": shows, "episodes": episodes]),
            matched: matched, unmatched: plan.unmatched.map { UnmatchedEntry(title: $0.title, episodes: words.plural("{count} episode", "{count} episodes", count: $0.episodes.count)) },
            problems: plan.problems.map { $0.worded(words) }, report: report))
    }
}

/// The confirmation of an import: its token, whether to follow the tracker's shows, and TVmaze ids typed for shows
/// TVmaze did not find (`title` and `tvmaze` pair up by position; a blank id leaves the show out).
struct HistoryConfirmForm: PostedForm {
    let token: String
    let follows: Bool
    let titles: [String]
    let ids: [Int?]

    init(_ form: FormFields) throws(FieldError) {
        token = try form.text("token", limit: 64, called: "The import") ?? ""
        follows = form.isTicked("follow")
        titles = try form.positional("title", limit: 300)
        let typed = try form.positional("tvmaze", limit: 12)
        guard typed.count == titles.count else { throw FieldError(name: "tvmaze", saying: "Each show not found takes one TVmaze id box") }
        var ids: [Int?] = []
        for text in typed {
            guard !text.isEmpty else { ids.append(nil); continue }
            guard let id = Bounded.integer(text, in: TVMazeClient.idRange) else {
                throw FieldError(name: "tvmaze", saying: "A TVmaze id is a number, like 526 (the number in a show's TVmaze address)")
            }
            ids.append(id)
        }
        self.ids = ids
    }
}

/// Imports under way, each for the profile that uploaded it: at most ``most``, at most ``mostPerProfile`` of one
/// profile's at work, each kept ``lifetime`` after its last change. Matching and keeping run in tasks of their own,
/// each job's one at a time, on TVmaze's share for imports (``GuideServices/historyImports``).
actor HistoryImportJobs {
    enum Stage: Sendable {
        case matching(done: Int, of: Int)
        case preview(HistoryImport.Plan)
        case keeping(done: Int, of: Int)
        case done(HistoryImport.Plan, marked: Int, followed: Int)
        case failed(Sentence, whileKeeping: Bool)

        var isWorking: Bool {
            switch self {
            case .matching, .keeping: true
            case .preview, .done, .failed: false
            }
        }
    }

    static let most = 8
    static let mostPerProfile = 2
    static let lifetime: TimeInterval = 30 * 60

    enum Start: Equatable {
        case started(String)
        /// The profile has ``mostPerProfile`` at work.
        case profileBusy
        /// ``most`` are kept and none can go (all at work).
        case serverBusy
    }
    private var jobs: [String: (profile: ProfileID, history: TrackerHistory, stage: Stage, at: Date)] = [:]
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// A new job, matching, unless the profile or the server has as many at work as it may.
    func start(_ history: TrackerHistory, for profile: ProfileID) -> Start {
        let started = now()
        jobs = jobs.filter { started.timeIntervalSince($0.value.at) < Self.lifetime }
        guard jobs.values.count(where: { $0.profile == profile && $0.stage.isWorking }) < Self.mostPerProfile else { return .profileBusy }
        while jobs.count >= Self.most {
            guard let oldest = jobs.filter({ !$0.value.stage.isWorking }).min(by: { $0.value.at < $1.value.at })?.key else { return .serverBusy }
            jobs[oldest] = nil
        }
        let token = Accounts.randomToken()
        jobs[token] = (profile, history, .matching(done: 0, of: history.shows.count), started)
        return .started(token)
    }

    func set(_ token: String, _ stage: Stage) {
        jobs[token]?.stage = stage
        jobs[token]?.at = now()
    }

    func stage(_ token: String, for profile: ProfileID) -> Stage? {
        guard let job = jobs[token], job.profile == profile, now().timeIntervalSince(job.at) < Self.lifetime else { return nil }
        return job.stage
    }

    /// The export of a job waiting at its preview, now being kept; nil when there is none such.
    func confirm(_ token: String, for profile: ProfileID) -> TrackerHistory? {
        guard let job = jobs[token], job.profile == profile, case .preview(let plan) = job.stage,
              now().timeIntervalSince(job.at) < Self.lifetime else { return nil }
        set(token, .keeping(done: 0, of: plan.matched.count))
        return job.history
    }
}
