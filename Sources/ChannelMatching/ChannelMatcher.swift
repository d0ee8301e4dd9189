import Foundation

/// A channel that can be matched: its id (an XMLTV id: `BBCOne.uk@Scotland`, `WRICTV81.us@HD`), display names, and
/// its number in a lineup (LCN, `4.1`) when it has one.
public struct MatchableChannel: Sendable {
    public var id: String
    public var names: [String]
    public var number: String?

    public init(id: String, names: [String], number: String? = nil) {
        (self.id, self.names, self.number) = (id, names, number)
    }
}

/// The confidence at which a match is acted on without a person: what the matcher applies at 0.971 or above is right
/// 99 times in 100 on the development half of `../shared/data/channelmap` (`scripts/bench`, docs/performance.md).
public let channelMatchSureAt = 0.971

/// A suggestion: the channel, how sure the matcher is (0 to 1), and why, in words ("same call sign WRIC").
public struct ChannelSuggestion: Sendable, Equatable {
    public var channel: String
    public var confidence: Double
    public var why: [String]
    /// The evidence's weight, and (for the best) its lead over the next: what ``confidence`` is made of.
    public var score: Double
    public var margin: Double
}

/// Finds the channel a name means among a guide's channels (issue 44): pure code, no I/O. Evidence, each weighed:
/// the name's words against each of the channel's names and the words of its id (rarer words count more), US and
/// Canadian call signs with their subchannel, the country a playlist's group or the id gives, a timeshift (a +1 never
/// matches its parent), a feed's region or coast named in the id (a Scotland feed never a London one), and HD. Built
/// once for a guide; each match reads only the channels that share a word or a call sign with the name.
public final class ChannelMatcher: Sendable {
    struct Entry: Sendable {
        var id: String
        /// The numbers its names and id say on their own.
        var numbers: Set<String>
        /// Channels that differ only by picture quality (`X.de@SD`, `X.de@HD`; `BBCOne.uk@London`, `@LondonHD`) share it:
        /// the name chooses among such siblings by what it says of HD, never by how alike their names are.
        var sibling: String
        var country: String
        /// The feed after `@`, its words (quality left out), and whether it is an HD feed.
        var feedWords: Set<String>
        var feedIsHD: Bool
        /// Said to be SD (`@SD`): what a name that says nothing of HD means, before a channel whose feed says nothing.
        var feedIsSD: Bool
        /// The feed's words' initials, in order ("ni" for Northern Ireland).
        var feedInitials: String
        var names: [ChannelName]
        var idName: ChannelName
        var shift: Int
        var callSigns: Set<ChannelName.CallSign>
        /// Its number, as ``ChannelMatcher/number(_:)`` writes it.
        var number: String?
    }

    let entries: [Entry]
    /// Channels by word, and by call sign's letters.
    let byWord: [String: [Int32]]
    let byCallSign: [String: [Int32]]
    let byNumber: [String: [Int32]]
    /// Every word, sorted: the words a shortened word begins ("nat" of "national").
    let sortedWords: [String]
    /// How rare each word is among the channels' names: log((N + 1) / (n + 1)) + 0.5.
    let weight: [String: Double]
    let unknownWeight: Double
    /// A word on more channels than this is not used to find candidates (it is still weighed).
    static let commonest = 2_000
    /// Each country's names, folded, in the languages guides are mostly written in ("mexico", "espana", "deutschland"),
    /// for the countries of the guide's ids: a playlist writes its country into a name ("Canal FX (Chile)").
    let countryWords: [String: Set<String>]
    static let countryLanguages = ["en", "es", "fr", "de", "pt", "it", "nl"]
    /// Marks a name's sound (``ChannelName/skeleton``) among the index's words.
    static let skeletonKey = "~"

    public init(_ channels: [MatchableChannel]) {
        var countryWords: [String: Set<String>] = [:]
        for code in Set(channels.map { Self.country(of: Self.parts(of: $0.id).base) }) where !code.isEmpty {
            let region = code == "uk" ? "GB" : code.uppercased()
            // Its code, and the short forms English writes beside the locale's names.
            var words: Set<String> = [code, region.lowercased()]
            if code == "us" { words.formUnion(["usa", "america"]) }
            if code == "uk" { words.formUnion(["britain", "british", "england"]) }
            for language in Self.countryLanguages {
                guard let name = Locale(identifier: language).localizedString(forRegionCode: region) else { continue }
                words.formUnion(ChannelName(name).words)
            }
            countryWords[code] = words
        }
        var entries: [Entry] = []
        entries.reserveCapacity(channels.count)
        var byWord: [String: [Int32]] = [:], byCallSign: [String: [Int32]] = [:], byNumber: [String: [Int32]] = [:], count: [String: Int] = [:]
        for (index, channel) in channels.enumerated() {
            let (base, feed) = Self.parts(of: channel.id)
            // "MLB Network [US]" in a US guide is "MLB Network": its country in brackets says only where it is.
            let own = countryWords[Self.country(of: base)] ?? []
            let names = channel.names.prefix(20).map { ChannelName(Self.withoutBracketed(own, in: $0)) }
            let idName = ChannelName(Self.stripCountry(base))
            let feedName = ChannelName(feed)
            var shift = names.map(\.shift).max() ?? 0
            if let hours = Self.feedShift(feed) { shift = hours }
            var signs = names.reduce(into: Set<ChannelName.CallSign>()) { $0.formUnion($1.callSigns) }
            // The id says the subchannel where a display name seldom does ("WBRE HDTV" is WBRETV283's name too).
            if let sign = Self.idCallSign(Self.stripCountry(base)) {
                signs = signs.filter { $0.letters != sign.letters }
                signs.insert(sign)
            }
            let entry = Entry(id: channel.id, numbers: names.reduce(idName.numbers) { $0.union($1.numbers) }, sibling: base.lowercased() + "@" + feedName.words.sorted().joined(separator: " ") + "+\(shift)", country: Self.country(of: base),
                              feedWords: Set(feedName.words), feedIsHD: feedName.isHD, feedIsSD: feed.lowercased() == "sd", feedInitials: String(feedName.words.compactMap(\.first)),
                              names: names, idName: idName, shift: shift, callSigns: signs, number: channel.number.flatMap(Self.number))
            // Each word, and each name's words joined ("fightbox" finds "Fight Box").
            let words = Set(names.flatMap(\.words) + idName.words + names.map(\.joined) + [idName.joined]
                            + names.flatMap(\.initials) + idName.initials
                            + (names + [idName]).compactMap(\.skeleton).map { Self.skeletonKey + $0 })
            for word in words {
                byWord[word, default: []].append(Int32(index))
                count[word, default: 0] += 1
            }
            for sign in signs { byCallSign[sign.letters, default: []].append(Int32(index)) }
            if let number = entry.number { byNumber[number, default: []].append(Int32(index)) }
            entries.append(entry)
        }
        let total = Double(channels.count)
        weight = count.mapValues { log((total + 1) / (Double($0) + 1)) + 0.5 }
        unknownWeight = log(total + 1) + 0.5
        (self.entries, self.byWord, self.byCallSign, self.byNumber) = (entries, byWord, byCallSign, byNumber)
        sortedWords = byWord.keys.sorted()
        self.countryWords = countryWords
    }

    /// The channels `name` may mean, best first, at most `limit`; `country` (a playlist group's or a source's ISO
    /// code, lower case) narrows them to that country's when it has any; `number` (in the same lineup as the
    /// channels' numbers) counts for the channels that have it.
    /// The country (as the guide's ids write it: "uk", "de") a playlist's group names when it is only a country ("UK",
    /// "United Kingdom", "Deutschland"), among the guide's countries; nil for any other group ("News", "UK Sport").
    public func country(named group: String) -> String? {
        let words = Set(ChannelName(String(group.prefix(100))).words)
        guard !words.isEmpty, words.count <= 4 else { return nil }
        let found = countryWords.filter { words.isSubset(of: $0.value) }.map(\.key)
        return found.count == 1 ? found[0] : nil
    }

    public func suggestions(for name: String, country: String? = nil, number: String? = nil, limit: Int = 5) -> [ChannelSuggestion] {
        var query = ChannelName(name)
        query.number = number.flatMap(Self.number)
        let country = country?.lowercased()
        // The country's own name or code in a name may say only where it is ("Canal FX (Chile)"), or be the name
        // ("France 24"): the name is weighed with and without it.
        var local: ChannelName?
        if let country {
            let said = countryWords[country] ?? [country]
            let rest = query.words.filter { !said.contains($0) }
            if !rest.isEmpty, rest.count < query.words.count { local = query.with(words: rest) }
        }
        var pool = Set<Int32>()
        // A name in another script: the channels whose names sound the same too.
        if query.isOtherScript, let sound = query.skeleton, let found = byWord[Self.skeletonKey + sound], found.count <= Self.commonest {
            pool.formUnion(found)
        }
        for word in Set(query.words + [query.joined]) {
            if let found = byWord[word], found.count <= Self.commonest { pool.formUnion(found) }
            // Perhaps a shortened word: the channels of the words it begins too (at most 20 words).
            guard word.count >= 3 else { continue }
            for longer in wordsBeginning(with: word).prefix(20) where longer != word && (byWord[longer]?.count ?? 0) <= Self.commonest {
                pool.formUnion(byWord[longer] ?? [])
            }
        }
        for sign in query.callSigns { pool.formUnion(byCallSign[sign.letters] ?? []) }
        if let number = query.number, let found = byNumber[number], found.count <= Self.commonest { pool.formUnion(found) }
        if let country {
            let local = pool.filter { entries[Int($0)].country == country }
            if !local.isEmpty { pool = local }
        }
        // Quality siblings are one candidate, scored by the best of them; the one the name means is the HD one when
        // it says HD, else the other (the first in the guide when several are alike).
        var bySibling: [String: (score: Double, members: [(index: Int32, score: Double, why: [String])])] = [:]
        for index in pool {
            let entry = entries[Int(index)]
            var (score, why) = self.score(query, against: entry, country: country)
            if let local {
                let other = self.score(local, against: entry, country: country)
                if other.0 > score { (score, why) = other }
            }
            bySibling[entry.sibling, default: (-.infinity, [])].score = max(bySibling[entry.sibling]?.score ?? -.infinity, score)
            bySibling[entry.sibling, default: (-.infinity, [])].members.append((index, score, why))
        }
        let ranked = bySibling.values.map { group -> (score: Double, index: Int32, why: [String]) in
            let chosen = group.members.min { lhs, rhs in
                let (left, right) = (entries[Int(lhs.index)].feedIsHD == query.isHD, entries[Int(rhs.index)].feedIsHD == query.isHD)
                if left != right { return left }
                // Scores to a thousandth (an ordering, whatever order the pool is read in), then SD, then guide order.
                let (leftScore, rightScore) = ((lhs.score * 1000).rounded(), (rhs.score * 1000).rounded())
                if leftScore != rightScore { return leftScore > rightScore }
                let (leftSD, rightSD) = (entries[Int(lhs.index)].feedIsSD, entries[Int(rhs.index)].feedIsSD)
                if !query.isHD, leftSD != rightSD { return leftSD }
                return lhs.index < rhs.index
            } ?? group.members[0]
            return (group.score, chosen.index, chosen.why)
        }.sorted {
            // Sums over sets add in any order: scores equal to a millionth are equal, and the guide's order decides.
            let (left, right) = (($0.score * 1e6).rounded(), ($1.score * 1e6).rounded())
            return left != right ? left > right : $0.index < $1.index
        }
        guard let best = ranked.first else { return [] }
        let margin = best.score - (ranked.dropFirst().first?.score ?? 0)
        // A station named without its subchannel ("WTIC Antenna TV") is sure of the station only, when the guide has
        // more than one of its channels.
        let unsure = query.unsaidSubchannels.filter { letters in
            Set((byCallSign[letters] ?? []).prefix(Self.commonest).map { entries[Int($0)].sibling }).count > 1
        }
        return ranked.prefix(limit).enumerated().map { rank, candidate in
            let entry = entries[Int(candidate.index)]
            let doubts = Doubts(subchannel: !unsure.isEmpty && !entry.callSigns.isDisjoint(with: query.callSigns),
                                elsewhere: country != nil && !entry.country.isEmpty && entry.country != country)
            return ChannelSuggestion(channel: entry.id,
                                     confidence: Self.confidence(score: candidate.score, margin: rank == 0 ? margin : 0, evidence: candidate.why, doubts: doubts),
                                     why: candidate.why, score: candidate.score, margin: rank == 0 ? margin : 0)
        }
    }

    /// The words that begin with `prefix`, in order, at most 200 (a binary search of ``sortedWords``).
    func wordsBeginning(with prefix: String) -> ArraySlice<String> {
        var low = 0, high = sortedWords.count
        while low < high {
            let middle = (low + high) / 2
            if sortedWords[middle] < prefix { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < min(sortedWords.count, low + 200), sortedWords[end].hasPrefix(prefix) { end += 1 }
        return sortedWords[low..<end]
    }

    /// A channel number as lineups write it, the same for the same number: "4.1" for "4-1" and "04.1", "101" for
    /// "0101"; nil for what is not one (1 to 8 characters: digits, and a dot between major and minor).
    static func number(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count <= 8 else { return nil }
        let parts = trimmed.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "." || $0 == "-" })
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        let written: [String] = parts.map { part in
            let digits = String(part.drop { $0 == "0" })
            return digits.isEmpty ? "0" : digits
        }
        return written.joined(separator: ".")
    }


    /// `name` without a part in brackets that is one of `words` ("[US]", "(Chile)"), when something else is left.
    static func withoutBracketed(_ words: Set<String>, in name: String) -> String {
        guard !words.isEmpty, let open = name.lastIndex(where: { $0 == "(" || $0 == "[" }),
              let close = name[open...].firstIndex(where: { $0 == ")" || $0 == "]" }) else { return name }
        let inside = ChannelName(String(name[name.index(after: open)..<close])).words
        guard !inside.isEmpty, inside.allSatisfy(words.contains) else { return name }
        let rest = name[..<open] + name[name.index(after: close)...]
        return rest.contains(where: \.isLetter) ? String(rest) : name
    }
}
