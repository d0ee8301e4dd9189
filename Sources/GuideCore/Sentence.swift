import Foundation

/// Words for a person, kept as what they mean rather than as one language's text: the English wording (the catalog's
/// key, said with `saying:`) and its values, worded in the reader's language when shown (a failed refresh is kept, and
/// read later by an admin in German on the health page, in English in the logs and the JSON API).
///
/// A value may be a sentence of its own ("{error} (gave up after {count} tries)"). Words from elsewhere (a server's own
/// message, an error the system gives) are `verbatim`: shown as they came, in every language.
public struct Sentence: Hashable, Sendable, CustomStringConvertible {
    /// The English wording with `{placeholders}`, or the words as they came.
    public private(set) var text: String
    public private(set) var values: [String: Sentence]
    public private(set) var isVerbatim: Bool
    /// The English plural form, when the sentence counts something (`text` is then the singular): the form shown is
    /// the one `count` takes in the reader's language.
    public private(set) var plural: String?
    public private(set) var count: Int?

    /// A sentence in English with `{placeholders}` from `values` (plain text, such as an address or a count) and
    /// `sentences` (worded in the reader's language too).
    public init(saying text: String, _ values: [String: String] = [:], sentences: [String: Sentence] = [:]) {
        self.text = text
        self.values = values.mapValues(Sentence.verbatim).merging(sentences) { $1 }
        isVerbatim = false
    }

    /// A sentence that counts: `singular` or `plural` in English, the form `count` takes in the reader's language,
    /// `{count}` written as the reader's locale writes numbers.
    public init(saying singular: String, plural: String, count: Int, _ values: [String: String] = [:]) {
        self.init(saying: singular, values)
        self.plural = plural
        self.count = count
    }

    /// `sentences` one after another with `separator` between them: a list, each item worded, the whole never looked up.
    public static func list(_ sentences: [Sentence], separator: String = "; ") -> Sentence {
        guard sentences.count != 1 else { return sentences[0] }
        return Sentence(saying: sentences.indices.map { "{\($0)}" }.joined(separator: separator),
                        sentences: Dictionary(uniqueKeysWithValues: sentences.enumerated().map { ("\($0.offset)", $0.element) }))
    }

    /// Words as they came: never looked up, never filled.
    public static func verbatim(_ text: String) -> Sentence {
        var sentence = Sentence(saying: text)
        sentence.isVerbatim = true
        return sentence
    }

    /// In `words`' language.
    public func worded(_ words: Localizer) -> String {
        if isVerbatim { return text }
        let filled = values.mapValues { $0.worded(words) }
        if let plural, let count { return words.plural(text, plural, count: count, values: filled) }
        return words(text, values: filled)
    }

    /// In English: logs, the JSON API, `--json`.
    public var description: String { worded(.english) }
}

/// For programs (the JSON API, `--json`): the English words, as a string.
extension Sentence: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Sentence {
    /// What a store keeps: the English wording, its values and counts, so it is worded again for each reader.
    private struct Kept: Codable {
        var text: String
        var values: [String: Kept]?
        var verbatim: Bool?
        var plural: String?
        var count: Int?

        init(_ sentence: Sentence) {
            (text, plural, count) = (sentence.text, sentence.plural, sentence.count)
            values = sentence.values.isEmpty ? nil : sentence.values.mapValues(Kept.init)
            verbatim = sentence.isVerbatim ? true : nil
        }

        var sentence: Sentence {
            var sentence = Sentence(saying: text, sentences: (values ?? [:]).mapValues(\.sentence))
            (sentence.isVerbatim, sentence.plural, sentence.count) = (verbatim ?? false, plural, count)
            return sentence
        }
    }

    /// As a store keeps it in a text column: JSON.
    public var stored: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(Kept(self))).map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// What a store kept: a sentence kept as JSON, else (kept before sentences were) the text as it was.
    public init(stored: String) {
        if stored.hasPrefix("{"), let kept = try? JSONDecoder().decode(Kept.self, from: Data(stored.utf8)) {
            self = kept.sentence
        } else {
            self = .verbatim(stored)
        }
    }
}

/// An error that says what went wrong as a ``Sentence``, worded in the reader's language where it is shown.
public protocol WordedError: Error {
    var sentence: Sentence { get }
}

extension Sentence {
    /// What `error` says: its sentence when it is a ``WordedError``, else its own words as they came.
    public init(_ error: any Error) {
        self = (error as? any WordedError)?.sentence ?? .verbatim(String(describing: error))
    }
}
