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
        var previousPage: String?
        var nextPage: String?
    }

    struct ChannelEntry {
        var id: String
        var name: String
        var keep: Bool
        var mappedTo: String
        var suggestion: String?
        var suggestionName: String?
        var seen: String
    }

    struct GuideChannelEntry {
        var id: String
        var name: String
    }

    /// Which of a source's channels the edit page lists.
    struct ChannelView {
        var filter = ""
        var show = "all"
        var page = 1

        init(filter: String = "", show: String = "all", page: Int = 1) {
            self.filter = filter
            self.show = show
            self.page = page
        }

        init(query: (String) -> String?) {
            filter = query("q")?.trimmingCharacters(in: .whitespaces) ?? ""
            show = query("show").flatMap { Self.shows(.english).map(\.value).contains($0) ? $0 : nil } ?? "all"
            page = query("page").flatMap { Bounded.integer($0, in: 1...100_000) } ?? 1
        }

        static func shows(_ words: Localizer) -> [(value: String, label: String)] {
            [("all", words("All")), ("kept", words("Kept")), ("dropped", words("Dropped")), ("suggested", words("With a suggestion")),
             ("mapped", words("Mapped"))].map { (value: $0.0, label: $0.1) }
        }

        func includes(_ channel: SourceChannel, suggestion: ChannelID?) -> Bool {
            switch show {
            case "kept": if !channel.keep { return false }
            case "dropped": if channel.keep { return false }
            case "suggested": if suggestion == nil { return false }
            case "mapped": if channel.mappedTo == nil { return false }
            default: break
            }
            guard !filter.isEmpty else { return true }
            let folded = SearchText.fold(filter)
            return SearchText.fold(channel.name).contains(folded) || channel.id.rawValue.lowercased().contains(filter.lowercased())
        }

        func link(_ name: String, page: Int) -> String {
            var items = [URLQueryItem(name: "name", value: name)]
            if !filter.isEmpty { items.append(URLQueryItem(name: "q", value: filter)) }
            if show != "all" { items.append(URLQueryItem(name: "show", value: show)) }
            if page > 1 { items.append(URLQueryItem(name: "page", value: String(page))) }
            var components = URLComponents()
            components.path = SitePath.source()
            components.queryItems = items
            return components.string ?? SitePath.source()
        }
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
        let suggestions = SourceChannel.suggestions(for: channels, guide: guide)
        let guideNames = Dictionary(guide.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let shown = channels.filter { view.includes($0, suggestion: suggestions[$0.id]) }
            .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
        let pageCount = max(1, (shown.count + Self.channelsPerPage - 1) / Self.channelsPerPage)
        let page = min(view.page, pageCount)
        let onPage = shown.dropFirst((page - 1) * Self.channelsPerPage).prefix(Self.channelsPerPage)
        let kept = channels.filter(\.keep).count
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
            channels: onPage.map { channel in
                let suggestion = suggestions[channel.id]
                return ChannelEntry(id: channel.id.rawValue, name: channel.name, keep: channel.keep,
                                    mappedTo: channel.mappedTo?.rawValue ?? "", suggestion: suggestion?.rawValue,
                                    suggestionName: suggestion.flatMap { guideNames[$0] },
                                    seen: channel.lastSeen.map { words.moment($0, clock) }
                                        ?? words("named by an admin"))
            },
            summary: channels.isEmpty ? words("No channels yet: refresh the source and the channels it offers appear here.")
                : words.plural("{count} channel offered, {kept} kept; {suggested} could be mapped to a guide channel of the same name.",
                               "{count} channels offered, {kept} kept; {suggested} could be mapped to a guide channel of the same name.",
                               count: channels.count, ["kept": words.number(kept), "suggested": words.number(suggestions.count)])
                    + (shown.count == channels.count ? "" : " " + words.plural("{count} matches.", "{count} match.", count: shown.count)),
            guideChannels: guide.map { GuideChannelEntry(id: $0.id.rawValue, name: $0.name) },
            suggestionCount: onPage.filter { suggestions[$0.id] != nil }.count,
            hasSuggestions: onPage.contains { suggestions[$0.id] != nil },
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

    /// Saves the keep and map choices for the channels of one page of the list.
    func saveChannels(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await SourceChannelsForm(request, context)
        let name = form.name
        let view = form.view
        let source = SourceName(name)
        let onPage = Set(form.onPage)
        let kept = Set(form.kept)
        let acceptOne = form.accept
        let acceptAll = form.acceptAll
        let words = pages.words(context)
        do {
            let channels = try await store.sourceChannels(of: source).filter { onPage.contains($0.id.rawValue) }
            let guide = try await store.channels()
            let known = Set(guide.map(\.id))
            let suggestions = SourceChannel.suggestions(for: channels, guide: guide)
            var changed: [SourceChannel] = []
            for var channel in channels {
                let before = channel
                channel.keep = kept.contains(channel.id.rawValue)
                channel.mappedTo = form.mappings[channel.id.rawValue]
                if channel.mappedTo == nil, acceptAll || acceptOne == channel.id.rawValue, let suggestion = suggestions[channel.id] {
                    channel.mappedTo = suggestion
                    channel.keep = true
                }
                if let target = channel.mappedTo, target == channel.id {
                    channel.mappedTo = nil
                } else if let target = channel.mappedTo, !known.contains(target) {
                    throw StoreError(.invalid, words("{target} is not a guide channel: map {channel} to one listed in the guide",
                                                     ["target": target.rawValue, "channel": channel.name]))
                }
                if channel != before { changed.append(channel) }
            }
            if !changed.isEmpty {
                try await store.chooseSourceChannels(changed, of: source)
                // A playlist entry kept, dropped or mapped may make or end a timeshift channel (tvg-shift).
                try await TimeshiftChannels(store: store).rebuild()
            }
            let message = changed.isEmpty ? words("Nothing changed.")
                : words.plural("Saved {count} channel. The guide follows at the source's next refresh.",
                               "Saved {count} channels. The guide follows at the source's next refresh.", count: changed.count)
            return try await editPage(request, context, name: name, view: view, message: message)
        } catch let error as StoreError {
            return try await editPage(request, context, name: name, view: view, message: words("Not saved: {error}", ["error": error.message(words)]), isError: true,
                                      status: .badRequest)
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

/// Admin, one page of a source's channels: the channels on the page (`id`), those kept (`keep`), each one's mapping
/// (`map.ID`: a guide channel), a suggestion accepted (`accept`) or all of them (`acceptAll`), and the view to go
/// back to.
struct SourceChannelsForm: PostedForm {
    let name: String
    let view: SourcePages.ChannelView
    let onPage: [String]
    let kept: [String]
    let accept: String?
    let acceptAll: Bool
    /// Each channel's mapping (`map.ID`) that is not blank, by the channel's id.
    let mappings: [String: ChannelID]

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: 200, called: "The name") ?? ""
        view = SourcePages.ChannelView(query: { form[$0] })
        onPage = try form.list("id", count: SourcePages.channelsPerPage, limit: 200)
        kept = try form.list("keep", count: SourcePages.channelsPerPage, limit: 200)
        accept = try form.text("accept", limit: 200, called: "The suggestion")
        acceptAll = form.isTicked("acceptAll")
        var mappings: [String: ChannelID] = [:]
        for (field, _) in form.values where field.hasPrefix("map.") && mappings[String(field.dropFirst(4))] == nil {
            guard mappings.count < SourcePages.channelsPerPage else {
                throw FieldError(name: field, saying: "A page maps at most {count} channels", ["count": String(SourcePages.channelsPerPage)])
            }
            if let target = try form.text(field, limit: 200, called: "The mapping") { mappings[String(field.dropFirst(4))] = ChannelID(target) }
        }
        self.mappings = mappings
    }
}
