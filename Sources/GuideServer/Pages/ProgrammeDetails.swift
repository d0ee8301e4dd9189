import Foundation
import GuideApplication
import GuideCore
import GuideStore
import Mustache

/// Everything the store knows about one airing, worded for the details panel and page.
struct ProgrammeDetails: Sendable {
    struct Line: Sendable {
        var label: String
        var value: String
    }

    struct Airing: Sendable {
        var id: Int64
        var when: String
        var channel: String
        var isPast: Bool
    }

    var id: Int64
    var title: String
    var subTitle: String?
    var episode: String?
    var when: String
    var duration: String
    var isOnNow: Bool
    var channelID: String
    var channelName: String
    var channelNumber: String?
    var channelLogo: String?
    /// The channel's stream, from the playlist describing it, for "Watch" (a player opens it).
    var watch: String?
    var description: String?
    var image: String?
    var genre: String
    var flags: [String]
    var facts: [Line]
    var credits: [Line]
    var airings: [Airing]
    var guideLink: String
    var source: String
    /// Whether "Remind me" is offered: it has not ended (and the template offers it to signed-in viewers).
    var canRemind: Bool
    /// The channel is one of the viewer's favourites (the star shown filled); set by the page for a signed-in viewer.
    var isFavourite = false
    var remindLeads: [Choice]
    /// The episode of a show the viewer follows that this airing is, when the listings number it; set by the page.
    var followedEpisode: FollowedEpisode?
    /// "Record" and what the recorder has of this airing, for a viewer who may record.
    var recording: RecordOffer?

    /// What a viewer who may record sees: the buttons (when a recorder is set up, the channel is matched to one of its
    /// and the airing has not ended) and each request for this airing with its state.
    struct RecordOffer: Sendable {
        struct Request: Sendable {
            var id: Int64
            var label: String
            var state: String
            var words: String
        }

        var canRecord: Bool
        var requests: [Request]
        var returnTo: String

        static func make(_ stored: StoredProgramme, store: any RecordingStore, now: Date, returnTo: String,
                         words: Localizer) async throws -> RecordOffer? {
            guard try await store.recorder() != nil else { return nil }
            let mapped = try await store.recorderChannels()[stored.programme.channel] != nil
            let requests = try await store.recordings(in: TimeWindow(start: stored.programme.start, end: stored.end))
                .filter { $0.what.channel == stored.programme.channel && $0.what.start == stored.programme.start }
                .map { Request(id: $0.id, label: $0.what.series ? words("Series") : words("Recording"), state: $0.state.rawValue,
                               words: RecordingsPage.state($0, words)) }
            return RecordOffer(canRecord: mapped && stored.end > now, requests: requests, returnTo: returnTo)
        }
    }

    /// A followed show's episode, whether the viewer watched it, and the form to mark it.
    struct FollowedEpisode: Sendable {
        var showID: Int
        var episodeID: Int
        var code: String
        var isWatched: Bool
        var watchedOn: String?
        var returnTo: String
    }

    /// - Parameter viewer: the signed-in profile, whose favourites mark the channel (and who may record or not).
    init(_ stored: StoredProgramme, store: any ListingStore & ChannelSettingsStore & RecordingStore, channels snapshot: ChannelDirectory.Snapshot,
         clock: ViewerClock, now: Date, viewer: Profile?, returnTo: String, words: Localizer, languages: [String] = []) async throws {
        self.init(stored, channels: snapshot, clock: clock, now: now,
                  airings: try await Self.otherAirings(of: stored, in: store, channels: snapshot, clock: clock, now: now, words: words),
                  words: words, languages: languages)
        if let viewer { isFavourite = try await store.favourites(of: viewer.id).contains(stored.programme.channel) }
        if viewer?.mayRecord == true { recording = try await RecordOffer.make(stored, store: store, now: now, returnTo: returnTo, words: words) }
    }

    /// The details with `airings` found by the caller (the offline copy finds them among the programmes it keeps).
    init(_ stored: StoredProgramme, channels snapshot: ChannelDirectory.Snapshot, clock: ViewerClock, now: Date, airings: [Airing],
         words: Localizer, languages: [String] = []) {
        let programme = stored.programme
        let channel = snapshot.channel(programme.channel)
        watch = GridRow.safeStream(snapshot.playlist[programme.channel]?.stream)
        id = stored.id.rawValue
        title = programme.title(in: languages)
        subTitle = programme.subTitle(in: languages)
        episode = programme.episodeLabel
        when = words("{date}, {start}–{end}", ["date": clock.date(programme.start), "start": clock.time(programme.start),
                                                "end": clock.time(stored.end)])
        let minutes = Int(stored.end.timeIntervalSince(programme.start) / 60)
        duration = minutes < 60 ? words("{minutes} min", ["minutes": words.number(minutes)])
            : minutes % 60 == 0 ? words("{hours} h", ["hours": words.number(minutes / 60)])
            : words("{hours} h {minutes} min", ["hours": words.number(minutes / 60), "minutes": words.number(minutes % 60)])
        isOnNow = programme.start <= now && now < stored.end
        channelID = programme.channel.rawValue
        channelName = channel?.name ?? programme.channel.rawValue
        channelNumber = channel?.number
        channelLogo = channel.flatMap(ChannelLogos.address)
        description = programme.description(in: languages)
        image = GridRow.safeImage(programme.icons)
        genre = programme.genre.rawValue
        flags = Self.flags(programme, words)
        facts = Self.facts(programme, words)
        credits = Self.credits(programme.credits, words)
        source = stored.source.shown
        guideLink = Self.guideLink(programme, clock: clock)
        self.airings = airings
        canRemind = stored.end > now
        remindLeads = RemindersPage.leadChoices(words)
    }

    static func flags(_ programme: Programme, _ words: Localizer) -> [String] {
        var flags: [String] = []
        if programme.isNew { flags.append(words("New")) }
        if let premiere = programme.premiere { flags.append(premiere.text.isEmpty ? words("Premiere") : premiere.text) }
        if programme.isLastChance { flags.append(words("Last chance")) }
        if programme.isRepeat { flags.append(words("Repeat")) }
        if programme.hasSubtitles { flags.append(words("Subtitles")) }
        if let quality = programme.video?.quality { flags.append(quality) }
        if let aspect = programme.video?.aspect { flags.append(aspect) }
        if let stereo = programme.audio?.stereo { flags.append(stereo.capitalized) }
        return flags
    }

    static func facts(_ programme: Programme, _ words: Localizer) -> [Line] {
        var lines: [Line] = []
        if !programme.categories.isEmpty {
            lines.append(Line(label: words("Categories"), value: programme.categories.map(\.text).joined(separator: ", ")))
        }
        for rating in programme.ratings {
            lines.append(Line(label: words("Rating"), value: [rating.system, rating.value].compactMap { $0 }.joined(separator: " ")))
        }
        for rating in programme.starRatings {
            lines.append(Line(label: words("Stars"), value: rating.value + (rating.system.map { " (\($0))" } ?? "")))
        }
        if let date = programme.date { lines.append(Line(label: words("Year"), value: date)) }
        if !programme.countries.isEmpty {
            lines.append(Line(label: words("Country"), value: programme.countries.map(\.text).joined(separator: ", ")))
        }
        if let language = programme.language { lines.append(Line(label: words("Language"), value: language.text)) }
        if let original = programme.originalLanguage { lines.append(Line(label: words("Original language"), value: original.text)) }
        if let shown = programme.previouslyShown?.start { lines.append(Line(label: words("First shown"), value: shown)) }
        if !programme.keywords.isEmpty {
            lines.append(Line(label: words("Keywords"), value: programme.keywords.map(\.text).joined(separator: ", ")))
        }
        return lines
    }

    static func credits(_ credits: [Credit], _ words: Localizer) -> [Line] {
        Credit.Role.allCases.compactMap { role in
            let people = credits.filter { $0.role == role }
            guard !people.isEmpty else { return nil }
            let names = people.map { person in
                var name = person.name
                if let character = person.character { name = words("{name} ({character})", ["name": name, "character": character]) }
                if person.isGuest { name = words("{name}, guest", ["name": name]) }
                return name
            }
            let label = Self.roleLabel(role, count: people.count, words)
            return Line(label: label, value: names.joined(separator: ", "))
        }
    }

    /// What the details call the people of one role, as many as there are.
    static func roleLabel(_ role: Credit.Role, count: Int, _ words: Localizer) -> String {
        switch role {
        case .actor: words("Cast")
        case .director: words.plural("Director", "Directors", count: count)
        case .writer: words.plural("Writer", "Writers", count: count)
        case .adapter: words.plural("Adapter", "Adapters", count: count)
        case .producer: words.plural("Producer", "Producers", count: count)
        case .composer: words.plural("Composer", "Composers", count: count)
        case .editor: words.plural("Editor", "Editors", count: count)
        case .presenter: words.plural("Presenter", "Presenters", count: count)
        case .commentator: words.plural("Commentator", "Commentators", count: count)
        case .guest: words.plural("Guest", "Guests", count: count)
        }
    }

    /// The same title's other airings in the listings, upcoming first.
    static func otherAirings(of stored: StoredProgramme, in store: any ListingStore, channels snapshot: ChannelDirectory.Snapshot,
                             clock: ViewerClock, now: Date, words: Localizer) async throws -> [Airing] {
        let folded = SearchText.fold(stored.programme.title)
        guard !folded.isEmpty else { return [] }
        let sameTitle = { (found: [StoredProgramme]) in found.filter { SearchText.fold($0.programme.title) == folded } }
        let limit = 500
        let found = try await store.search(SearchQuery([stored.programme.title], scope: .title, limit: limit))
        var matches = sameTitle(found)
        // Cut short by the limit (a title aired 500 times before now), the coming airings are asked for on their own.
        if found.count == limit {
            let upcoming = sameTitle(try await store.search(SearchQuery([stored.programme.title], scope: .title, limit: 100, endingAfter: now)))
            matches = upcoming + matches.filter { $0.end <= now }
        }
        return airings(of: stored, among: matches, channels: snapshot, clock: clock, now: now, words: words)
    }

    /// Of `matches` (the same title's airings, by start), those other than `stored`: upcoming first, then the past
    /// from the latest, 20 at most.
    static func airings(of stored: StoredProgramme, among matches: [StoredProgramme], channels snapshot: ChannelDirectory.Snapshot,
                        clock: ViewerClock, now: Date, words: Localizer) -> [Airing] {
        let others = matches.filter { $0.id != stored.id }
        let upcoming = others.filter { $0.end > now }, past = others.filter { $0.end <= now }
        return (upcoming + past.reversed()).prefix(20).map { airing in
            Airing(id: airing.id.rawValue,
                   when: words("{date}, {time}", ["date": clock.date(airing.programme.start), "time": clock.time(airing.programme.start)]),
                   channel: snapshot.channel(airing.programme.channel)?.name ?? airing.programme.channel.rawValue,
                   isPast: airing.end <= now)
        }
    }

    /// The programme's place in the grid: its day, its channel's row, scrolled to its start.
    static func guideLink(_ programme: Programme, clock: ViewerClock) -> String {
        SitePath.guide(query: "day=\(clock.day(containing: programme.start))&channel=\(SitePath.encoded(programme.channel.rawValue))&at=\(CivilTime.iso8601(programme.start))")
    }
}

// The details are rendered thousands of times for an offline copy; templates read these by name through
// `child(named:)` instead of reflection, which was three quarters of a copy's time (docs/performance.md).
extension ProgrammeDetails: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "title": title
        case "subTitle": subTitle
        case "episode": episode
        case "when": when
        case "duration": duration
        case "isOnNow": isOnNow
        case "channelID": channelID
        case "channelName": channelName
        case "channelNumber": channelNumber
        case "channelLogo": channelLogo
        case "watch": watch
        case "description": description
        case "image": image
        case "genre": genre
        case "flags": flags
        case "facts": facts
        case "credits": credits
        case "airings": airings
        case "guideLink": guideLink
        case "source": source
        case "canRemind": canRemind
        case "remindLeads": remindLeads
        case "isFavourite": isFavourite
        case "followedEpisode": followedEpisode
        case "recording": recording
        default: nil
        }
    }
}

extension ProgrammeDetails.RecordOffer: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "canRecord": canRecord
        case "requests": requests
        case "returnTo": returnTo
        default: nil
        }
    }
}

extension ProgrammeDetails.RecordOffer.Request: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "label": label
        case "state": state
        case "words": words
        default: nil
        }
    }
}

extension ProgrammeDetails.FollowedEpisode: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "showID": showID
        case "episodeID": episodeID
        case "code": code
        case "isWatched": isWatched
        case "watchedOn": watchedOn
        case "returnTo": returnTo
        default: nil
        }
    }
}

extension ProgrammeDetails.Line: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "label": label
        case "value": value
        default: nil
        }
    }
}

extension ProgrammeDetails.Airing: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "when": when
        case "channel": channel
        case "isPast": isPast
        default: nil
        }
    }
}
