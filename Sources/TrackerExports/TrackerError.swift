import GuideCore

/// A tracker export tvguide cannot read, and why, in words a user can act on (worded in their language where shown).
public struct TrackerError: WordedError, Sendable, CustomStringConvertible, Equatable {
    public let sentence: Sentence

    init(saying text: String, _ values: [String: String] = [:]) {
        sentence = Sentence(saying: text, values)
    }

    public var description: String { sentence.description }
}
