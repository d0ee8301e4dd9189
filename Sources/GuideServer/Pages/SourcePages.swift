import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import Hummingbird

/// The admin's pages for listings sources: `/admin/sources` (list, add, refresh now with live progress),
/// `/admin/source?name=` (edit, remove, choose and map its channels) and `/admin/health` (per source and per
/// channel). Everything here is for admin profiles; forms carry the form token like every other.
struct SourcePages: Sendable {
    let site: Site
    /// Refreshes the configured sources on demand; the progress streams open now (``RefreshEvents``).
    let scheduler: RefreshScheduler
    let refreshWatchers: OpenSlots
    /// What a playlist offers is checked against the outbound policy before it is offered.
    let outbound: PolicedTransport

    /// Channels per page of a source's channel list: a page's choices post well under the 64 KB form limit.
    static let channelsPerPage = 100
    struct ListModel {
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
        routes.admin.get("admin/sources") { request, context in try await listPage(request, context) }
        routes.admin.post("admin/sources") { request, context in try await addSource(request, context) }
        routes.admin.get("admin/source") { request, context in
            let query = request.uri.queryParameters
            return try await editPage(request, context, name: query.get("name") ?? "", view: ChannelView(query: { query.get($0) }))
        }
        routes.admin.post("admin/source") { request, context in try await saveSource(request, context) }
        routes.admin.post("admin/source/remove") { request, context in try await removeSource(request, context) }
        routes.admin.post("admin/source/channels") { request, context in try await saveChannels(request, context) }
        routes.admin.post("admin/refresh") { request, context in try await refreshNow(request, context) }
        routes.admin.get("admin/refresh/events") { request, context in
            return try RefreshEvents.response(scheduler, slots: refreshWatchers, client: site.clientAddress(request, context))
        }
        routes.admin.get("admin/health") { request, context in try await healthPage(request, context) }
    }

    // MARK: The list

    func listPage(_ request: Request, _ context: AdminRequestContext, message: String? = nil, isError: Bool = false,
                  status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let site = self.site
        let clock = site.clock(context)
        let instant = site.settings.now()
        let statuses = try await site.store.sources()
        let busy = try await scheduler.refreshing()
        let model = await ListModel(
            chrome: site.chrome(context, section: "admin"), title: "Sources", message: message, isError: isError,
            sources: statuses.map { Self.entry($0, clock: clock, now: instant, refreshing: busy) },
            formats: Self.formats(selected: .xmltv),
            progress: scheduler.latest.map(Self.describe) ?? "No refresh has run since the server started.")
        return try site.page("sources", model, status: status)
    }

    func addSource(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await site.form(request, context)
        let name = form["name"] ?? ""
        var definition = SourceDefinition(name: SourceName(name), format: SourceFormat(rawValue: form["format"] ?? "") ?? .xmltv,
                                          location: form["location"] ?? "")
        if let channels = form["channels"] { definition.channels = Self.list(channels) }
        do {
            try Self.applyNumbers(form, to: &definition)
            let site = self.site
            if let problem = definition.problem { throw StoreError(.invalid, problem) }
            try await site.store.addSource(definition)
        } catch let error as StoreError {
            return try await listPage(request, context, message: "Could not add \(name): \(error.message)", isError: true, status: .badRequest)
        } catch let error as FieldError {
            return try await listPage(request, context, message: "Could not add \(name): \(error.message)", isError: true, status: .badRequest)
        }
        if form["refresh"] != nil, (try? await scheduler.start([definition.name])) != nil {
            return try await listPage(request, context, message: "Added \(name); fetching its listings now (progress below).")
        }
        return try await listPage(request, context, message: "Added \(name). Refresh it to fetch its listings, then choose its channels.")
    }

    func refreshNow(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await site.form(request, context)
        let names = form["name"].map { [SourceName($0)] }
        do {
            let started = try await scheduler.start(names)
            if started.isEmpty {
                let sources = try await site.store.sources()
                return try await listPage(request, context, message: sources.isEmpty ? "There are no sources to refresh: add one below."
                                          : "Already refreshing; its progress is below.")
            }
            return try await listPage(request, context, message: "Refreshing \(started.map(\.rawValue).joined(separator: ", ")); progress below.")
        } catch let error as StoreError {
            return try await listPage(request, context, message: error.message, isError: true, status: .notFound)
        }
    }

    // MARK: Shared

    static func entry(_ status: SourceStatus, clock: ViewerClock, now: Date, refreshing: Set<SourceName>) -> SourceEntry {
        let definition = status.definition
        var schedule = "every \(hours(definition.refreshInterval)) h"
        if definition.timeShift != 0 { schedule += ", times shifted \(definition.timeShift > 0 ? "+" : "")\(definition.timeShift / 60) min" }
        if let zone = definition.localZone { schedule += ", times local to \(zone)" }
        func at(_ date: Date) -> String { "\(clock.date(date)) \(clock.time(date))" }
        var last = "never refreshed"
        if let attempt = status.lastAttempt {
            switch status.lastOutcome {
            case .failed?: last = "\(at(attempt)): failed: \(status.lastError ?? "unknown error")"
                + (status.failuresInRow > 1 ? "; \(status.failuresInRow) failures in a row, retries spaced out" : "")
                + (status.lastSuccess.map { " (last success \(at($0)))" } ?? " (never succeeded)")
            case .unchanged?: last = "\(at(attempt)): unchanged since the last download"
            default: last = "\(at(attempt)): \(status.lastProgrammes) programmes, \(megabytes(status.lastBytes)), "
                + "\(status.lastRepairs) repair\(status.lastRepairs == 1 ? "" : "s"), \(String(format: "%.1f", status.lastDuration)) s"
            }
        }
        if let since = status.unfinishedSince, !refreshing.contains(definition.name) {
            last = "\(at(since)): started and never finished (tvguide stopped during it, or another instance is refreshing it); "
                + "counted as a failure, retried later. Before: " + last
        }
        let due = status.nextDue
        return SourceEntry(
            name: definition.name.rawValue, link: ChannelView().link(definition.name.rawValue, page: 1),
            format: label(definition.format), location: definition.location, priority: definition.priority,
            schedule: schedule, lastRefresh: last,
            isFailed: status.lastOutcome == .failed || (status.unfinishedSince != nil && !refreshing.contains(definition.name)),
            holds: "\(status.programmes) programmes" + (status.hidden > 0 ? " (\(status.hidden) behind higher-priority sources)" : ""),
            nextDue: refreshing.contains(definition.name) ? "refreshing now" : due <= now ? "due now" : at(due))
    }

    /// One line for a refresh's progress, for the page before its script takes over.
    static func describe(_ progress: RefreshProgress) -> String {
        let names = progress.sources.map { "\($0.name) \($0.phase.rawValue)" }.joined(separator: ", ")
        return (progress.isFinished ? "Last refresh: " : "Refreshing: ")
            + "\(progress.downloadsDone) of \(progress.downloadsTotal) downloads done; \(names)."
    }

    static func formats(selected: SourceFormat) -> [Choice] {
        SourceFormat.allCases.map { Choice(value: $0.rawValue, label: label($0), isSelected: $0 == selected) }
    }

    static func label(_ format: SourceFormat) -> String {
        switch format {
        case .xmltv: "XMLTV (file or URL, plain or gzip)"
        case .radiotimes: "Radio Times (per-channel URLs)"
        case .tvmaze: "TVmaze country schedule"
        case .m3u: "M3U playlist (channel numbers, logos, groups, streams)"
        }
    }

    static func hours(_ seconds: Int) -> String {
        seconds % 3600 == 0 ? String(seconds / 3600) : String(format: "%.2f", Double(seconds) / 3600)
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    /// The form's priority, interval (hours), shift (minutes) and days, each within its range; a field left out
    /// keeps the definition's value.
    static func applyNumbers(_ form: FormFields, to definition: inout SourceDefinition) throws(FieldError) {
        if let priority = try form.integer("priority", in: SourceDefinition.priorityRange, label: "The priority") {
            definition.priority = priority
        }
        if let hours = try form.decimal("interval", in: SourceDefinition.refreshHoursRange, label: "The interval (hours)"),
           let seconds = SourceDefinition.refreshInterval(hours: hours) {
            definition.refreshInterval = seconds
        }
        if let minutes = try form.integer("shift", in: SourceDefinition.timeShiftMinutesRange, label: "The shift (minutes)") {
            definition.timeShift = minutes * 60
        }
        if let days = try form.integer("days", in: SourceDefinition.daysRange, label: "Days") { definition.days = days }
    }

    static func list(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
