import Foundation
import GuideCore

/// A grabber's configuration file as XMLTV's grabbers read it (`XMLTV::Configure`): `key=value` for a value set or an
/// option chosen, `key!value` for an option offered and not chosen, keys repeated for lists, `#` comments. tvguide
/// keeps it in the store for its source and writes it into the grabber's home before each run.
public struct GrabberConfiguration: Sendable, Equatable {
    public var text: String

    public init(_ text: String = "") { self.text = text }

    /// Why tvguide will not keep it, or nil: too long, or holding a NUL or other control character.
    public var problem: Sentence? {
        if text.utf8.count > Grabbers.configurationLimit {
            return Sentence(saying: "a grabber's configuration is at most {size} KB", ["size": "\(Grabbers.configurationLimit >> 10)"])
        }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" }) {
            return Sentence(saying: "a grabber's configuration is text: no control characters")
        }
        return nil
    }

    /// Its `key=value` and `key!value` lines, comments and blank lines left out, in order.
    public var entries: [(key: String, value: String, chosen: Bool)] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard let mark = content.firstIndex(where: { $0 == "=" || $0 == "!" }) else { return nil }
            let key = String(content[..<mark])
            guard !key.isEmpty, !key.contains(" ") else { return nil }
            let value = String(content[mark...].dropFirst()).trimmingCharacters(in: .whitespaces)
            return (key, value, content[mark] == "=")
        }
    }

    /// Whether `key` can be a key of the file: letters, digits, `-`, `_` and `.` (never `=`, `!`, `#` or a space).
    public static func isKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 100 && key.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0))
        }
    }

    /// The channels chosen (`channel=` lines).
    public var chosenChannels: [String] { entries.filter { $0.key == "channel" && $0.chosen }.map(\.value) }

    /// With `answers` appended, as `--configure-api` asks between stages; the keys in `secret` (a `secretstring`
    /// question's) noted as secret (``secretKeys``).
    public func appending(_ answers: [(key: String, value: String, chosen: Bool)], secret: Set<String> = []) -> GrabberConfiguration {
        var text = self.text
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        for answer in answers where Self.isKey(answer.key) {
            text += "\(answer.key)\(answer.chosen ? "=" : "!")\(Self.oneLine(answer.value))\n"
        }
        let noted = notedSecretKeys
        for key in secret.sorted() where Self.isKey(key) && !noted.contains(key) { text += Self.secretNote + key + "\n" }
        return GrabberConfiguration(text)
    }

    // MARK: Secrets: a grabber's password is kept, never shown back.

    /// How the page shows a secret's value; posted back as it is, the value kept stays.
    public static let keptSecret = "(kept, not shown)"
    /// The comment line that notes a key as secret (grabbers skip comments).
    static let secretNote = "# secret: "

    /// The keys whose values are secret: those a grabber asked for as `secretstring` (noted in the file by a
    /// `# secret: KEY` line) and those whose name says so (password, passwd, pass, pin, secret, token, apikey, key).
    public var secretKeys: Set<String> {
        notedSecretKeys.union(entries.map(\.key).filter(Self.looksSecret))
    }

    /// The keys noted as secret by `# secret: KEY` lines.
    var notedSecretKeys: Set<String> {
        Set(text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix(Self.secretNote) }
            .map { String($0.dropFirst(Self.secretNote.count)).trimmingCharacters(in: .whitespaces) })
    }

    static func looksSecret(_ key: String) -> Bool {
        let words = key.lowercased().split { !$0.isLetter }.map(String.init)
        return words.contains { ["password", "passwd", "pass", "pin", "secret", "token", "apikey", "key"].contains($0) }
            || key.lowercased().contains("password")
    }

    /// The file as a page shows it: each secret's value written as ``keptSecret``.
    public var shown: String {
        let secret = secretKeys
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard let mark = line.firstIndex(of: "="), secret.contains(String(line[..<mark])), !line[line.index(after: mark)...].isEmpty else { return String(line) }
            return line[...mark] + Self.keptSecret
        }.joined(separator: "\n")
    }

    /// This file as posted from a page, each secret written as ``keptSecret`` given back its value in `stored` (the
    /// n-th line of a key, the n-th value), and `stored`'s notes of which keys are secret kept for keys it still has.
    public func restoringSecrets(from stored: GrabberConfiguration) -> GrabberConfiguration {
        let secret = stored.secretKeys
        var values: [String: [String]] = [:]
        for entry in stored.entries where entry.chosen && secret.contains(entry.key) { values[entry.key, default: []].append(entry.value) }
        var taken: [String: Int] = [:]
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard let mark = line.firstIndex(of: "="), line[line.index(after: mark)...] == Self.keptSecret else { return String(line) }
            let key = String(line[..<mark])
            let index = taken[key, default: 0]
            taken[key] = index + 1
            return key + "=" + (values[key].flatMap { index < $0.count ? $0[index] : nil } ?? "")
        }
        if lines.last == "" { lines.removeLast() }
        var restored = GrabberConfiguration(lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n")
        let keys = Set(restored.entries.map(\.key)), noted = restored.notedSecretKeys
        for key in stored.notedSecretKeys.sorted() where keys.contains(key) && !noted.contains(key) { restored.text += Self.secretNote + key + "\n" }
        return restored
    }

    /// With its channel lines replaced: each of `offered` chosen when it is in `chosen`, not chosen otherwise.
    public func choosing(_ chosen: Set<String>, of offered: [String]) -> GrabberConfiguration {
        let kept = text.split(whereSeparator: \.isNewline).filter { line in
            !(line.hasPrefix("channel=") || line.hasPrefix("channel!"))
        }
        let base = GrabberConfiguration(kept.isEmpty ? "" : kept.joined(separator: "\n") + "\n")
        return base.appending(offered.map { ("channel", $0, chosen.contains($0)) })
    }

    /// A value on one line: a line break in an answer would add a line of its own choosing to the file.
    private static func oneLine(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0.value >= 0x20 || $0 == "\t" }.map(Character.init))
    }
}

/// One stage of `--configure-api`: the questions a grabber asks (`<xmltvconfiguration>`) and the stage after it.
public struct GrabberQuestions: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case string, secretstring, selectone, selectmany
    }

    public struct Option: Sendable, Equatable {
        public var value: String
        public var text: String
    }

    public struct Question: Sendable, Equatable {
        public var id: String
        public var kind: Kind
        public var title: String
        public var description: String
        /// The suggested answer (`default`); for a `constant` one, the answer itself, not asked.
        public var suggested: String?
        public var isConstant: Bool
        public var options: [Option]
    }

    public var grabber: String
    public var questions: [Question]
    /// The stage to ask for next; nil or `end` when configuration is done. `select-channels` is answered from
    /// `--list-channels`.
    public var nextStage: String?

    public var isLast: Bool { nextStage == nil || nextStage == "end" }

    /// Reads a stage's answer: UTF-8 or ISO-8859-1 as its declaration says; texts in `language`, else English, else
    /// the first given.
    public static func read(_ bytes: [UInt8], language: String = "en") throws -> GrabberQuestions {
        let head = String(decoding: bytes.prefix(100), as: UTF8.self).lowercased()
        let text: String
        if head.contains("encoding=\"iso-8859-1\"") || head.contains("encoding='iso-8859-1'") {
            text = String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        } else if let utf8 = String(validating: bytes, as: UTF8.self) {
            text = utf8
        } else {
            throw Unreadable(reason: Sentence(saying: "it is not UTF-8"))
        }
        guard let events = StrictXMLReader.events(text) else { throw Unreadable(reason: Sentence(saying: "it is not well-formed XML")) }
        var reading = Reading(language: language)
        for event in events { try reading.take(event) }
        guard let grabber = reading.grabber else { throw Unreadable(reason: Sentence(saying: "it has no <xmltvconfiguration>")) }
        return GrabberQuestions(grabber: grabber, questions: reading.questions, nextStage: reading.nextStage)
    }

    public struct Unreadable: WordedError, CustomStringConvertible {
        var reason: Sentence
        public var sentence: Sentence {
            Sentence(saying: "the grabber's configuration questions could not be read: {reason}", sentences: ["reason": reason])
        }
        public var description: String { sentence.description }
    }

    /// The walk over a stage's elements.
    private struct Reading {
        let language: String
        var grabber: String?
        var questions: [Question] = []
        var nextStage: String?
        var path: [String] = []
        /// The texts of the element being read, by language, in order.
        var texts: [(String, String)] = []
        var textLanguage = ""
        var titles: [(String, String)] = []
        var descriptions: [(String, String)] = []
        var optionValue: String?

        init(language: String) { self.language = language }

        mutating func take(_ event: StrictXMLReader.Event) throws {
            switch event {
            case .start(let name, _, let attributes):
                let attribute = { (key: String) in attributes.first { $0.0 == key }?.1 }
                switch (path.last, name) {
                case (nil, "xmltvconfiguration"):
                    grabber = attribute("grabber") ?? ""
                case ("xmltvconfiguration", let kind) where Kind(rawValue: kind) != nil:
                    guard let id = attribute("id"), !id.isEmpty else { throw Unreadable(reason: Sentence(saying: "a <{element}> has no id", ["element": kind])) }
                    questions.append(Question(id: id, kind: Kind(rawValue: kind)!, title: id, description: "",
                                              suggested: attribute("constant") ?? attribute("default"),
                                              isConstant: attribute("constant") != nil, options: []))
                    (titles, descriptions) = ([], [])
                case ("xmltvconfiguration", "nextstage"):
                    nextStage = attribute("stage")
                case (_, "title"), (_, "description"), ("option", "text"):
                    textLanguage = attribute("lang") ?? ""
                    texts.append((textLanguage, ""))
                case (_, "option"):
                    optionValue = attribute("value") ?? ""
                    texts = []
                default:
                    break
                }
                path.append(name)
            case .text(let text):
                if let last = path.last, ["title", "description", "text"].contains(last), !texts.isEmpty {
                    texts[texts.count - 1].1 += text
                }
            case .end:
                let name = path.popLast()
                guard !questions.isEmpty else { break }
                switch (path.last, name) {
                case (let parent, "title") where parent.map({ Kind(rawValue: $0) != nil }) ?? false:
                    titles += texts
                    texts = []
                    questions[questions.count - 1].title = pick(titles) ?? questions[questions.count - 1].id
                case (let parent, "description") where parent.map({ Kind(rawValue: $0) != nil }) ?? false:
                    descriptions += texts
                    texts = []
                    questions[questions.count - 1].description = pick(descriptions) ?? ""
                case (_, "option"):
                    let value = optionValue ?? ""
                    questions[questions.count - 1].options.append(Option(value: value, text: pick(texts) ?? value))
                    texts = []
                default:
                    break
                }
            }
        }

        /// The text in the reader's language, else English, else the first.
        private func pick(_ texts: [(String, String)]) -> String? {
            let chosen = texts.first { $0.0 == language } ?? texts.first { $0.0 == "en" } ?? texts.first
            return chosen.map { $0.1.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
    }
}
