import Foundation

/// A channel's XMLTV id (for example `bbc1.bbc.co.uk`): the key every listing hangs off.
public struct ChannelID: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: ChannelID, rhs: ChannelID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A stored programme's row id, stable until its source is re-imported over it.
public struct ProgrammeID: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The name a listings source is known by (a file path, a URL or a name an admin gave it).
public struct SourceName: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

extension SourceName {
    /// The name a one-off import of `location` goes by: a URL's host and file name (`example.org/guide.xml`), a
    /// path's file name (`guide.xml`). Never a user or password, a query (`?username=...&password=...`) or the
    /// server's folders: every guest sees the name with the programme.
    public init(location: String) {
        self.init(Self.shown(location))
    }

    /// The name as guests see it: one stored from a URL or a path before names were made by ``init(location:)``
    /// is shown as that would make it; an admin's own name as it is.
    public var shown: String { Self.shown(rawValue) }

    private static func shown(_ text: String) -> String {
        if text.contains("://"), let parts = URLComponents(string: text) {
            let file = parts.path.split(separator: "/").last.map(String.init)
            let host = parts.host ?? ""
            return [host.isEmpty ? nil : host, file].compactMap { $0 }.joined(separator: "/")
        }
        if text.hasPrefix("/") || text.hasPrefix("~") || text.hasPrefix(".") {
            return text.split(separator: "/").last.map(String.init) ?? text
        }
        return text
    }
}
