import Configuration
import Foundation
import GuideCore

/// tvguide's configuration file (`/etc/tvguide/tvguide.conf`), as swift-configuration reads a file: one `key = value`
/// a line, keys named as the flags are (`port`, `day-start`, `trusted-proxy`), `#` starting a comment line, a value
/// optionally in double quotes, a list's items separated by commas. A key tvguide does not know, a key given twice, or
/// a line that is not a setting is an error naming the line, so a typo never silently leaves a default in place.
struct ConfigurationFile: FileConfigSnapshot {
    struct ParsingOptions: FileParsingOptions {
        /// The keys a file may set.
        var keys: Set<String> = []

        static var `default`: Self { .init() }
    }

    /// A file larger than this is not a settings file.
    static let largestFile = 1024 * 1024

    let providerName: String
    /// Each key's value as written, quotes removed.
    let values: [String: String]

    init(data: RawSpan, providerName: String, parsingOptions: ParsingOptions) throws {
        self.providerName = providerName
        self.values = try Self.parse(data.withUnsafeBytes { Data($0) }, keys: parsingOptions.keys)
    }

    /// The diagnostics are the terminal's language (the file is the admin's, read by `config check` and `serve`).
    private static var words: Localizer { Output.words }

    static func parse(_ data: Data, keys: Set<String>) throws -> [String: String] {
        guard data.count <= largestFile else { throw ConfigurationFileError(line: 0, words("the file is larger than 1 MB")) }
        guard let text = String(data: data, encoding: .utf8) else { throw ConfigurationFileError(line: 0, words("the file is not UTF-8 text")) }
        var values: [String: String] = [:]
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = index + 1
            let content = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if content.isEmpty || content.hasPrefix("#") { continue }
            guard let equals = content.firstIndex(of: "=") else {
                throw ConfigurationFileError(line: line, words("\"{text}\" is not a setting: write key = value", ["text": String(content.prefix(80))]))
            }
            let key = content[..<equals].trimmingCharacters(in: .whitespaces)
            guard keys.contains(key) else {
                throw ConfigurationFileError(line: line, unknown(key, among: keys))
            }
            guard values[key] == nil else { throw ConfigurationFileError(line: line, words("{key} is set a second time", ["key": key])) }
            var value = content[content.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard !value.isEmpty else {
                throw ConfigurationFileError(line: line, words("{key} has no value (remove the line for the default)", ["key": key]))
            }
            values[key] = value
        }
        return values
    }

    /// An unknown key, with the known one it is one or two letters from, else every key.
    private static func unknown(_ key: String, among keys: Set<String>) -> String {
        let near = keys.map { ($0, editDistance(Array(key.lowercased()), Array($0))) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }
        if let near { return words("unknown key \"{key}\" (did you mean {near}?)", ["key": String(key.prefix(80)), "near": near.0]) }
        return words("unknown key \"{key}\"; the keys are {keys}", ["key": String(key.prefix(80)), "keys": keys.sorted().joined(separator: ", ")])
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard a.count <= 100 else { return Int.max }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension ConfigurationFile: ConfigSnapshot {
    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        let name = key.components.joined(separator: ".")
        guard let value = values[name] else { return LookupResult(encodedKey: name, value: nil) }
        let content: ConfigContent = switch type {
        case .stringArray: .stringArray(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        default: .string(value)
        }
        return LookupResult(encodedKey: name, value: ConfigValue(content, isSecret: false))
    }

    var description: String { "\(providerName)[\(values.count) values]" }
    var debugDescription: String { description }
}

struct ConfigurationFileError: Error, CustomStringConvertible {
    let line: Int
    let message: String

    init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    var description: String { line > 0 ? Output.words("line {line}: {message}", ["line": String(line), "message": message]) : message }
}
