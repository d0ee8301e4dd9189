import Foundation

/// A strict XML reader for the small documents tvguide takes whole from outside (SVG logos, a grabber's
/// configuration questions): well-formed XML 1.0 with namespaces, or nothing. It resolves prefixes to namespaces as XML Namespaces 1.0 says, reads the five predefined entities and
/// character references, skips comments and processing instructions, takes CDATA as text, and refuses a document type
/// with declarations of its own (entities, attribute defaults), an undefined entity, an undeclared prefix, a mismatched
/// or unclosed tag, a repeated attribute, or nesting past 256. It fetches nothing and expands nothing else. (libxml2
/// through Foundation would have added libxml2 and a second ICU, 38 MB, to the package for this.)
public struct StrictXMLReader {
    public enum Event: Sendable {
        /// An element's local name, namespace, and attributes by the names an SVG sanitizer knows them by: unprefixed
        /// as themselves, `xlink:href` and `xml:space` for those namespaces, anything else in another namespace
        /// prefixed `other:` (and so never on an allow-list).
        case start(name: String, namespace: String?, attributes: [(String, String)])
        case end
        case text(String)
    }

    public static let xlinkNamespace = "http://www.w3.org/1999/xlink"
    public static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    static let deepest = 256

    private let bytes: [UInt8]
    private var index = 0

    /// The events of `text`, in order; nil when it is not well-formed within these rules.
    public static func events(_ text: String) -> [Event]? {
        var reader = StrictXMLReader(bytes: Array(text.utf8))
        return reader.read()
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func read() -> [Event]? {
        var events: [Event] = []
        var open: [(name: String, scope: [String: String])] = []
        var scope: [String: String] = ["xml": Self.xmlNamespace]
        var sawRoot = false
        if starts("\u{FEFF}") { index += 3 }
        while index < bytes.count {
            if starts("<!--") {
                guard let end = find("-->", from: index + 4) else { return nil }
                index = end + 3
            } else if starts("<?") {
                guard let end = find("?>", from: index + 2) else { return nil }
                index = end + 2
            } else if starts("<![CDATA[") {
                guard !open.isEmpty, let end = find("]]>", from: index + 9) else { return nil }
                events.append(.text(string(index + 9, end)))
                index = end + 3
            } else if starts("<!DOCTYPE") || starts("<!doctype") {
                guard !sawRoot, skipDoctype() else { return nil }
            } else if starts("</") {
                index += 2
                guard let name = name(), let last = open.popLast(), last.name == name else { return nil }
                skipSpace()
                guard take(">") else { return nil }
                scope = last.scope
                events.append(.end)
            } else if starts("<") {
                index += 1
                guard open.count < Self.deepest, !(open.isEmpty && sawRoot), let name = name() else { return nil }
                var raw: [(String, String)] = []
                while true {
                    let hadSpace = skipSpace() > 0
                    if take("/>") || take(">") { break }
                    guard hadSpace, let attribute = self.name() else { return nil }
                    skipSpace()
                    guard take("="), skipSpace() >= 0, let value = quoted(), !raw.contains(where: { $0.0 == attribute }) else { return nil }
                    raw.append((attribute, value))
                }
                let selfClosing = bytes[index - 2] == UInt8(ascii: "/")
                let outer = scope
                for (attribute, value) in raw {
                    if attribute == "xmlns" { scope[""] = value } else if attribute.hasPrefix("xmlns:") {
                        guard !value.isEmpty else { return nil }
                        scope[String(attribute.dropFirst(6))] = value
                    }
                }
                let (prefix, local) = Self.split(name)
                guard let namespace = prefix.map({ scope[$0] }) ?? .some(scope[""]), prefix == nil || namespace != nil else { return nil }
                var attributes: [(String, String)] = []
                for (attribute, value) in raw where attribute != "xmlns" && !attribute.hasPrefix("xmlns:") {
                    let (attributePrefix, attributeLocal) = Self.split(attribute)
                    guard let attributePrefix else {
                        attributes.append((attribute, value))
                        continue
                    }
                    guard let bound = scope[attributePrefix] else { return nil }
                    attributes.append((bound == Self.xlinkNamespace ? "xlink:" + attributeLocal
                                       : bound == Self.xmlNamespace ? "xml:" + attributeLocal : "other:" + attributeLocal, value))
                }
                events.append(.start(name: local, namespace: namespace, attributes: attributes))
                sawRoot = true
                if selfClosing {
                    scope = outer
                    events.append(.end)
                } else {
                    open.append((name, outer))
                }
            } else {
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                guard let text = decoded(start, index) else { return nil }
                if open.isEmpty {
                    guard text.allSatisfy(\.isWhitespace) else { return nil }
                } else {
                    events.append(.text(text))
                }
            }
        }
        return sawRoot && open.isEmpty ? events : nil
    }

    /// A document type with no internal subset (`<!DOCTYPE svg PUBLIC "..." "...">`): skipped; one with `[` refused.
    private mutating func skipDoctype() -> Bool {
        index += 9
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "["): return false
            case UInt8(ascii: ">"): index += 1; return true
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let quote = bytes[index]
                index += 1
                while index < bytes.count, bytes[index] != quote { index += 1 }
                index += 1
            default: index += 1
            }
        }
        return false
    }

    private static func split(_ name: String) -> (String?, String) {
        guard let colon = name.firstIndex(of: ":") else { return (nil, name) }
        return (String(name[..<colon]), String(name[name.index(after: colon)...]))
    }

    private func starts(_ text: String) -> Bool {
        let prefix = Array(text.utf8)
        return bytes.count - index >= prefix.count && bytes[index..<(index + prefix.count)].elementsEqual(prefix)
    }

    private mutating func take(_ text: String) -> Bool {
        guard starts(text) else { return false }
        index += text.utf8.count
        return true
    }

    private func find(_ text: String, from start: Int) -> Int? {
        let needle = Array(text.utf8)
        var at = start
        while at + needle.count <= bytes.count {
            if bytes[at..<(at + needle.count)].elementsEqual(needle) { return at }
            at += 1
        }
        return nil
    }

    @discardableResult
    private mutating func skipSpace() -> Int {
        let start = index
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index - start
    }

    /// A name: a letter, `_` or `:` then letters, digits, `.`, `-`, `_`, `:` (non-ASCII letters allowed).
    private mutating func name() -> String? {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            let isStart = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x3A || byte >= 0x80
            let isName = isStart || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D
            guard index == start ? isStart : isName else { break }
            index += 1
        }
        guard index > start, index - start <= 256 else { return nil }
        return string(start, index)
    }

    private mutating func quoted() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { return nil }
        let quote = bytes[index]
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != quote {
            guard bytes[index] != UInt8(ascii: "<") else { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return decoded(start, index)
    }

    private func string(_ start: Int, _ end: Int) -> String { String(decoding: bytes[start..<end], as: UTF8.self) }

    /// Text with its references read: the five predefined entities and `&#N;` / `&#xH;`; nil for any other.
    private func decoded(_ start: Int, _ end: Int) -> String? {
        let text = string(start, end)
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 12 else { return nil }
            let reference = rest[rest.index(after: amp)..<semi]
            switch reference {
            case "lt": out += "<"
            case "gt": out += ">"
            case "amp": out += "&"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                guard reference.hasPrefix("#") else { return nil }
                let digits = reference.dropFirst()
                let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                guard let value, value > 0, let scalar = Unicode.Scalar(value) else { return nil }
                out.unicodeScalars.append(scalar)
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }
}
