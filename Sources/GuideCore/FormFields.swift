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
