import Foundation
import GuideCore
import GuideIngest
import GuideStore
import GuideWebFormats
import Hummingbird

/// A source's channels on its page: which to keep, where each goes, and the review queue: the channels the matcher
/// was not sure of, each with its ranked suggestions, accepted or corrected in one press (a button, so the keyboard
/// too: the first waiting suggestion has the focus, and Enter accepts it).
extension SourcePages {
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
            [("all", words("All")), ("kept", words("Kept")), ("dropped", words("Dropped")), ("review", words("To review")),
             ("matched", words("Matched by the matcher")), ("mapped", words("Mapped"))].map { (value: $0.0, label: $0.1) }
        }

        func includes(_ channel: SourceChannel) -> Bool {
            switch show {
            case "kept": if !channel.keep { return false }
            case "dropped": if channel.keep { return false }
            case "review": if !channel.awaitsReview { return false }
            case "matched": if channel.chosenBy != .matcher { return false }
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

    /// One of the matcher's suggestions for a channel waiting for a person.
    struct CandidateEntry {
        var channel: String
        var name: String
        /// "97.1%".
        var sure: String
        var why: String
        /// The first waiting suggestion on the page: it has the focus.
        var focus: Bool
    }

    /// The page's row for `channel`: its suggestions when it waits for a person, or who chose where it goes.
    static func entry(_ channel: SourceChannel, guideNames: [ChannelID: String], words: Localizer, clock: ViewerClock,
                      focusFirst: inout Bool) -> ChannelEntry {
        var candidates: [CandidateEntry] = []
        for candidate in channel.awaitsReview ? channel.candidates.prefix(3) : [] {
            candidates.append(CandidateEntry(channel: candidate.channel.rawValue, name: guideNames[candidate.channel] ?? candidate.channel.rawValue,
                                             sure: words.percent(candidate.confidence), why: candidate.why.joined(separator: "; "), focus: focusFirst))
            focusFirst = false
        }
        let chosen: String? = switch channel.chosenBy {
        case .matcher: words("matched, {sure} sure: {why}", ["sure": words.percent(channel.candidates.first?.confidence ?? 1),
                                                               "why": channel.candidates.first?.why.joined(separator: "; ") ?? ""])
        case .person: channel.mappedTo == nil ? nil : words("chosen by a person")
        case nil: nil
        }
        return ChannelEntry(id: channel.id.rawValue, name: channel.name, keep: channel.keep, mappedTo: channel.mappedTo?.rawValue ?? "",
                            candidates: candidates, chosen: chosen,
                            seen: channel.lastSeen.map { words.moment($0, clock) } ?? words("named by an admin"))
    }

    /// Saves the keep and map choices for the channels of one page of the list; a suggestion accepted or picked, or a
    /// mapping typed, is a person's choice, which the matcher never replaces. "Match again" runs the matcher first.
    func saveChannels(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await SourceChannelsForm(request, context)
        let name = form.name
        let view = form.view
        let source = SourceName(name)
        let words = pages.words(context)
        do {
            if form.match {
                let entries = try await SourceMatching(store: store).match(source, apply: true)
                try await TimeshiftChannels(store: store).rebuild()
                let waiting = entries.filter(\.waitsForPerson).count
                return try await editPage(request, context, name: name, view: view, message: words(
                    "Matched {count} channels: {applied} applied, {waiting} to review. The guide follows at the source's next refresh.",
                    ["count": words.number(entries.count), "applied": words.number(entries.filter(\.applied).count), "waiting": words.number(waiting)]))
            }
            let onPage = Set(form.onPage)
            let channels = try await store.sourceChannels(of: source).filter { onPage.contains($0.id.rawValue) || form.picks[$0.id.rawValue] != nil }
            let known = Set(try await store.channels().map(\.id))
            var changed: [SourceChannel] = []
            for var channel in channels {
                let before = channel
                if onPage.contains(channel.id.rawValue) {
                    channel.keep = form.kept.contains(channel.id.rawValue)
                    channel.mappedTo = form.mappings[channel.id.rawValue]
                }
                if channel.mappedTo == nil, form.acceptAll || form.accept == channel.id.rawValue, channel.awaitsReview,
                   let suggestion = channel.candidates.first {
                    (channel.mappedTo, channel.keep) = (suggestion.channel, true)
                }
                if let picked = form.picks[channel.id.rawValue] {
                    // "None of these": it stays itself, and leaves the queue.
                    (channel.mappedTo, channel.chosenBy) = (picked, .person)
                    if picked != nil { channel.keep = true }
                }
                if let target = channel.mappedTo, target == channel.id {
                    channel.mappedTo = nil
                } else if let target = channel.mappedTo, !known.contains(target) {
                    throw StoreError(.invalid, words("{target} is not a guide channel: map {channel} to one listed in the guide",
                                                     ["target": target.rawValue, "channel": channel.name]))
                }
                if channel.mappedTo != before.mappedTo { channel.chosenBy = .person }
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
}

/// Admin, one page of a source's channels: the channels on the page (`id`), those kept (`keep`), each one's mapping
/// (`map.ID`: a guide channel), the first suggestion accepted (`accept`) or all of them (`acceptAll`), one suggestion
/// picked (`pick.ID`: a guide channel, or blank for none of them), the matcher run again (`match`), and the view to go
/// back to.
struct SourceChannelsForm: PostedForm {
    let name: String
    let view: SourcePages.ChannelView
    let onPage: [String]
    let kept: [String]
    let accept: String?
    let acceptAll: Bool
    let match: Bool
    /// Each channel's mapping (`map.ID`) that is not blank, by the channel's id.
    let mappings: [String: ChannelID]
    /// A suggestion picked (`pick.ID`): the guide channel, or nil for none of them.
    let picks: [String: ChannelID?]

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: 200, called: "The name") ?? ""
        view = SourcePages.ChannelView(query: { form[$0] })
        onPage = try form.list("id", count: SourcePages.channelsPerPage, limit: 200)
        kept = try form.list("keep", count: SourcePages.channelsPerPage, limit: 200)
        accept = try form.text("accept", limit: 200, called: "The suggestion")
        acceptAll = form.isTicked("acceptAll")
        match = form.isTicked("match")
        mappings = try Self.fields(form, prefix: "map.").compactMapValues { $0 }
        picks = try Self.fields(form, prefix: "pick.")
    }

    /// The fields named `prefix` + a channel's id, by the id: at most a page of them, nil where blank.
    static func fields(_ form: FormFields, prefix: String) throws(FieldError) -> [String: ChannelID?] {
        var found: [String: ChannelID?] = [:]
        for (field, _) in form.values where field.hasPrefix(prefix) && found[String(field.dropFirst(prefix.count))] == nil {
            guard found.count < SourcePages.channelsPerPage else {
                throw FieldError(name: field, saying: "A page maps at most {count} channels", ["count": String(SourcePages.channelsPerPage)])
            }
            found[String(field.dropFirst(prefix.count))] = .some(try form.text(field, limit: 200, called: "The mapping").map { ChannelID($0) })
        }
        return found
    }
}
