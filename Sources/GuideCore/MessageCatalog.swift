import Foundation

/// One language's translations, read from a gettext PO file (what Poedit, Weblate and translators' tools edit): each
/// English text (`msgid`, with `msgid_plural` for counts) and its translation (`msgstr`, or one `msgstr[N]` per plural
/// category of the language, in ``Language/pluralCategories`` order).
public struct MessageCatalog: Sendable {
    /// A translation: the text, or one per plural category.
    public struct Entry: Hashable, Sendable {
        public var plural: String?
        public var forms: [String]
        /// The line of its `msgid`, for errors.
        public var line: Int
    }

    public let language: Language
    /// Entries by `msgid` (prefixed by `msgctxt` and U+0004 where there is one, as gettext keys them).
    public let entries: [String: Entry]
    /// The header's `Plural-Forms` count, when it states one.
    public let declaredForms: Int?

    /// Why a catalog could not be read: its line and what is wrong there.
    public struct ReadError: Error, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// Reads PO `text`. Fuzzy entries (`#, fuzzy`) are left out: a translator marked them unchecked.
    public init(po text: String, language: Language) throws {
        self.language = language
        var entries: [String: Entry] = [:]
        var header: String?
        var current = PartialEntry()
        var field: PartialEntry.Field?

        func finish() throws {
            defer { current = PartialEntry(); field = nil }
            guard let id = current.id else {
                if current.hasContent { throw ReadError(line: current.line, message: "a msgstr without a msgid") }
                return
            }
            if id.isEmpty, current.context == nil {
                header = current.forms[0]
                return
            }
            guard !current.isFuzzy else { return }
            let count = current.plural == nil ? 1 : (current.forms.keys.max() ?? -1) + 1
            let forms = (0..<max(count, 1)).map { current.forms[$0] ?? "" }
            if current.forms.isEmpty { throw ReadError(line: current.line, message: "\"\(id)\" has no msgstr") }
            let key = current.context.map { $0 + "\u{4}" + id } ?? id
            if entries[key] != nil { throw ReadError(line: current.line, message: "\"\(id)\" is in the catalog twice") }
            entries[key] = Entry(plural: current.plural, forms: forms, line: current.line)
        }

        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let number = index + 1
            if line.isEmpty { try finish(); continue }
            if line.hasPrefix("#") {
                if current.id != nil, field != nil, current.hasContent, !current.forms.isEmpty { try finish() }
                if line.hasPrefix("#,"), line.contains("fuzzy") { current.isFuzzy = true }
                continue
            }
            if line.hasPrefix("\"") {
                guard let field else { throw ReadError(line: number, message: "a string outside any msgid or msgstr") }
                current.append(try Self.string(line, number), to: field)
                continue
            }
            guard let space = line.firstIndex(of: " ") else { throw ReadError(line: number, message: "\"\(line)\" is not a PO keyword line") }
            let keyword = String(line[..<space])
            let value = try Self.string(String(line[line.index(after: space)...]).trimmingCharacters(in: .whitespaces), number)
            let next: PartialEntry.Field
            switch keyword {
            case "msgctxt": next = .context
            case "msgid": next = .id
            case "msgid_plural": next = .plural
            case "msgstr": next = .form(0)
            default:
                guard keyword.hasPrefix("msgstr["), keyword.hasSuffix("]"),
                      let index = Int(keyword.dropFirst(7).dropLast()), (0..<6).contains(index) else {
                    throw ReadError(line: number, message: "\"\(keyword)\" is not a PO keyword")
                }
                next = .form(index)
            }
            // A new msgctxt or msgid after a msgstr starts the next entry even without a blank line.
            if (next == .context || next == .id), !current.forms.isEmpty { try finish() }
            if next == .id || (next == .context && current.id == nil) { current.line = number }
            current.append(value, to: next)
            field = next
        }
        try finish()
        self.entries = entries
        declaredForms = header.flatMap(Self.pluralFormCount)
    }

    /// The `nplurals=N` of a PO header's `Plural-Forms`.
    static func pluralFormCount(_ header: String) -> Int? {
        guard let range = header.range(of: "nplurals=") else { return nil }
        return Int(header[range.upperBound...].prefix { $0.isNumber })
    }

    /// A PO string literal's text: quotes removed, escapes read.
    static func string(_ literal: String, _ line: Int) throws -> String {
        guard literal.count >= 2, literal.hasPrefix("\""), literal.hasSuffix("\"") else {
            throw ReadError(line: line, message: "\(literal) is not a quoted string")
        }
        var text = ""
        var escaped = false
        for character in literal.dropFirst().dropLast() {
            if escaped {
                switch character {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "\"", "\\": text.append(character)
                default: throw ReadError(line: line, message: "\\\(character) is not an escape PO knows")
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                throw ReadError(line: line, message: "an unescaped quote inside \(literal)")
            } else {
                text.append(character)
            }
        }
        if escaped { throw ReadError(line: line, message: "\(literal) ends in a lone backslash") }
        return text
    }

    /// An entry while it is read.
    private struct PartialEntry {
        enum Field: Equatable { case context, id, plural, form(Int) }
        var context: String?
        var id: String?
        var plural: String?
        var forms: [Int: String] = [:]
        var isFuzzy = false
        var line = 0
        var hasContent: Bool { context != nil || id != nil || !forms.isEmpty }

        mutating func append(_ text: String, to field: Field) {
            switch field {
            case .context: context = (context ?? "") + text
            case .id: id = (id ?? "") + text
            case .plural: plural = (plural ?? "") + text
            case .form(let index): forms[index] = (forms[index] ?? "") + text
            }
        }
    }
}
