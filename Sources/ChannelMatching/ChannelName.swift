import Foundation

/// What a channel's name says, read once: its words (folded, in Latin letters, quality marks and a timeshift taken
/// out), the timeshift (+1, "Plus 1"), whether it says HD, and the call signs in it (US and Canadian stations: `WRIC`,
/// `KSTR-DT1`), each with the subchannel it names.
struct ChannelName: Sendable, Equatable {
    var words: [String] {
        didSet { wordSet = Set(words) }
    }
    /// Its words as a set, made once: names are compared by it thousands of times a match.
    private(set) var wordSet: Set<String> = []
    /// The words as written, before ``synonyms`` ("one", not "1"): how the name sounds.
    var spoken: [String]
    /// Hours later than its parent; 0 for the parent itself.
    var shift: Int
    /// Whether it says HD, FHD, UHD or 4K.
    var isHD: Bool
    var callSigns: Set<CallSign>
    /// The call signs (their letters) whose subchannel the name does not say: "WTIC Antenna TV" names the station, not
    /// which of its channels.
    var unsaidSubchannels: Set<String>

    /// A station's call sign and subchannel (the minor number: `-DT3` is 3; none said, 1).
    struct CallSign: Hashable, Sendable {
        var letters: String
        var minor: Int
    }

    /// The name as written, only its case and spaces evened ("Pluto TV Misterios", not "Pluto TV Mistérios"): a name
    /// written the very same way is surer than one the same once folded.
    var written: String

    /// The longest name read: past it, the rest is left out (a name is a few words).
    static let longest = 200

    /// Whether the name was written in another script than Latin (Arabic, Cyrillic, Thai...).
    var isOtherScript = false
    /// The channel's number, when the one asking gave it (``ChannelMatcher/number(_:)``).
    var number: String?

    init(_ text: String) {
        let text = String(text.unicodeScalars.filter { !Self.isInvisible($0) }.prefix(Self.longest).map(Character.init))
        written = text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        isOtherScript = text.unicodeScalars.contains { $0.properties.isAlphabetic && $0.value > 0x24F }
        (callSigns, unsaidSubchannels) = Self.callSigns(in: text)
        var raw = Self.joinedQuality(Self.words(Self.latin(Self.splitCamel(text))))
        shift = 0
        if let at = raw.firstIndex(where: { $0.hasPrefix("+") }), let hours = Int(raw[at].dropFirst()) {
            shift = hours
            raw.remove(at: at)
        } else if let at = raw.indices.first(where: { raw[$0] == "plus" && $0 + 1 < raw.count && Self.isHours(raw[$0 + 1]) }) {
            shift = Int(raw[at + 1]) ?? 0
            raw.removeSubrange(at...(at + 1))
        }
        isHD = raw.contains { Self.highDefinition.contains($0) }
        spoken = raw.filter { !Self.quality.contains($0) && !$0.hasPrefix("+") }
        words = spoken.map { Self.synonyms[$0] ?? $0 }
        wordSet = Set(words)
        numbers = Set(words.filter { $0.count <= 3 && $0.allSatisfy(\.isNumber) })
        initials = Self.initials(of: words)
    }

    /// The words joined: "bbc one" and "bbcone" are one name.
    var joined: String { words.joined() }

    /// Its initials, as a name is shortened ("Sky Box Office" is "sbo", "National Geographic Channel" "ngc"), also
    /// without a last word that only says it is a channel ("ngc" of "National Geographic Channel" and "ng"); none for a
    /// name of one word.
    private(set) var initials: [String] = []

    /// The same name with only `words` (its country left out, say).
    func with(words kept: [String]) -> ChannelName {
        var copy = self
        copy.words = kept
        copy.initials = Self.initials(of: kept)
        copy.numbers = Set(kept.filter { $0.count <= 3 && $0.allSatisfy(\.isNumber) })
        return copy
    }

    static func initials(of words: [String]) -> [String] {
        let letters = words.filter { $0.first?.isLetter == true }
        guard letters.count >= 2, letters.count == words.count else { return [] }
        var found = [String(letters.compactMap(\.first))]
        if let last = letters.last, Self.generic.contains(last), letters.count >= 3 { found.append(String(letters.dropLast().compactMap(\.first))) }
        return found
    }

    /// How the name sounds, roughly, in consonants: what a name written in Arabic, whose vowels a transliteration
    /// mostly loses, shares with its Latin spelling ("سبيس تون", "sbys twn", and "Spacetoon" are both "sbstn"). Words that
    /// only say it is a channel are left out; nil when fewer than 2 consonants are left.
    var skeleton: String? {
        var letters = Array(spoken.filter { !Self.generic.contains($0) }.joined())
        var out: [Character] = []
        var index = 0
        while index < letters.count {
            let letter = letters[index], next = index + 1 < letters.count ? letters[index + 1] : nil
            var sound: Character? = letter
            switch letter {
            case "c": sound = next.map { "eiy".contains($0) } == true ? "s" : "k"
            case "p": sound = next == "h" ? "f" : "b"
            case "v": sound = "f"
            case "q", "g": sound = "k"
            case "z": sound = "s"
            case "x": sound = "k"
            case "a", "e", "i", "o", "u", "y", "w", "h": sound = nil
            default: sound = letter.isLetter ? letter : nil
            }
            if letter == "p", next == "h" { index += 1 }
            if let sound, out.last != sound { out.append(sound) }
            index += 1
        }
        letters = out
        return letters.count >= 2 ? String(letters) : nil
    }

    /// Words that say only that it is a channel, or a feed of one: they weigh little, however rare in a guide.
    static let generic: Set<String> = ["tv", "channel", "television", "canal", "kanal", "network", "feed", "live", "official"]

    static let quality: Set<String> = ["hd", "fhd", "uhd", "4k", "8k", "sd", "hdtv", "sdtv", "hevc", "h265", "h264", "1080p", "1080i",
                                       "720p", "2160p", "hq"]
    static let highDefinition: Set<String> = ["hd", "fhd", "uhd", "4k", "8k", "hdtv", "1080p", "1080i", "720p", "2160p"]
    /// Words written more than one way for the same thing: a feed's coast, "&", a number written out ("One", "Un",
    /// "Eins" are 1, in the languages guides are mostly written in).
    static let synonyms: [String: String] = {
        var synonyms = ["eastern": "east", "western": "west", "pacific": "west", "atlantic": "east", "&": "and"]
        let numbers = [["one", "un", "uno", "eins", "um"], ["two", "deux", "dos", "zwei", "due", "dois"], ["three", "trois", "tres", "drei", "tre"],
                       ["four", "quatre", "cuatro", "vier", "quattro"], ["five", "cinq", "cinco", "funf", "cinque"], ["six", "seis", "sechs"],
                       ["seven", "sept", "siete", "sieben", "sette"], ["eight", "huit", "ocho", "acht", "otto"], ["nine", "neuf", "nueve", "neun", "nove"],
                       ["ten", "dix", "diez", "zehn", "dieci"]]
        for (index, words) in numbers.enumerated() {
            for word in words { synonyms[word] = String(index + 1) }
        }
        return synonyms
    }()

    /// The numbers a name says on their own ("Sport 2", "RTS Un"): a channel that says another is another channel.
    var numbers: Set<String> = []

    private static func isHours(_ word: String) -> Bool { word.count <= 2 && word.allSatisfy(\.isNumber) }

    /// Format and direction controls, joiners, variation selectors: nothing a name is read by.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .control
            || (0xFE00...0xFE0F).contains(scalar.value)
    }

    /// "BBCOne" as "BBC One", "Sport1" as "Sport 1", "RaiNews24" as "Rai News 24": a name written as one word.
    static func splitCamel(_ text: String) -> String {
        var out = ""
        var previous: Character?
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            if let previous {
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let lowerToUpper = previous.isLowercase && character.isUppercase
                let acronymEnd = previous.isUppercase && character.isUppercase && (next?.isLowercase ?? false)
                let letterDigit = (previous.isLetter && character.isNumber) || (previous.isNumber && character.isLetter)
                if lowerToUpper || acronymEnd || letterDigit { out.append(" ") }
            }
            out.append(character)
            previous = character
        }
        return out
    }

    /// In Latin letters without accents, lower case: "Точка ТВ" is "tocka tv", "Zürich" "zurich", "東方衛視" "dong fang
    /// wei shi" (ICU's transliteration, as Foundation has it).
    static func latin(_ text: String) -> String {
        let folded = text.applyingTransform(StringTransform("Any-Latin; Latin-ASCII"), reverse: false) ?? text
        return folded.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
    }

    /// Its words: letters and digits, "+1" kept whole, "&" a word.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if character.isLetter || character.isNumber {
                current.append(character)
                continue
            }
            if !current.isEmpty { words.append(current); current = "" }
            // "+1" and "+ 1" alike.
            while character == "+", characters.first == " ", characters.dropFirst().first?.isNumber == true { characters.removeFirst() }
            if character == "+", let digit = characters.first, digit.isNumber {
                var hours = "+"
                while let digit = characters.first, digit.isNumber, hours.count < 3 { hours.append(characters.removeFirst()) }
                words.append(hours)
            } else if character == "&" {
                words.append("and")
            } else if character == "+" {
                // "Canal+", "VTV +": the "Plus" of the names written out.
                words.append("plus")
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// US and Canadian call signs in a name as stations write them: `WRIC`, `(WCCT)`, `KSTR-DT1`, `WUNCDT`; and the
    /// letters of those written without their subchannel's digit.
    static func callSigns(in text: String) -> (signs: Set<CallSign>, unsaid: Set<String>) {
        var found = Set<CallSign>(), unsaid = Set<String>()
        for token in text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }) {
            guard let sign = callSign(String(token)) else { continue }
            found.insert(sign)
            if token.last?.isNumber != true { unsaid.insert(sign.letters) }
        }
        return (found, unsaid)
    }

    /// A quality mark split in two when the name was read ("4K" is "4 K" as "Sport1" is "Sport 1"), made one word again.
    static func joinedQuality(_ words: [String]) -> [String] {
        var out: [String] = []
        for word in words {
            if let last = out.last, last.allSatisfy(\.isNumber) || last == "h", quality.contains(last + word) {
                out[out.count - 1] = last + word
            } else {
                out.append(word)
            }
        }
        return out
    }

    /// `token` as a call sign: K or W and 2-3 letters (or C and B, F, H, I, J, K or L and 2 letters), in capitals, then
    /// perhaps -DT, -TV, -LD, -CD or -LP and a subchannel digit.
    static func callSign(_ token: String) -> CallSign? {
        let scalars = Array(token.unicodeScalars)
        var letters = 0
        while letters < scalars.count, letters < 4, ("A"..."Z").contains(scalars[letters]) { letters += 1 }
        guard letters >= 3 else { return nil }
        let first = scalars[0]
        let prefixOK = first == "K" || first == "W" || (first == "C" && letters == 4 && "BFHIJKL".unicodeScalars.contains(scalars[1]))
        guard prefixOK else { return nil }
        var rest = String(String.UnicodeScalarView(scalars[letters...]))
        if rest.hasPrefix("-") { rest.removeFirst() }
        var minor = 1
        if !rest.isEmpty {
            guard let suffix = ["DT", "TV", "LD", "CD", "LP", "CA"].first(where: { rest.hasPrefix($0) }) else { return nil }
            let digits = rest.dropFirst(suffix.count)
            guard digits.count <= 1, digits.allSatisfy(\.isNumber) else { return nil }
            minor = Int(digits) ?? 1
        }
        return CallSign(letters: String(String.UnicodeScalarView(scalars[..<letters])), minor: minor)
    }
}
