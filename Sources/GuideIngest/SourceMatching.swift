import ChannelMatching
import Foundation
import GuideCore
import GuideStore
import GuideThreads

/// Where each of a source's channels goes among the guide's channels (issue 44), found by the one ``ChannelMatcher``:
/// a playlist's entries (by `tvg-id` when the guide has it, else by name), a second listings source's channels. What
/// the matcher is sure of (``sureAt``) is applied; the rest waits for a person with its ranked suggestions. A person's
/// choice is never replaced. Run after each refresh of the source, by `tvguide channels match` and the source's page.
public struct SourceMatching: Sendable {
    public typealias Store = ListingStore & SourceStore & PlaylistStore
    let store: any Store

    /// The confidence at which a match is applied without a person (``channelMatchSureAt``).
    public static let sureAt = channelMatchSureAt
    /// A playlist's entries matched at most (the rest keep their `tvg-id` or exact names).
    public static let mostEntries = 200_000

    public init(store: any Store) {
        self.store = store
    }

    /// One channel of the source, as matched (the shape `tvguide channels match --json` prints).
    public struct Entry: Codable, Sendable, Equatable {
        /// The source's id for the channel.
        public var id: String
        /// A playlist entry's stream address; nil for a listings source's channel.
        public var stream: String?
        public var name: String
        /// The guide channel it goes to (chosen by a person, applied by the matcher, or the same id); nil while nobody
        /// knows.
        public var channel: String?
        /// How sure the choice is: 1 for a person's or the same id, else the matcher's confidence in its best suggestion.
        public var confidence: Double
        /// Whether it was (or with `--apply` would be) applied without a person.
        public var applied: Bool
        /// "person" or "matcher" once either chose.
        public var chosenBy: String?
        public var candidates: [Candidate]

        /// Whether it waits for a person: nobody chose, and the matcher has suggestions it is not sure of.
        public var waitsForPerson: Bool { chosenBy == nil && channel == nil && !candidates.isEmpty }

        public struct Candidate: Codable, Sendable, Equatable {
            public var channel: String
            public var confidence: Double
            public var why: String
        }
    }

    /// Matches `source`'s channels against the guide's other channels; with `apply`, keeps the suggestions and applies
    /// what the matcher is sure of (``StoreError/Code/notFound`` for an unknown source). `onlyNew` (a refresh) looks
    /// only at channels nobody chose and the matcher found nothing for yet: a 100,000-entry playlist is not matched
    /// again at each refresh ("Match again" and `tvguide channels match` look at them all).
    public func match(_ source: SourceName, apply: Bool, onlyNew: Bool = false) async throws -> [Entry] {
        let sources = try await store.sources(counting: false)
        guard let definition = sources.first(where: { $0.definition.name == source })?.definition else {
            throw StoreError(.notFound, saying: "there is no source called {name}; `tvguide sources list` shows them", ["name": source.rawValue])
        }
        let isPlaylist = definition.format == .m3u
        let channels = try await store.sourceChannels(of: source)
        // A listings source's own channels are in the guide because it made them: never a candidate, unless another
        // source offers the same id (then it is one channel already).
        var offeredElsewhere = Set<ChannelID>(), read: [SourceName: [SourceChannel]] = [:]
        for other in sources where other.definition.name != source && other.definition.format != .m3u {
            read[other.definition.name] = try await store.sourceChannels(of: other.definition.name)
            offeredElsewhere.formUnion(read[other.definition.name]?.map(\.guideChannel) ?? [])
        }
        let own = isPlaylist ? Set<ChannelID>() : Set(channels.map(\.id)).subtracting(offeredElsewhere)
        let guide = try await store.channels().filter { !own.contains($0.id) }
        let ids = Set(guide.map(\.id))
        var entries: [ChannelID: PlaylistEntry] = [:]
        if isPlaylist {
            for entry in try await store.playlistEntries(of: source, limit: Self.mostEntries) where entries[entry.offeredID] == nil {
                entries[entry.offeredID] = entry
            }
        }
        let looked = channels.filter {
            $0.chosenBy != .person && !ids.contains($0.id) && (!onlyNew || ($0.chosenBy == nil && $0.mappedTo == nil && $0.candidates.isEmpty))
        }
        // What the guide already has mapped: the names people mapped in other sources, and to what (other playlists
        // read only when there is something to match: a refresh with nothing new reads none).
        var mapped: [String: Set<ChannelID>] = [:]
        if !looked.isEmpty {
            for other in sources where other.definition.name != source {
                let theirs = if let kept = read[other.definition.name] { kept } else { try await store.sourceChannels(of: other.definition.name) }
                for channel in theirs where channel.chosenBy == .person {
                    if let target = channel.mappedTo { mapped[Self.nameKey(channel.name), default: []].insert(target) }
                }
            }
        }
        let queries = looked.map { channel in
            let entry = entries[channel.id]
            return (id: channel.id, name: entry?.guideName ?? entry?.name ?? channel.name, country: Self.country(of: entry),
                    groups: Array((entry?.groups ?? []).prefix(4)), number: entry?.number)
        }
        let matchable = guide.map { MatchableChannel(id: $0.id.rawValue, names: $0.displayNames.map(\.text), number: $0.number) }
        // Indexing a guide and matching a playlist take seconds: on a thread of their own, never a request's. A guide
        // with no channel but the source's own suggests nothing for any (a single source's refresh: 10,000 names were
        // folded for nothing, 0.2 s).
        let found = matchable.isEmpty ? Dictionary(queries.map { ($0.id, [ChannelCandidate]()) }, uniquingKeysWith: { first, _ in first })
            : queries.isEmpty ? [:] : try await BlockingWork.run("channel-matching") { [mapped] () -> [ChannelID: [ChannelCandidate]] in
            let matcher = ChannelMatcher(matchable)
            var found: [ChannelID: [ChannelCandidate]] = [:]
            for (id, name, said, groups, number) in queries {
                // The country the entry says, else the one its group is ("UK", "Deutschland").
                let country = said ?? groups.lazy.compactMap(matcher.country(named:)).first
                let suggested = matcher.suggestions(for: name, country: country, number: number, limit: ChannelCandidate.most).map {
                    ChannelCandidate(channel: ChannelID($0.channel), confidence: ($0.confidence * 1000).rounded() / 1000, why: $0.why)
                }
                found[id] = Self.withMapped(mapped[Self.nameKey(name)], named: name, among: ids, suggested)
            }
            return found
        }
        var records: [ChannelMatchRecord] = []
        let result = channels.map { channel -> Entry in
            var candidates = found[channel.id] ?? channel.candidates
            if ids.contains(channel.id) { candidates = [ChannelCandidate(channel: channel.id, confidence: 1, why: ["same id"])] }
            let sure = candidates.first.flatMap { $0.confidence >= Self.sureAt ? $0.channel : nil }
            if let fresh = found[channel.id], fresh != channel.candidates || (sure != nil && channel.mappedTo != sure && channel.chosenBy != .person) {
                records.append(ChannelMatchRecord(channel: channel.id, candidates: fresh, applied: sure))
            }
            let chosen: ChannelID?, confidence: Double
            switch channel.chosenBy {
            case .person: (chosen, confidence) = (channel.mappedTo ?? (ids.contains(channel.id) ? channel.id : nil), 1)
            case .matcher, nil:
                chosen = ids.contains(channel.id) ? channel.id : sure ?? (channel.chosenBy == .matcher ? channel.mappedTo : nil)
                confidence = candidates.first?.confidence ?? 0
            }
            return Entry(id: channel.id.rawValue, stream: entries[channel.id]?.stream, name: channel.name, channel: chosen?.rawValue,
                         confidence: confidence, applied: channel.chosenBy != .person && sure != nil, chosenBy: channel.chosenBy?.rawValue,
                         candidates: candidates.map { Entry.Candidate(channel: $0.channel.rawValue, confidence: $0.confidence, why: $0.why.joined(separator: "; ")) })
        }
        if apply, !records.isEmpty { try await store.recordMatches(records, of: source) }
        return result
    }

    /// How sure a match is that a person made under the same name in another source: sure enough to apply, a rule
    /// rather than a measured figure (the development set has no mappings of people to learn from).
    static let mappedConfidence = 0.99

    /// `suggested` with the channel a person mapped `name` to in another source first, when they mapped it to one
    /// channel of the guide (two different choices for one name say nothing).
    static func withMapped(_ targets: Set<ChannelID>?, named name: String, among ids: Set<ChannelID>,
                           _ suggested: [ChannelCandidate]) -> [ChannelCandidate] {
        guard let targets, targets.count == 1, let target = targets.first, ids.contains(target) else { return suggested }
        let matcher = suggested.first { $0.channel == target }
        let evidence = ["mapped by a person as “\(name.prefix(60))” in another source"] + (matcher?.why ?? [])
        let first = ChannelCandidate(channel: target, confidence: max(matcher?.confidence ?? 0, mappedConfidence), why: evidence)
        return Array(([first] + suggested.filter { $0.channel != target }).prefix(ChannelCandidate.most))
    }

    /// A name as names mapped in other sources are looked up: folded, its words joined by one space.
    static func nameKey(_ name: String) -> String {
        SearchText.fold(String(name.prefix(300))).split { !$0.isLetter && !$0.isNumber }.joined(separator: " ")
    }

    /// The country a playlist entry names (`tvg-country`, two letters), for the matcher to prefer that country's channels.
    static func country(of entry: PlaylistEntry?) -> String? {
        guard let said = entry?.attributes["tvg-country"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased(),
              said.count == 2, said.allSatisfy(\.isLetter) else { return nil }
        return said == "gb" ? "uk" : said
    }
}
