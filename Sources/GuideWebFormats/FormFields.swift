import Foundation
import GuideCore

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

extension FormFields {
    /// The whole number in field `name`, nil when absent or blank; a ``FieldError`` naming the field as `called` and the range when
    /// it is anything else.
    public func integer(_ name: String, in range: ClosedRange<Int>, called label: String? = nil) throws(FieldError) -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Bounded.integer(text, in: range) else {
            throw FieldError(name: name, label: label, problem: .wholeNumber(range, got: text))
        }
        return value
    }

    /// The whole number in field `name`, which the form must send; a ``FieldError`` naming the field as `called` and the range when
    /// it is absent or anything else.
    public func required(_ name: String, in range: ClosedRange<Int>, called label: String? = nil) throws(FieldError) -> Int {
        guard let value = try integer(name, in: range, called: label) else {
            throw FieldError(name: name, label: label, problem: .wholeNumber(range, got: nil))
        }
        return value
    }

    /// The whole number in field `name` as an `Int64` (stored ids), nil when absent or blank; a ``FieldError`` when
    /// it is anything else.
    public func integer64(_ name: String, in range: ClosedRange<Int64>, called label: String? = nil) throws(FieldError) -> Int64? {
        guard let text = self[name] else { return nil }
        guard let value = Bounded.integer(text, in: range) else {
            throw FieldError(name: name, label: label, problem: .wholeNumber(range, got: text))
        }
        return value
    }

    /// The decimal number in field `name` (`1.5`), nil when absent or blank; a ``FieldError`` when it is anything else.
    public func decimal(_ name: String, in range: ClosedRange<Double>, called label: String? = nil) throws(FieldError) -> Double? {
        guard let text = self[name] else { return nil }
        guard let value = Bounded.decimal(text, in: range) else {
            throw FieldError(name: name, label: label, problem: .number(lowest: range.lowerBound, highest: range.upperBound, got: text))
        }
        return value
    }

    /// The text in field `name`, trimmed; nil when absent or blank; a ``FieldError`` when longer than `limit` bytes.
    public func text(_ name: String, limit: Int = 1024, called label: String? = nil) throws(FieldError) -> String? {
        guard let text = self[name] else { return nil }
        guard text.utf8.count <= limit else {
            throw FieldError(name: name, label: label, problem: .tooLong(limit: limit))
        }
        return text
    }

    /// The text in field `name` as typed, spaces kept (a secret); nil when absent; a ``FieldError`` when longer
    /// than `limit` bytes.
    public func typed(_ name: String, limit: Int = 1024, called label: String? = nil) throws(FieldError) -> String? {
        guard let text = raw(name) else { return nil }
        guard text.utf8.count <= limit else {
            throw FieldError(name: name, label: label, problem: .tooLong(limit: limit))
        }
        return text
    }

    /// Every non-blank value named `name` (checkboxes, repeated fields), trimmed; a ``FieldError`` when there are more
    /// than `count` or one is longer than `limit` bytes.
    public func list(_ name: String, count: Int = 10_000, limit: Int = 1024) throws(FieldError) -> [String] {
        let values = all(name)
        guard values.count <= count, values.allSatisfy({ $0.utf8.count <= limit }) else {
            throw FieldError(name: name, problem: .tooMany(count: count, limit: limit))
        }
        return values
    }

    /// Every value named `name` in order, blanks kept (fields that pair up by position), each trimmed.
    public func positional(_ name: String, count: Int = 1_000, limit: Int = 1024) throws(FieldError) -> [String] {
        let found = values.filter { $0.name == name }.map { $0.value.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard found.count <= count, found.allSatisfy({ $0.utf8.count <= limit }) else {
            throw FieldError(name: name, problem: .tooMany(count: count, limit: limit))
        }
        return found
    }

    /// One of `T`'s cases, by its raw value; nil when absent or blank; a ``FieldError`` naming the cases when it is
    /// anything else.
    public func choice<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type = T.self,
                                                             called label: String? = nil) throws(FieldError) -> T? where T.RawValue == String {
        guard let text = self[name] else { return nil }
        guard let value = T(rawValue: text) else {
            throw FieldError(name: name, label: label, problem: .oneOf(choices: T.allCases.map(\.rawValue), got: text))
        }
        return value
    }

    /// Whether a box named `name` was ticked: sent at all, with any value.
    public func isTicked(_ name: String) -> Bool {
        values.contains { $0.name == name }
    }
}
