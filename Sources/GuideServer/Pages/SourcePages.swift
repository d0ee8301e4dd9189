import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideHTTPServing
import GuideIngest
import GuideStore
import GuideWebFormats
import Hummingbird

/// The admin's pages for listings sources: `/admin/sources` (list, add, refresh now with live progress),
/// `/admin/source?name=` (edit, remove, choose and map its channels) and `/admin/health` (per source and per
/// channel). Everything here is for admin profiles; forms carry the form token like every other.
struct SourcePages: Sendable {
    let store: any ImportStore & SourceStore
    let pages: Pages
    let settings: ServerSettings
    let addresses: ClientAddress
    /// Refreshes the configured sources on demand; the progress streams open now (``RefreshEvents``).
    let scheduler: RefreshScheduler
    let refreshWatchers: OpenSlots
    /// What a playlist offers is checked against the outbound policy before it is offered.
    let outbound: PolicedTransport

    /// Channels per page of a source's channel list: a page's choices post well under the 64 KB form limit.
    static let channelsPerPage = 100
    struct ListModel: PageModel {
        var chrome: Chrome
        var title: String
        var message: String?
        var isError: Bool
        var sources: [SourceEntry]
        var formats: [Choice]
        var progress: String
    }

    struct SourceEntry {
        var name: String
        var link: String
        var format: String
        var location: String
        var priority: Int
        var schedule: String
        var lastRefresh: String
        var isFailed: Bool
        var holds: String
        var nextDue: String
    }


    func register(on routes: RouteGroups) {
        routes.admin.get(.sources) { request, context in try await listPage(request, context) }
        routes.admin.post(.sources) { request, context in try await addSource(request, context) }
        routes.admin.get(.source) { request, context in
            let query = request.uri.queryParameters
            return try await editPage(request, context, name: query.get("name") ?? "", view: ChannelView(query: { query.get($0) }))
        }
        routes.admin.post(.source) { request, context in try await saveSource(request, context) }
        routes.admin.post(.removeSource) { request, context in try await removeSource(request, context) }
        routes.admin.post(.sourceChannels) { request, context in try await saveChannels(request, context) }
        routes.admin.post(.refresh) { request, context in try await refreshNow(request, context) }
        routes.admin.get(.refreshEvents) { request, context in
            return try RefreshEvents.response(scheduler, slots: refreshWatchers, client: addresses.of(request, peer: context.peer),
                                              words: pages.words(context))
        }
        routes.admin.get(.health) { request, context in try await healthPage(request, context) }
    }

    // MARK: The list

    func listPage(_ request: Request, _ context: AdminRequestContext, message: String? = nil, isError: Bool = false,
                  status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let (clock, words) = (settings.clock(context), pages.words(context))
        let instant = settings.now()
        let statuses = try await store.sources()
        let busy = try await scheduler.refreshing()
        let model = await ListModel(
            chrome: pages.chrome(context, section: "admin"), title: words("Sources"), message: message, isError: isError,
            sources: statuses.map { Self.entry($0, clock: clock, words: words, now: instant, refreshing: busy) },
            formats: Self.formats(selected: .xmltv, words),
            progress: scheduler.latest.map { Self.describe($0, words) } ?? words("No refresh has run since the server started."))
        return try pages.page("sources", model, status: status)
    }

    func addSource(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let form: SourceForm
        do {
            form = try await SourceForm(request, context)
        } catch let error as FieldError {
            return try await listPage(request, context, message: words("Could not add the source: {error}", ["error": error.message(words)]), isError: true, status: .badRequest)
        }
        let name = form.name
        var definition = SourceDefinition(name: SourceName(name), format: form.format ?? .xmltv, location: form.location ?? "")
        if let channels = form.channels { definition.channels = channels }
        form.numbers.apply(to: &definition)
        do {
            if let problem = definition.problem { throw StoreError(.invalid, problem) }
            try await store.addSource(definition)
        } catch let error as StoreError {
            return try await listPage(request, context, message: words("Could not add {name}: {error}", ["name": name, "error": error.message(words)]), isError: true, status: .badRequest)
        }
        if definition.format == .grabber {
            return try await listPage(request, context, message: words("Added {name}. Configure its grabber from its page (Edit), then refresh it.", ["name": name]))
        }
        if form.refresh, (try? await scheduler.start([definition.name])) != nil {
            return try await listPage(request, context, message: words("Added {name}; fetching its listings now (progress below).", ["name": name]))
        }
        return try await listPage(request, context, message: words("Added {name}. Refresh it to fetch its listings, then choose its channels.", ["name": name]))
    }

    func refreshNow(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let names = try await SourceForm(request, context).named.map { [$0] }
        let words = pages.words(context)
        do {
            let started = try await scheduler.start(names)
            if started.isEmpty {
                let sources = try await store.sources()
                return try await listPage(request, context, message: sources.isEmpty ? words("There are no sources to refresh: add one below.")
                                          : words("Already refreshing; its progress is below."))
            }
            return try await listPage(request, context, message: words("Refreshing {names}; progress below.",
                                                                            ["names": started.map(\.rawValue).joined(separator: ", ")]))
        } catch let error as StoreError {
            return try await listPage(request, context, message: error.message(words), isError: true, status: .notFound)
        }
    }

    // MARK: Shared

    static func entry(_ status: SourceStatus, clock: ViewerClock, words: Localizer, now: Date, refreshing: Set<SourceName>) -> SourceEntry {
        let definition = status.definition
        func at(_ date: Date) -> String { words.moment(date, clock) }
        let isRefreshing = refreshing.contains(definition.name)
        let due = status.nextDue
        return SourceEntry(
            name: definition.name.rawValue, link: ChannelView().link(definition.name.rawValue, page: 1),
            format: label(definition.format, words), location: definition.location, priority: definition.priority,
            schedule: definition.schedule(words), lastRefresh: status.lastRefresh(words, clock: clock, isRefreshing: isRefreshing),
            isFailed: status.hasFailed(isRefreshing: isRefreshing), holds: status.holding(words),
            nextDue: isRefreshing ? words("refreshing now") : due <= now ? words("due now") : at(due))
    }

    /// One line for a refresh's progress, for the page before its script takes over.
    static func describe(_ progress: RefreshProgress, _ words: Localizer) -> String {
        let done = words.number(progress.downloadsDone)
        let names = progress.sources.map { "\($0.name) \($0.phase.rawValue)" }.joined(separator: ", ")
        return progress.isFinished
            ? words.plural("Last refresh: {done} of {count} download done; {names}.", "Last refresh: {done} of {count} downloads done; {names}.",
                           count: progress.downloadsTotal, ["done": done, "names": names])
            : words.plural("Refreshing: {done} of {count} download done; {names}.", "Refreshing: {done} of {count} downloads done; {names}.",
                           count: progress.downloadsTotal, ["done": done, "names": names])
    }

    static func formats(selected: SourceFormat, _ words: Localizer) -> [Choice] {
        SourceFormat.allCases.map { Choice(value: $0.rawValue, label: label($0, words), isSelected: $0 == selected) }
    }

    static func label(_ format: SourceFormat, _ words: Localizer) -> String {
        switch format {
        case .xmltv: words("XMLTV (file or URL, plain or gzip)")
        case .radiotimes: words("Radio Times (per-channel URLs)")
        case .tvmaze: words("TVmaze country schedule")
        case .m3u: words("M3U playlist (channel numbers, logos, groups, streams)")
        case .schedulesdirect: words("Schedules Direct lineups (an account; USA-IL57303-X)")
        case .grabber: words("XMLTV grabber (a tv_grab_* program on this machine: tv_grab_fr)")
        case .hdhomerun: words("HDHomeRun tuner's guide (its address: http://192.168.1.70)")
        case .openwebif: words("Enigma2 receiver's EPG (OpenWebif: its bouquet's address; the preset finds it)")
        }
    }

    static func hours(_ seconds: Int) -> String {
        seconds % 3600 == 0 ? String(seconds / 3600) : String(format: "%.2f", Double(seconds) / 3600)
    }

    static func list(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// A source's settings as the admin's forms post them (adding one, editing one, refreshing one): each field is
/// optional, and one left out keeps what the source had (the shift excepted: left out, it is none).
struct SourceForm: PostedForm {
    let name: String
    let format: SourceFormat?
    let location: String?
    /// The channels to take, as typed (commas, spaces or lines between them); nil when the field was not sent.
    let channels: [String]?
    let numbers: SourceNumbers
    let zone: String?
    let keepNew: Bool
    /// Whether to fetch its listings at once.
    let refresh: Bool

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: 200, called: "The name") ?? ""
        format = try form.choice("format", called: "The format")
        location = try form.text("location", limit: 4096, called: "The location")
        channels = try form.typed("channels", limit: 1_000_000, called: "The channels").map(SourcePages.list)
        numbers = try SourceNumbers(form)
        zone = try form.text("zone", limit: 64, called: "The zone")
        keepNew = form.isTicked("keepNew")
        refresh = form.isTicked("refresh")
    }

    /// The source the form names, if it names one.
    var named: SourceName? { name.isEmpty ? nil : SourceName(name) }
}

/// A source's priority, interval (hours), shift (minutes) and days, each within its range.
struct SourceNumbers: Sendable {
    let priority: Int?
    let intervalHours: Double?
    let shiftMinutes: Int?
    let days: Int?

    init(_ form: FormFields) throws(FieldError) {
        priority = try form.integer("priority", in: SourceDefinition.priorityRange, called: "The priority")
        intervalHours = try form.decimal("interval", in: SourceDefinition.refreshHoursRange, called: "The interval (hours)")
        shiftMinutes = try form.integer("shift", in: SourceDefinition.timeShiftMinutesRange, called: "The shift (minutes)")
        days = try form.integer("days", in: SourceDefinition.daysRange, called: "Days")
    }

    /// Sets what the form sent; a number left out keeps the definition's value.
    func apply(to definition: inout SourceDefinition) {
        if let priority { definition.priority = priority }
        if let seconds = intervalHours.flatMap(SourceDefinition.refreshInterval(hours:)) { definition.refreshInterval = seconds }
        if let shiftMinutes { definition.timeShift = shiftMinutes * 60 }
        if let days { definition.days = days }
    }
}
