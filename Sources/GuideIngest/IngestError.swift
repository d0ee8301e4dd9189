import GuideCore
import GuideHTTP

/// Why a source could not be read; the store is left as it was.
public struct IngestError: WordedError, Sendable, CustomStringConvertible {
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
    /// What went wrong, worded where it is shown (a failed refresh's reason on the health page).
    public var sentence: Sentence

    /// In English with `{placeholders}`, worded in the reader's language when shown.
    public init(_ code: Code, saying text: String, _ values: [String: String] = [:], sentences: [String: Sentence] = [:]) {
        self.init(code, Sentence(saying: text, values, sentences: sentences))
    }

    public init(_ code: Code, _ sentence: Sentence) {
        self.code = code
        self.sentence = sentence
    }

    /// In English: logs, the JSON API, `--json`.
    public var message: String { sentence.description }

    public var description: String { message }
}

extension IngestError {
    /// How far a gzip'd feed or playlist may inflate: 16 GiB (two million programmes are about 1.5 GB of XMLTV), at
    /// most 50 times its size.
    static let inflation = InflationLimit(total: 16 << 30)

    /// Gzip data that could not be inflated, as a feed's failure (zlib's own detail of a corrupt stream as it came).
    init(_ failure: GzipInflater.Failure) {
        switch failure.kind {
        case .truncated: self.init(.truncated, saying: "the gzip data ends early: the download or file is incomplete")
        case .corrupt: self.init(.decompression, .verbatim(failure.description))
        case .tooLarge:
            self.init(.decompression, saying: "the gzip data inflates past {size} GB or {ratio} times its size: not a listings file",
                      ["size": String(Self.inflation.total >> 30), "ratio": String(Self.inflation.ratio)])
        }
    }
}
