import Foundation

extension ChannelMatcher {
    /// How well `query` fits `entry`: the best of its names' word overlap (weighed by rarity), then call signs,
    /// timeshift, country, feed and HD; and why, in words.
    func score(_ query: ChannelName, against entry: Entry, country: String?) -> (Double, [String]) {
        var why: [String] = []
        // A feed's words the name says are weighed as the feed's (below), not again as its name's: "ION TV East" is
        // "ION" of the East feed before "ION Plus East".
        let feedSaid = entry.feedWords.isEmpty ? [] : entry.feedWords.intersection(query.wordSet)
        let asked = feedSaid.isEmpty || feedSaid.count == query.words.count ? query : query.with(words: query.words.filter { !feedSaid.contains($0) })
        var score = entry.names.map { name in
            guard !feedSaid.isEmpty, name.words.contains(where: feedSaid.contains), !name.words.allSatisfy(feedSaid.contains) else { return similarity(asked, name) }
            return similarity(asked, name.with(words: name.words.filter { !feedSaid.contains($0) }))
        }.max() ?? 0
        let idSimilarity = similarity(query, entry.idName)
        let byID = idSimilarity * 0.9
        if byID > score { score = byID }
        if score >= 1 { why.append("same name") } else if score > 0 { why.append("names alike") }
        // Written the very same way (accents, marks and all), among names the same once folded.
        if entry.names.contains(where: { $0.written == query.written }) { score += 0.1 }
        // Among names alike, the one its id says too ("Pasiones", not "Pasiones Latin America").
        score += 0.05 * idSimilarity
        // "Sport 2" is not "Sport 3": the numbers a name says must be the channel's.
        let numbers = query.numbers
        if !numbers.isEmpty {
            let theirs = entry.numbers
            // Another number is another channel; none at all, perhaps the channel without it ("Sport 2", "Sport").
            if !theirs.isEmpty, numbers.isDisjoint(with: theirs) { score -= 0.4 } else if theirs.isEmpty { score -= 0.25 }
        }
        // Written in another script: a name that sounds the same (its consonants) is a name alike.
        if query.isOtherScript, score < 0.7, let sound = query.skeleton, (entry.names + [entry.idName]).contains(where: { $0.skeleton == sound }) {
            score = 0.7
            why.append("sounds the same")
        }
        if !query.callSigns.isEmpty, !entry.callSigns.isEmpty {
            let signs = Set(query.callSigns.map(\.letters)), theirs = Set(entry.callSigns.map(\.letters))
            if !query.callSigns.isDisjoint(with: entry.callSigns) {
                score += 0.8
                why.append("same call sign " + (signs.intersection(theirs).sorted().first ?? ""))
            } else if !signs.isDisjoint(with: theirs) {
                score += 0.4
                why.append("same call sign " + (signs.intersection(theirs).sorted().first ?? "") + ", another subchannel")
            } else {
                score -= 0.5
            }
        }
        if query.shift != entry.shift {
            score -= 0.8
        } else if query.shift > 0 {
            why.append("same timeshift +\(query.shift)")
        }
        if let country, country == entry.country {
            score += 0.1
            why.append("same country")
        }
        if !entry.feedWords.isEmpty {
            score += feedScore(query, entry, said: feedSaid, why: &why)
        }
        // A language's code at the end of a name ("Euronews (hu)") says which language's feed: "Hungarian".
        // (Not the code of the country it is in: "Disney Channel (de)" in Germany says where, not which language.)
        if let last = query.spoken.last, last != country, let languages = Self.languageNames[last],
           !languages.isDisjoint(with: entry.feedWords.union(entry.idName.words)) {
            score += 0.3
            why.append("same language " + last)
        }
        if query.isHD == entry.feedIsHD { score += 0.12 }
        // The same number in the same lineup: strong beside a name alike, not enough alone.
        if let number = query.number, number == entry.number {
            score += 0.5
            why.append("same number " + number)
        }
        return (score, why)
    }

    /// A feed's words (a region, a coast, a market) each count: the more of them the name says (`said`), the closer;
    /// said shortened ("N West", "W Mid") a little less; a feed the name does not say, less.
    func feedScore(_ query: ChannelName, _ entry: Entry, said: Set<String>, why: inout [String]) -> Double {
        // (A word of the channel's own name is its name, not its feed shortened.)
        let named = entry.names.reduce(entry.idName.wordSet) { $0.union($1.wordSet) }
        var shortened = entry.feedWords.subtracting(said).filter { word in
            query.words.contains { word.hasPrefix($0) && !said.contains($0) && !named.contains($0) }
        }
        // A feed of two words or more said by its initials: "NI" for Northern Ireland.
        if entry.feedWords.count >= 2, said.isEmpty, query.wordSet.contains(entry.feedInitials), !named.contains(entry.feedInitials) {
            shortened = entry.feedWords
        }
        // A feed the name does not say (once, however many its words: "LatAm"): the East feed least, being a US
        // network's main one (what "FXX" alone means).
        let unsaid = entry.feedWords.subtracting(said).subtracting(shortened)
        if !said.isEmpty || !shortened.isEmpty { why.append("same feed " + said.union(shortened).sorted().joined(separator: " ")) }
        return 0.3 * Double(said.count) + 0.25 * Double(shortened.count) - (unsaid == ["east"] ? 0.1 : unsaid.isEmpty ? 0 : 0.15)
    }

    /// Two names' words in common, each weighed by its rarity (a word that begins one of the other's counts 0.6 of
    /// itself: "Nat Geo", "National Geographic"), over both names' weight; 1 when their words joined are the same. A word
    /// that is the other's initials ("SBO", "Sky Box Office") stands for the words it shortens, at 0.85 of the score.
    func similarity(_ query: ChannelName, _ name: ChannelName) -> Double {
        guard !query.words.isEmpty, !name.words.isEmpty else { return 0 }
        if query.joined == name.joined { return 1 }
        var mine = query.wordSet
        let theirs = name.wordSet
        var shortened = false
        for word in mine where !theirs.contains(word) && name.initials.contains(word) {
            mine.remove(word)
            mine.formUnion(name.words.prefix(word.count))
            shortened = true
        }
        let common = mine.intersection(theirs)
        var matched = common.reduce(0) { $0 + weigh($1) }
        let unmatched = theirs.subtracting(common)
        for word in mine.subtracting(common) where word.count >= 3 && unmatched.contains(where: { $0.hasPrefix(word) }) {
            matched += 0.6 * weigh(word)
        }
        var total = mine.reduce(0) { $0 + weigh($1) } + theirs.reduce(0) { $0 + weigh($1) }
        // A word said more often in one name ("GO3 Sport 3", "GO3 Sport"): each time more is a word not matched.
        if query.words.count > query.wordSet.count || name.words.count > theirs.count {
            for word in common {
                total += Double(abs(query.words.count { $0 == word } - name.words.count { $0 == word })) * weigh(word)
            }
        }
        let score = total > 0 ? 2 * matched / total : 0
        return shortened ? 0.85 * score : score
    }

    /// The names of the languages feeds are mostly named by, in English and in their own language (folded), by code.
    static let languageNames: [String: Set<String>] = {
        var names: [String: Set<String>] = [:]
        for code in ["en", "fr", "de", "es", "it", "pt", "nl", "hu", "ro", "pl", "ru", "tr", "ar", "el", "sv", "da", "fi", "cs", "sk", "hr", "sr",
                     "bg", "he", "fa", "hi", "zh", "ja", "ko", "uk"] {
            let written = [Locale(identifier: "en").localizedString(forLanguageCode: code), Locale(identifier: code).localizedString(forLanguageCode: code)]
            names[code] = Set(written.compactMap { $0 }.flatMap { ChannelName($0).words })
        }
        return names
    }()

    func weigh(_ word: String) -> Double { ChannelName.generic.contains(word) ? 0.3 : weight[word] ?? unknownWeight }

    /// What makes a match less sure than its evidence says: the name says the station but not which of its several
    /// channels (``ChannelName/unsaidSubchannels``), or the channel is in another country than the one the name was
    /// given with (the guide has none of that name there).
    struct Doubts {
        var subchannel = false
        var elsewhere = false
    }

    /// How sure a match is, from its score, its lead over the next, and the strongest evidence: the same name, or the
    /// same call sign and subchannel (on the development set, right 94% and 97% of the time, against 72% for names
    /// only alike; another subchannel of the station, less), or the same number in the same lineup; less for a name
    /// that only sounds the same in another script (right half the time), and for ``Doubts``. 0 to 1, rising with
    /// each. The weights are the ones that let most be applied at 99% precision on the development set.
    static func confidence(score: Double, margin: Double, evidence: [String] = [], doubts: Doubts = Doubts()) -> Double {
        let sameName = evidence.contains("same name") ? 0.15 : 0
        // (Unsure of the subchannel, the score's and its lead's share of the call sign is only the station's.)
        let sameSign = evidence.contains { $0.hasPrefix("same call sign") && !$0.hasSuffix("another subchannel") } ? (doubts.subchannel ? -0.8 : 0.4) : 0
        let anotherSubchannel = evidence.contains { $0.hasSuffix("another subchannel") } ? -0.3 : 0
        let sameNumber = evidence.contains { $0.hasPrefix("same number") } ? 0.2 : 0
        let soundOnly = evidence.contains("sounds the same") ? -0.5 : 0
        let elsewhere = doubts.elsewhere ? -1.0 : 0
        let sureness = score + min(margin, 3) - 1.0 + sameName + sameSign + anotherSubchannel + sameNumber + soundOnly + elsewhere
        return 1 / (1 + exp(-4 * sureness))
    }

    /// An XMLTV id's base and feed: `BBCOne.uk@Scotland` is (`BBCOne.uk`, `Scotland`).
    static func parts(of id: String) -> (base: String, feed: String) {
        guard let at = id.firstIndex(of: "@") else { return (id, "") }
        return (String(id[..<at]), String(id[id.index(after: at)...]))
    }

    /// The country an id's base names after its last dot (`uk`), when it is two letters.
    static func country(of base: String) -> String {
        guard let dot = base.lastIndex(of: ".") else { return "" }
        let code = base[base.index(after: dot)...].lowercased()
        return code.count == 2 && code.allSatisfy(\.isLetter) ? code : ""
    }

    /// An id's base without its country: `BBCOne`.
    static func stripCountry(_ base: String) -> String {
        guard let dot = base.lastIndex(of: "."), !country(of: base).isEmpty else { return base }
        return String(base[..<dot])
    }

    /// The hours of a timeshift feed (`Plus1`, `Plus24`).
    static func feedShift(_ feed: String) -> Int? {
        guard feed.lowercased().hasPrefix("plus"), let hours = Int(feed.dropFirst(4)), (1...48).contains(hours) else { return nil }
        return hours
    }

    /// The station an id names as stations' ids are written: `WRICTV81` (WRIC, virtual channel 8.1), `KSTRDT491`.
    static func idCallSign(_ base: String) -> ChannelName.CallSign? {
        guard let sign = ChannelName.callSign(String(base.prefix { $0.isLetter })) else { return nil }
        let digits = base.drop { $0.isLetter }
        guard digits.allSatisfy(\.isNumber) else { return nil }
        // One digit after DT or TV is the subchannel (`KPMRDT2`); more are the virtual channel, major then minor
        // (`WRICTV81` is 8.1).
        let spelled = base.prefix { $0.isLetter }.count > sign.letters.count
        let minor = digits.count >= 2 || (digits.count == 1 && spelled) ? Int(String(digits.suffix(1))) ?? 1 : 1
        return ChannelName.CallSign(letters: sign.letters, minor: minor)
    }
}
