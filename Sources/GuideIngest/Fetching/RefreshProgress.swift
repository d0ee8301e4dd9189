import Foundation
import GuideCore

/// Live progress of a refresh: per source, its downloads; overall, downloads done of those known.
public struct RefreshProgress: Sendable, Equatable {
    public enum Phase: String, Sendable {
        case waiting, downloading, importing, imported, unchanged, failed
    }

    public struct Source: Sendable, Equatable {
        public var name: String
        public var phase: Phase
        public var feeds: [FeedProgress]
        public var downloadsDone: Int
        public var downloadsTotal: Int
        public var error: Sentence?
    }

    public var sources: [Source]

    public var downloadsDone: Int { sources.reduce(0) { $0 + $1.downloadsDone } }
    public var downloadsTotal: Int { sources.reduce(0) { $0 + $1.downloadsTotal } }
    public var isFinished: Bool { sources.allSatisfy { [.imported, .unchanged, .failed].contains($0.phase) } }
}
