import Foundation
import GuideCore

/// XMLTV feeds cut for one media server: a profile's channels or a group, for some days, shaped for the program that
/// reads them, each at a secret address whose token only reads that feed.
public protocol LineupFeedStore: Sendable {
    /// Every feed, by name.
    func lineupFeeds() async throws -> [LineupFeed]
    /// The feed whose address token has `tokenHash` (SHA-256), or nil.
    func lineupFeed(tokenHash: String) async throws -> LineupFeed?
    /// Adds a feed reached by the token hashed as `tokenHash`; ``StoreError/Code/conflict`` when its name is taken,
    /// ``StoreError/Code/invalid`` past ``LineupFeed/mostFeeds``.
    func addLineupFeed(_ feed: LineupFeed, tokenHash: String) async throws -> LineupFeed
    func removeLineupFeed(_ id: Int64) async throws
}

public struct LineupFeed: Hashable, Sendable {
    /// Which channels it carries.
    public enum Channels: Hashable, Sendable {
        /// A profile's chosen channels (every channel with listings while it has chosen none).
        case lineup(ProfileID)
        /// A profile's favourites.
        case favourites(ProfileID)
        /// A hand-made or playlist group.
        case group(String)
    }

    /// How it is written.
    public enum Shape: String, Sendable, CaseIterable {
        /// The listings as they are.
        case xmltv
        /// For Plex and Jellyfin: episode numbers and categories they read, logos from tvguide's cache.
        case mediaServer = "media-server"
    }

    public var id: Int64
    public var name: String
    public var channels: Channels
    public var days: Int
    public var shape: Shape

    /// Days a feed may cover.
    public static let dayRange = 1...14
    /// Feeds one guide keeps.
    public static let mostFeeds = 50

    public init(id: Int64 = 0, name: String, channels: Channels, days: Int, shape: Shape) {
        (self.id, self.name, self.channels, self.days, self.shape) = (id, name, channels, days, shape)
    }
}

/// The ``LineupFeedStore`` both stores implement, written once over ``SQLStatements``.
extension LineupFeedStore where Self: SQLBackend {
    public func lineupFeeds() async throws -> [LineupFeed] {
        try await reading { db in
            try await db.rows("SELECT \(raw: Self.feedColumns) FROM lineup_feed ORDER BY name \(.binaryOrder)").map(Self.feed)
        }
    }

    public func lineupFeed(tokenHash: String) async throws -> LineupFeed? {
        try await reading { db in
            try await db.rows("SELECT \(raw: Self.feedColumns) FROM lineup_feed WHERE token_hash = \(tokenHash)").first.map(Self.feed)
        }
    }

    public func addLineupFeed(_ feed: LineupFeed, tokenHash: String) async throws -> LineupFeed {
        let name = feed.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100, LineupFeed.dayRange.contains(feed.days) else {
            throw StoreError(.invalid, "a feed needs a name of 1 to 100 characters and 1 to 14 days")
        }
        let (kind, profile, group): (String, Int64?, String?) = switch feed.channels {
        case .lineup(let id): ("lineup", id.rawValue, nil)
        case .favourites(let id): ("favourites", id.rawValue, nil)
        case .group(let name): ("group", nil, name)
        }
        return try await transaction { db in
            guard try await db.value("SELECT COUNT(*) FROM lineup_feed", as: Int64.self) ?? 0 < LineupFeed.mostFeeds else {
                throw StoreError(.invalid, "the guide keeps at most \(LineupFeed.mostFeeds) feeds")
            }
            guard try await db.value("SELECT COUNT(*) FROM lineup_feed WHERE name = \(name)", as: Int64.self) ?? 0 == 0 else {
                throw StoreError(.conflict, "a feed called \(name) exists already")
            }
            try await db.execute("""
                INSERT INTO lineup_feed (name, kind, profile_id, group_name, days, shape, token_hash, created_at)
                VALUES (\(name), \(kind), \(profile), \(group), \(Int64(feed.days)), \(feed.shape.rawValue), \(tokenHash), \(now().unixSeconds))
                """)
            guard let stored = try await db.rows("SELECT \(raw: Self.feedColumns) FROM lineup_feed WHERE name = \(name)").first.map(Self.feed) else {
                throw StoreError(.failed, "the feed was not stored")
            }
            return stored
        }
    }

    public func removeLineupFeed(_ id: Int64) async throws {
        try await transaction { db in try await db.execute("DELETE FROM lineup_feed WHERE id = \(id)") }
    }

    private static var feedColumns: StaticString { "id, name, kind, profile_id, group_name, days, shape" }

    private static func feed(_ row: SQLRow) throws -> LineupFeed {
        let profile = try row.value(3, as: Int64?.self).map { ProfileID(rawValue: $0) }
        let channels: LineupFeed.Channels = switch try row.value(2, as: String.self) {
        case "favourites": .favourites(profile ?? ProfileID(rawValue: 0))
        case "group": .group(try row.value(4, as: String?.self) ?? "")
        default: .lineup(profile ?? ProfileID(rawValue: 0))
        }
        return LineupFeed(id: try row.value(0, as: Int64.self), name: try row.value(1, as: String.self), channels: channels,
                          days: Int(try row.value(5, as: Int64.self)), shape: LineupFeed.Shape(rawValue: try row.value(6, as: String.self)) ?? .xmltv)
    }
}
