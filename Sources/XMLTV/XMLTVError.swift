import GuideCore

/// Why a listings file could not be read at all; thrown before anything is stored.
public struct XMLTVError: WordedError, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case malformed
        case unsupportedEncoding
        case notXMLTV
        case truncated
        case tooLarge
    }

    public var code: Code
    /// What is wrong, without its place in the file.
    public var said: Sentence
    public var line: Int?
    public var column: Int?

    /// In English with `{placeholders}`, worded in the reader's language when shown.
    public init(_ code: Code, saying text: String, _ values: [String: String] = [:], line: Int? = nil, column: Int? = nil) {
        self.init(code, Sentence(saying: text, values), line: line, column: column)
    }

    public init(_ code: Code, _ said: Sentence, line: Int? = nil, column: Int? = nil) {
        self.code = code
        self.said = said
        self.line = line
        self.column = column
    }

    /// What is wrong, in English.
    public var message: String { said.description }

    /// What is wrong and where.
    public var sentence: Sentence {
        switch (line, column) {
        case let (line?, column?): Sentence(saying: "line {line}, column {column}: {message}", ["line": String(line), "column": String(column)],
                                            sentences: ["message": said])
        case let (line?, nil): Sentence(saying: "line {line}: {message}", ["line": String(line)], sentences: ["message": said])
        default: said
        }
    }

    public var description: String { sentence.description }
}
