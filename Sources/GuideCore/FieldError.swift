import Foundation

/// A form or query field that does not hold what it must: what is wrong, worded in the viewer's language when shown
/// (``message(_:)``), or in English for the JSON API and the terminal (``message``).
public struct FieldError: Error, Sendable {
    /// What is wrong with the field.
    public enum Problem: Sendable, Hashable {
        /// Not a whole number in `lowest...highest` (nil: no upper bound), or absent (`got` nil) where one is needed.
        case wholeNumber(lowest: Int64, highest: Int64?, got: String?)
        /// Not a number in `lowest...highest`.
        case number(lowest: Double, highest: Double, got: String)
        /// Longer than `limit` characters.
        case tooLong(limit: Int)
        /// More than `count` values, or one longer than `limit` characters.
        case tooMany(count: Int, limit: Int)
        /// Not one of `choices`.
        case oneOf(choices: [String], got: String)
        /// A sentence of its own.
        case sentence(Sentence)

        /// Not a whole number in `range` (of any integer type); `got` nil when absent.
        public static func wholeNumber<T: FixedWidthInteger>(_ range: ClosedRange<T>, got: String?) -> Problem {
            .wholeNumber(lowest: Int64(clamping: range.lowerBound), highest: range.upperBound == .max ? nil : Int64(clamping: range.upperBound),
                         got: got)
        }
    }

    public let name: String
    /// The field as the form names it to the viewer ("The port"), in English: the catalog's key.
    public let label: String
    public let problem: Problem

    public init(name: String, label: String? = nil, problem: Problem) {
        (self.name, self.label, self.problem) = (name, label ?? name, problem)
    }

    /// A problem said in a sentence of its own, `saying` in English with `{placeholders}` from `values`.
    public init(name: String, saying: String, _ values: [String: String] = [:]) {
        self.init(name: name, problem: .sentence(Sentence(saying: saying, values)))
    }

    /// In English, for the JSON API and the terminal.
    public var message: String { message(.english) }

    /// In the viewer's words and number formats. The field's label is a value in a whole sentence, never a piece of one.
    public func message(_ words: Localizer) -> String {
        let field = words(label)
        switch problem {
        case let .wholeNumber(lowest, highest, got):
            let low = words.number(lowest), high = highest.map(words.number) ?? ""
            return switch (highest, got) {
            case (nil, nil): words("{field} takes a whole number of {lowest} or more", ["field": field, "lowest": low])
            case (nil, let got?): words("{field} takes a whole number of {lowest} or more, not \"{value}\"",
                                        ["field": field, "lowest": low, "value": Self.quoted(got)])
            case (_?, nil): words("{field} takes a whole number from {lowest} to {highest}", ["field": field, "lowest": low, "highest": high])
            case (_?, let got?): words("{field} takes a whole number from {lowest} to {highest}, not \"{value}\"",
                                       ["field": field, "lowest": low, "highest": high, "value": Self.quoted(got)])
            }
        case let .number(lowest, highest, got):
            return words("{field} takes a number from {lowest} to {highest}, not \"{value}\"",
                         ["field": field, "lowest": words.decimal(lowest), "highest": words.decimal(highest), "value": Self.quoted(got)])
        case let .tooLong(limit):
            return words.plural("{field} takes at most {count} character", "{field} takes at most {count} characters", count: limit, ["field": field])
        case let .tooMany(count, limit):
            return words.plural("{field} takes at most {count} value of {limit} characters", "{field} takes at most {count} values of {limit} characters each",
                                count: count, ["field": field, "limit": words.number(limit)])
        case let .oneOf(choices, got):
            return words("{field} takes one of {choices}, not \"{value}\"",
                         ["field": field, "choices": choices.joined(separator: ", "), "value": Self.quoted(got)])
        case let .sentence(sentence):
            return sentence.worded(words)
        }
    }

    /// A value for a message, cut short when long (the message quotes it).
    static func quoted(_ text: String) -> String {
        text.count > 40 ? text.prefix(40) + "…" : text
    }
}
