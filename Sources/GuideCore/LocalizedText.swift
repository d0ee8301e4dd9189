/// A piece of text with the language XMLTV tagged it with, as titles and descriptions come in several.
public struct LocalizedText: Hashable, Codable, Sendable {
    public var text: String
    public var language: String?

    public init(_ text: String, language: String? = nil) {
        self.text = text
        self.language = language
    }
}

extension Array where Element == LocalizedText {
    /// The text in the preferred language, else the first one given, as a guide shows one title.
    public func preferred(_ languages: [String] = []) -> String? {
        for language in languages {
            if let match = first(where: { $0.language == language }) { return match.text }
        }
        return first?.text
    }
}
