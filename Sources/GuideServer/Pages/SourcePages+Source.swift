import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/admin/source?name=`: one source's settings, removal, and its channels to keep and map.
extension SourcePages {
    struct EditModel: PageModel {
        var chrome: Chrome
        var title: String
        var message: String?
        var isError: Bool
        var name: String
        var link: String
        var location: String
        var formats: [Choice]
        var priority: Int
        var intervalHours: String
        var shiftMinutes: Int
        var zones: [Choice]
        var keepNewChannels: Bool
        var channelList: String
        var days: Int
        var isRadioTimes: Bool
        /// TVmaze and grabbers fetch a number of days.
        var hasDays: Bool
        /// A grabber source's configuration page.
        var grabberLink: String?
        /// A playlist's `x-tvg-url` guides, each offered as an XMLTV source to add.
        var guides: [GuideOffer]
        var filter: String
        var shows: [Choice]
        var show: String
        var page: Int
        var channels: [ChannelEntry]
        var summary: String
        var guideChannels: [GuideChannelEntry]
        var suggestionCount: Int
        var hasSuggestions: Bool
        /// Whether the matcher may run on this source (a playlist or a listings source).
        var canMatch: Bool
        var previousPage: String?
        var nextPage: String?
    }

    struct ChannelEntry {
        var id: String
        var name: String
        var keep: Bool
        var mappedTo: String
        /// The matcher's suggestions, best first, while it waits for a person.
        var candidates: [CandidateEntry]
        /// Who chose where it goes, when a person or the matcher did: "matched, 98% sure: same name".
        var chosen: String?
        var seen: String
    }

    struct GuideChannelEntry {
        var id: String
        var name: String
    }

    func editPage(_ request: Request, _ context: AdminRequestContext, name: String, view: ChannelView, message: String? = nil,
                  isError: Bool = false, status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let (clock, words) = (settings.clock(context), pages.words(context))
        let source = SourceName(name)
        guard let found = try await store.sources().first(where: { $0.definition.name == source }) else {
            throw Refusal(.notFound, saying: "There is no source called {name}.", ["name": name])
        }
        let channels = try await store.sourceChannels(of: source)
        let guide = try await store.channels()
        let definition = found.definition
        let guideNames = Dictionary(guide.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let shown = channels.filter { view.includes($0) }
            .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
        let pageCount = max(1, (shown.count + Self.channelsPerPage - 1) / Self.channelsPerPage)
        let page = min(view.page, pageCount)
        let onPage = shown.dropFirst((page - 1) * Self.channelsPerPage).prefix(Self.channelsPerPage)
        let kept = channels.filter(\.keep).count
        var focusFirst = true
        let rows = onPage.map { Self.entry($0, guideNames: guideNames, words: words, clock: clock, focusFirst: &focusFirst) }
        let model = await EditModel(
            chrome: pages.chrome(context, section: "admin"), title: words("Source {name}", ["name": name]), message: message, isError: isError,
            name: name, link: view.link(name, page: 1), location: definition.location,
            formats: Self.formats(selected: definition.format, words), priority: definition.priority,
            intervalHours: Self.hours(definition.refreshInterval), shiftMinutes: definition.timeShift / 60,
            zones: [Choice(value: "", label: words("As the source states them"), isSelected: definition.localZone == nil)]
                + TimeZone.knownTimeZoneIdentifiers.sorted().map { Choice(value: $0, label: $0, isSelected: $0 == definition.localZone) },
            keepNewChannels: definition.keepNewChannels, channelList: definition.channels.joined(separator: ","),
            days: definition.days, isRadioTimes: definition.format == .radiotimes,
            hasDays: [.tvmaze, .grabber, .hdhomerun].contains(definition.format),
            grabberLink: definition.format == .grabber ? SitePath.grabber(query: "name=" + SitePath.encoded(name)) : nil,
            guides: try await Self.guides(of: definition, in: store, outbound: outbound),
            filter: view.filter,
            shows: ChannelView.shows(words).map { Choice(value: $0.value, label: $0.label, isSelected: $0.value == view.show) },
            show: view.show, page: page,
            channels: rows,
            summary: channels.isEmpty ? words("No channels yet: refresh the source and the channels it offers appear here.")
                : words.plural("{count} channel offered, {kept} kept; the matcher mapped {matched}, {review} wait for review.",
                               "{count} channels offered, {kept} kept; the matcher mapped {matched}, {review} wait for review.",
                               count: channels.count, ["kept": words.number(kept), "matched": words.number(channels.filter { $0.chosenBy == .matcher }.count),
                                                       "review": words.number(channels.filter(\.awaitsReview).count)])
                    + (shown.count == channels.count ? "" : " " + words.plural("{count} matches.", "{count} match.", count: shown.count)),
            guideChannels: guide.map { GuideChannelEntry(id: $0.id.rawValue, name: $0.name) },
            suggestionCount: onPage.filter(\.awaitsReview).count,
            hasSuggestions: onPage.contains(where: \.awaitsReview), canMatch: ![.tvmaze, .schedulesdirect].contains(definition.format),
            previousPage: page > 1 ? view.link(name, page: page - 1) : nil,
            nextPage: page < pageCount ? view.link(name, page: page + 1) : nil)
        return try pages.page("source", model, status: status)
    }

    func saveSource(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await SourceForm(request, context)
        let words = pages.words(context)
        let name = form.name
        do {
            guard var definition = try await store.sources().first(where: { $0.definition.name.rawValue == name })?.definition else {
                throw StoreError(.notFound, saying: "there is no source called {name}", ["name": name])
            }
            if let location = form.location { definition.location = location }
            if let format = form.format { definition.format = format }
            if form.numbers.shiftMinutes == nil { definition.timeShift = 0 }
            form.numbers.apply(to: &definition)
            definition.localZone = form.zone
            definition.keepNewChannels = form.keepNew
            if let channels = form.channels { definition.channels = channels }
            if let problem = definition.problem { throw StoreError(.invalid, problem) }
            try await store.updateSource(definition)
        } catch let error as StoreError {
            let status: HTTPResponse.Status = error.code == .notFound ? .notFound : .badRequest
            if error.code == .notFound { throw Refusal(status, saying: "There is no source called {name}.", ["name": name]) }
            return try await editPage(request, context, name: name, view: ChannelView(), message: words("Not saved: {error}", ["error": error.message(words)]),
                                      isError: true, status: status)
        }
        return try await editPage(request, context, name: name, view: ChannelView(), message: words("Saved. The next refresh uses the new settings."))
    }

    func removeSource(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let name = try await SourceForm(request, context).name
        let words = pages.words(context)
        do {
            let removed = try await store.removeSource(SourceName(name))
            return try await listPage(request, context, message: words.plural(
                "Removed {name} and its {count} programme; what other sources list for those channels shows again.",
                "Removed {name} and its {count} programmes; what other sources list for those channels shows again.", count: removed, ["name": name]))
        } catch let error as StoreError {
            return try await listPage(request, context, message: words("Could not remove {name}: {error}", ["name": name, "error": error.message(words)]),
                                      isError: true, status: .notFound)
        }
    }

    /// An XMLTV guide a playlist's header names (`x-tvg-url`, `url-tvg`), as an admin can add it.
    struct GuideOffer {
        var location: String
        var name: String
        /// Whether a source reads it already.
        var isAdded: Bool
    }

    /// The first 20 guides the playlist `definition` named on its last refresh that are http(s) addresses the outbound
    /// policy allows (a playlist is somebody else's file: never a path on this server, another scheme, or an address
    /// inside the network); none for other sources.
    static func guides(of definition: SourceDefinition, in store: any PlaylistStore & SourceStore, outbound: PolicedTransport) async throws -> [GuideOffer] {
        guard definition.format == .m3u, let header = try await store.playlistHeader(of: definition.name) else { return [] }
        let locations = Set(try await store.sources().map(\.definition.location))
        var offers: [GuideOffer] = []
        for location in header.guideURLs.prefix(20) {
            guard location.utf8.count <= 2048, let url = URL(string: location), await outbound.offers(url) else { continue }
            offers.append(GuideOffer(location: location, name: String(SourceName(location: location).rawValue.prefix(100)),
                                     isAdded: locations.contains(location)))
        }
        return offers
    }
}
