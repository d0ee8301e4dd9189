import GuideHTTP
/// Why a source could not be read; the store is left as it was.
public struct IngestError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notFound
        case unreadable
        case decompression
        case truncated
        case unknownFormat
        case download
        /// An export could not be written (folder missing, disk full).
        case unwritable
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension IngestError {
    /// Gzip data that could not be inflated, as a feed's failure.
    init(_ failure: GzipInflater.Failure) {
        self.init(failure.kind == .truncated ? .truncated : .decompression, failure.description)
    }
}
