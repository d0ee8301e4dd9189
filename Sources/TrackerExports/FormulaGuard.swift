/// A CSV cell a spreadsheet would run as a formula: one starting with `=`, `+`, `-` or `@`, or with a tab or carriage
/// return (which some spreadsheets skip before reading the formula after them; OWASP's list for CSV injection).
/// tvguide's history export writes such a cell with a `'` before it, and its import reads the `'` away again.
public enum FormulaGuard {
    static let starts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    /// `text` as a cell a spreadsheet shows as text.
    public static func inert(_ text: String) -> String {
        text.unicodeScalars.first.map { starts.contains(Character($0)) } == true ? "'" + text : text
    }

    /// A cell written by ``inert(_:)`` as it was.
    public static func read(_ cell: String) -> String {
        guard cell.hasPrefix("'"), let next = cell.unicodeScalars.dropFirst().first, starts.contains(Character(next)) else { return cell }
        return String(cell.dropFirst())
    }
}
