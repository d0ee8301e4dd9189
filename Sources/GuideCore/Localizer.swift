import Foundation

/// The words and formats one viewer gets: their language's catalog and their locale. Texts are looked up by their
/// English wording, whole sentences with named `{placeholders}`, never pieced together from translated parts.
public struct Localizer: Sendable {
    public let language: Language
    public let locale: Locale
    private let catalog: MessageCatalog?

    public init(language: Language, locale: Locale, catalog: MessageCatalog?) {
        (self.language, self.locale, self.catalog) = (language, locale, catalog)
    }

    /// English, with no catalog: texts as written.
    public static let english = Localizer(language: .english, locale: Locale(identifier: "en"), catalog: nil)

    /// `text` in the viewer's language, its `{name}` placeholders filled from `values`.
    public func callAsFunction(_ text: String, _ values: KeyValuePairs<String, String> = [:]) -> String {
        self(text, values: Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }))
    }

    /// `text` in the viewer's language, its `{name}` placeholders filled from `values` (made at run time).
    public func callAsFunction(_ text: String, values: [String: String]) -> String {
        Self.fill(catalog?.entries[text]?.forms.first.flatMap { $0.isEmpty ? nil : $0 } ?? text, values)
    }

    /// The form of `singular`/`plural` that `count` takes in the viewer's language (CLDR), `{count}` written as the
    /// locale writes numbers ("1.234" in German), the other placeholders from `values`.
    public func plural(_ singular: String, _ plural: String, count: Int, _ values: KeyValuePairs<String, String> = [:]) -> String {
        self.plural(singular, plural, count: count,
                    values: Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }))
    }

    /// As ``plural(_:_:count:_:)``, with `values` made at run time.
    public func plural(_ singular: String, _ plural: String, count: Int, values: [String: String]) -> String {
        var chosen = count == 1 ? singular : plural
        if let entry = catalog?.entries[singular],
           let index = language.pluralCategories.firstIndex(of: language.pluralCategory(count)),
           index < entry.forms.count, !entry.forms[index].isEmpty {
            chosen = entry.forms[index]
        }
        return Self.fill(chosen, ["count": number(count)].merging(values) { $1 })
    }

    /// `value` as the viewer's locale writes a whole number.
    public func number(_ value: Int) -> String {
        value.formatted(.number.locale(locale))
    }

    /// `value` as the viewer's locale writes a whole number.
    public func number(_ value: Int64) -> String {
        value.formatted(.number.locale(locale))
    }

    /// `value` as the viewer's locale writes a number with a fraction ("0,5" in German), with `digits` after the point.
    public func decimal(_ value: Double, digits: ClosedRange<Int> = 0...3) -> String {
        value.formatted(.number.precision(.fractionLength(digits)).locale(locale))
    }

    /// A fraction from 0 to 1 as the locale writes a whole percentage: "42 %" in German.
    public func percent(_ fraction: Double) -> String {
        Bounded.clamped(fraction, to: 0...1).formatted(.percent.precision(.fractionLength(0)).locale(locale))
    }

    /// An instant as `clock` writes its day and time: "Mon 3 Jun 21:00".
    public func moment(_ instant: Date, _ clock: ViewerClock) -> String {
        let words = self
        return words("{date} {time}", ["date": clock.date(instant), "time": clock.time(instant)])
    }

    /// A size in megabytes, to one decimal place: "0.5 MB".
    public func megabytes(_ bytes: Int64) -> String {
        let words = self
        return words("{size} MB", ["size": decimal(Double(bytes) / 1_000_000, digits: 1...1)])
    }

    /// `text` with each `{name}` replaced by its value; unknown names stay as they are.
    static func fill(_ text: String, _ values: [String: String]) -> String {
        guard !values.isEmpty, text.contains("{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let value = values[String(after[..<close])] {
                result += value
                rest = after[after.index(after: close)...]
            } else {
                result.append("{")
                rest = after
            }
        }
        return result + rest
    }
}
