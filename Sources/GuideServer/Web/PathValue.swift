import GuideCore
import Hummingbird
import TVMaze

/// A value a path carries in one of its `:name` segments, parsed into its stated range before a handler sees it: a
/// route declares its values' types (``SitePath/One``, ``SitePath/Two``), its handler receives them typed, and a link
/// to it is built from the same types. A segment that is not one answers ``notOne`` (404), before the handler runs.
protocol PathValue: Sendable {
    /// nil when `segment` (percent-decoded) is not one.
    init?(pathSegment segment: String)
    /// The value as a segment, before percent-encoding.
    var pathSegment: String { get }
    /// What a path whose segment is not one answers.
    static var notOne: Refusal { get }
}

/// A whole number in a stated range, as a path carries it.
protocol PathNumber: PathValue {
    associatedtype Number: FixedWidthInteger & Sendable
    static var range: ClosedRange<Number> { get }
    var rawValue: Number { get }
    init(_ rawValue: Number)
}

extension PathNumber {
    /// Only the number as its links write it: `+5` and `05` are not `5` (one address a page).
    init?(pathSegment segment: String) {
        guard let value = Bounded.integer(segment, in: Self.range), String(value) == segment else { return nil }
        self.init(value)
    }

    var pathSegment: String { String(rawValue) }
}

/// A row's number in tvguide's own store: a recording, a reminder, a delivery channel, a saved search.
struct RowNumber: PathNumber, Hashable {
    static let range: ClosedRange<Int64> = 1...Int64.max
    let rawValue: Int64
    init(_ rawValue: Int64) { self.rawValue = rawValue }
    static var notOne: Refusal { Refusal(.notFound, saying: "ids are positive whole numbers") }
}

/// A show's, an episode's or a person's TVmaze id (``TVMazeClient/idRange``).
struct TVMazeNumber: PathNumber, Hashable {
    static let range = TVMazeClient.idRange
    let rawValue: Int
    init(_ rawValue: Int) { self.rawValue = rawValue }
    static var notOne: Refusal { Refusal(.notFound, saying: "No such show.") }
}

/// A season's number (``Episode/numberRange``).
struct SeasonNumber: PathNumber, Hashable {
    static let range = Episode.numberRange
    let rawValue: Int
    init(_ rawValue: Int) { self.rawValue = rawValue }
    static var notOne: Refusal { Refusal(.notFound, saying: "Not found") }
}

/// A segment taken as text: a token, or a file's name (at most 512 bytes; empty only in a link, as a device's base).
struct PathText: PathValue, Hashable {
    let rawValue: String
    init(_ rawValue: String) { self.rawValue = rawValue }
    init?(pathSegment segment: String) {
        guard !segment.isEmpty, segment.utf8.count <= 512 else { return nil }
        rawValue = segment
    }
    var pathSegment: String { rawValue }
    static var notOne: Refusal { Refusal(.notFound, saying: "Not found") }
}

extension ProgrammeID: PathNumber {
    static let range: ClosedRange<Int64> = 1...Int64.max
    init(_ rawValue: Int64) { self.init(rawValue: rawValue) }
    static var notOne: Refusal { Refusal(.badRequest, saying: "A programme's address ends in its number, like /programmes/42.") }
}

extension SitePath {
    /// A path with one value (`programmes/:id`).
    struct One<A: PathValue>: Sendable {
        let path: SitePath
        fileprivate init(_ pattern: String) { path = SitePath(pattern) }

        func callAsFunction(_ a: A) -> String { path.filled([a.pathSegment]) }
        func callAsFunction(_ a: A, query: String) -> String { path.filled([a.pathSegment], query: query) }

        /// The value of a request to this path, or its type's refusal.
        func value(_ parameters: Parameters) throws -> A {
            try Self.parsed(parameters, path.names[0])
        }

        fileprivate static func parsed<T: PathValue>(_ parameters: Parameters, _ name: String) throws -> T {
            guard let text = parameters.get(name), let value = T(pathSegment: text) else { throw T.notOne }
            return value
        }
    }

    /// A path with two values (`shows/:id/seasons/:number`).
    struct Two<A: PathValue, B: PathValue>: Sendable {
        let path: SitePath
        fileprivate init(_ pattern: String) { path = SitePath(pattern) }

        func callAsFunction(_ a: A, _ b: B) -> String { path.filled([a.pathSegment, b.pathSegment]) }

        /// The values of a request to this path, or the first one's refusal.
        func values(_ parameters: Parameters) throws -> (A, B) {
            (try One<A>.parsed(parameters, path.names[0]), try One<B>.parsed(parameters, path.names[1]))
        }
    }

    /// A path with one value of type `A`.
    static func one<A>(_ pattern: String, _ type: A.Type) -> One<A> { One(pattern) }
    /// A path with values of types `A` and `B`.
    static func two<A, B>(_ pattern: String, _ first: A.Type, _ second: B.Type) -> Two<A, B> { Two(pattern) }
}

/// A lineup feed's file: its token and what it is (`TOKEN.xml`, `TOKEN.xml.gz`, `TOKEN.m3u`).
struct FeedFile: PathValue, Hashable {
    enum Kind: String, CaseIterable, Sendable {
        // The longest suffix first: `.xml.gz` before `.xml`.
        case compressed = ".xml.gz", xmltv = ".xml", playlist = ".m3u"
    }

    let token: String
    let kind: Kind

    init(_ token: String, _ kind: Kind) { (self.token, self.kind) = (token, kind) }

    init?(pathSegment segment: String) {
        guard segment.utf8.count <= 512, let kind = Kind.allCases.first(where: { segment.hasSuffix($0.rawValue) }) else { return nil }
        (token, self.kind) = (String(segment.dropLast(kind.rawValue.count)), kind)
    }

    var pathSegment: String { token + kind.rawValue }
    static var notOne: Refusal { Refusal(.notFound, saying: "Not found") }
}

/// A profile's calendar feed's file: `TOKEN.ics`.
struct CalendarFile: PathValue, Hashable {
    let token: String

    init(_ token: String) { self.token = token }

    init?(pathSegment segment: String) {
        guard segment.utf8.count <= 512, segment.hasSuffix(".ics") else { return nil }
        token = String(segment.dropLast(4))
    }

    var pathSegment: String { token + ".ics" }
    static var notOne: Refusal { Refusal(.notFound, saying: "Not found") }
}
