import GuideCore

/// What a service of the application will not do as asked, and why: a door says it to whoever asked (the web with the
/// status its reason names, in the viewer's language; Home Assistant in its event).
public struct ActionRefusal: WordedError, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// What was named is not there (a programme, a feed, a delivery channel).
        case notFound
        /// What was asked cannot be done as it was put.
        case invalid
        /// Too many of these: again after this many seconds.
        case tooMany(retryAfterSeconds: Int)
    }

    public let reason: Reason
    public let sentence: Sentence

    public init(_ reason: Reason, saying text: String, _ values: [String: String] = [:]) {
        (self.reason, sentence) = (reason, Sentence(saying: text, values))
    }

    public init(_ reason: Reason, _ sentence: Sentence) {
        (self.reason, self.sentence) = (reason, sentence)
    }

    public var description: String { sentence.description }
}
