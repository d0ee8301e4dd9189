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
    /// Gives feed `id` its own tuner port (``LineupFeed/tunerPorts``), or takes it away (nil);
    /// ``StoreError/Code/conflict`` when another feed has that port.
    func setTunerPort(of id: Int64, to port: Int?) async throws

    /// The media servers told to reload when a feed's listings change, by feed, then as added.
    func reloadTargets() async throws -> [ReloadTarget]
    /// Adds `target`; ``StoreError/Code/invalid`` past ``ReloadTarget/mostPerFeed`` for its feed.
    func addReloadTarget(_ target: ReloadTarget) async throws -> ReloadTarget
    func removeReloadTarget(_ id: Int64) async throws
    /// Keeps a call's outcome, and the fingerprint of the listings it told about when it succeeded.
    func recordReload(of id: Int64, outcome: String, succeeded: Bool, at instant: Date, fingerprint: String?) async throws
}

/// A media server (or any receiver) told to reload its guide when the listings a feed carries change: Jellyfin's
/// Refresh Guide task (an API key), Plex's reload-guide call for each DVR (a token), or a webhook (a secret signs it).
public struct ReloadTarget: Hashable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case jellyfin, plex, webhook
    }

    public var id: Int64
    public var feed: Int64
    public var kind: Kind
    /// Jellyfin's or Plex's address (`http://192.168.1.10:8096`), or the webhook's.
    public var address: String
    /// The API key, token or signing secret; sent to that server only.
    public var secret: String?
    public var lastOutcome: String?
    public var lastSucceeded: Bool?
    public var lastAt: Date?
    /// What the feed's listings were when this target was last told successfully.
    public var fingerprint: String?

    public static let mostPerFeed = 5

    public init(id: Int64 = 0, feed: Int64, kind: Kind, address: String, secret: String?, lastOutcome: String? = nil,
                lastSucceeded: Bool? = nil, lastAt: Date? = nil, fingerprint: String? = nil) {
        (self.id, self.feed, self.kind, self.address, self.secret) = (id, feed, kind, address, secret)
        (self.lastOutcome, self.lastSucceeded, self.lastAt, self.fingerprint) = (lastOutcome, lastSucceeded, lastAt, fingerprint)
    }
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
    /// The port where the feed is also an HDHomeRun tuner at the root, for Plex (which takes a tuner as ADDRESS:PORT
    /// only); nil for none.
    public var tunerPort: Int?

    /// The ports a feed's tuner may have: unprivileged ones.
    public static let tunerPorts = 1024...65535

    /// Days a feed may cover.
    public static let dayRange = 1...14
    /// Feeds one guide keeps.
    public static let mostFeeds = 50

    public init(id: Int64 = 0, name: String, channels: Channels, days: Int, shape: Shape, tunerPort: Int? = nil) {
        (self.id, self.name, self.channels, self.days, self.shape, self.tunerPort) = (id, name, channels, days, shape, tunerPort)
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
            throw StoreError(.invalid, saying: "a feed needs a name of 1 to 100 characters and 1 to 14 days")
        }
        let (kind, profile, group): (String, Int64?, String?) = switch feed.channels {
        case .lineup(let id): ("lineup", id.rawValue, nil)
        case .favourites(let id): ("favourites", id.rawValue, nil)
        case .group(let name): ("group", nil, name)
        }
        return try await transaction { db in
            guard try await db.value("SELECT COUNT(*) FROM lineup_feed", as: Int64.self) ?? 0 < LineupFeed.mostFeeds else {
                throw StoreError(.invalid, saying: "the guide keeps at most {count} feeds", ["count": "\(LineupFeed.mostFeeds)"])
            }
            guard try await db.value("SELECT COUNT(*) FROM lineup_feed WHERE name = \(name)", as: Int64.self) ?? 0 == 0 else {
                throw StoreError(.conflict, saying: "a feed called {name} exists already", ["name": name])
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

    public func setTunerPort(of id: Int64, to port: Int?) async throws {
        if let port, !LineupFeed.tunerPorts.contains(port) {
            throw StoreError(.invalid, saying: "a tuner port is from {lowest} to {highest}", ["lowest": "\(LineupFeed.tunerPorts.lowerBound)", "highest": "\(LineupFeed.tunerPorts.upperBound)"])
        }
        try await transaction { db in
            if let port, try await db.value("SELECT COUNT(*) FROM lineup_feed WHERE tuner_port = \(Int64(port)) AND id <> \(id)", as: Int64.self) ?? 0 > 0 {
                throw StoreError(.conflict, saying: "another feed's tuner has port {port}", ["port": "\(port)"])
            }
            try await db.execute("UPDATE lineup_feed SET tuner_port = \(port.map(Int64.init)) WHERE id = \(id)")
        }
    }

    public func reloadTargets() async throws -> [ReloadTarget] {
        try await reading { db in
            try await db.rows("""
                SELECT id, feed_id, kind, address, secret, last_outcome, last_succeeded, last_at, fingerprint FROM reload_target ORDER BY feed_id, id
                """).map { row in
                ReloadTarget(id: try row.value(0, as: Int64.self), feed: try row.value(1, as: Int64.self),
                             kind: ReloadTarget.Kind(rawValue: try row.value(2, as: String.self)) ?? .webhook,
                             address: try row.value(3, as: String.self), secret: try row.value(4, as: String?.self),
                             lastOutcome: try row.value(5, as: String?.self), lastSucceeded: try row.value(6, as: Bool?.self),
                             lastAt: try row.value(7, as: Int64?.self).map(Date.init(unixSeconds:)), fingerprint: try row.value(8, as: String?.self))
            }
        }
    }

    public func addReloadTarget(_ target: ReloadTarget) async throws -> ReloadTarget {
        try await transaction { db in
            guard try await db.value("SELECT COUNT(*) FROM reload_target WHERE feed_id = \(target.feed)", as: Int64.self) ?? 0 < ReloadTarget.mostPerFeed else {
                throw StoreError(.invalid, saying: "a feed tells at most {count} servers", ["count": "\(ReloadTarget.mostPerFeed)"])
            }
            try await db.execute("""
                INSERT INTO reload_target (feed_id, kind, address, secret) VALUES (\(target.feed), \(target.kind.rawValue), \(target.address), \(target.secret))
                """)
            var stored = target
            stored.id = try await db.value("SELECT MAX(id) FROM reload_target WHERE feed_id = \(target.feed)", as: Int64.self) ?? 0
            return stored
        }
    }

    public func removeReloadTarget(_ id: Int64) async throws {
        try await transaction { db in try await db.execute("DELETE FROM reload_target WHERE id = \(id)") }
    }

    public func recordReload(of id: Int64, outcome: String, succeeded: Bool, at instant: Date, fingerprint: String?) async throws {
        try await transaction { db in
            if let fingerprint {
                try await db.execute("""
                    UPDATE reload_target SET last_outcome = \(outcome), last_succeeded = \(succeeded), last_at = \(instant.unixSeconds),
                    fingerprint = \(fingerprint) WHERE id = \(id)
                    """)
            } else {
                try await db.execute("""
                    UPDATE reload_target SET last_outcome = \(outcome), last_succeeded = \(succeeded), last_at = \(instant.unixSeconds) WHERE id = \(id)
                    """)
            }
        }
    }

    private static var feedColumns: StaticString { "id, name, kind, profile_id, group_name, days, shape, tuner_port" }

    private static func feed(_ row: SQLRow) throws -> LineupFeed {
        let profile = try row.value(3, as: Int64?.self).map { ProfileID(rawValue: $0) }
        let channels: LineupFeed.Channels = switch try row.value(2, as: String.self) {
        case "favourites": .favourites(profile ?? ProfileID(rawValue: 0))
        case "group": .group(try row.value(4, as: String?.self) ?? "")
        default: .lineup(profile ?? ProfileID(rawValue: 0))
        }
        return LineupFeed(id: try row.value(0, as: Int64.self), name: try row.value(1, as: String.self), channels: channels,
                          days: Int(try row.value(5, as: Int64.self)), shape: LineupFeed.Shape(rawValue: try row.value(6, as: String.self)) ?? .xmltv,
                          tunerPort: try row.value(7, as: Int64?.self).flatMap { Int(exactly: $0) })
    }
}
