import Foundation

/// The fields of an `application/x-www-form-urlencoded` body or query string, as a browser's form sends them.
/// Malformed percent-escapes are kept as written.
public struct FormFields: Sendable {
    public private(set) var values: [(name: String, value: String)] = []

    public init(encoded text: String) {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            values.append((name, value))
        }
    }

    /// The first value named `name`, trimmed; nil when absent or blank.
    public subscript(_ name: String) -> String? {
        guard let value = values.first(where: { $0.name == name })?.value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Every value named `name` (checkboxes, repeated fields), trimmed, blanks left out.
    public func all(_ name: String) -> [String] {
        values.filter { $0.name == name }.map { $0.value.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// The value named `name` as typed (secrets keep their spaces).
    public func raw(_ name: String) -> String? {
        values.first(where: { $0.name == name })?.value
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// A form or query field that does not hold what it must: its message says what to send instead.
public struct FieldError: Error, Sendable {
    public let name: String
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}

extension FormFields {
    /// The whole number in field `name`, nil when absent or blank; a ``FieldError`` naming `label` and the range when
    /// it is anything else.
    public func integer(_ name: String, in range: ClosedRange<Int>, label: String? = nil) throws(FieldError) -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Bounded.integer(text, in: range) else {
            throw FieldError(name: name, message: "\(label ?? name) takes a whole number \(Bounded.describe(range)), not \(Self.quoted(text))")
        }
        return value
    }

    /// The decimal number in field `name` (`1.5`), nil when absent or blank; a ``FieldError`` when it is anything else.
    public func decimal(_ name: String, in range: ClosedRange<Double>, label: String? = nil) throws(FieldError) -> Double? {
        guard let text = self[name] else { return nil }
        guard let value = Bounded.decimal(text, in: range) else {
            let bounds = "from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound))"
            throw FieldError(name: name, message: "\(label ?? name) takes a number \(bounds), not \(Self.quoted(text))")
        }
        return value
    }

    /// A value for a message: quoted, and cut short when long.
    static func quoted(_ text: String) -> String {
        "\"\(text.count > 40 ? text.prefix(40) + "…" : Substring(text))\""
    }

    private static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
