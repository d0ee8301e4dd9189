/// Why a listings file could not be read at all; thrown before anything is stored.
public struct XMLTVError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case malformed
        case unsupportedEncoding
        case notXMLTV
        case truncated
        case tooLarge
    }

    public var code: Code
    public var message: String
    public var line: Int?
    public var column: Int?

    public init(_ code: Code, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String {
        switch (line, column) {
        case let (line?, column?): "line \(line), column \(column): \(message)"
        case let (line?, nil): "line \(line): \(message)"
        default: message
        }
    }
}
