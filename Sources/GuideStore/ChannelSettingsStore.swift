import Foundation
import GuideCore

/// What the guide's own people set on its channels beyond what the sources say: an admin's logos, hand-made channel
/// groups, the group guests see and timeshift channels; each profile's favourites and the group it last chose.
/// Guide settings more than one part reads or writes.
public enum GuideSettingName {
    /// What a first run's import of the bundled sample leaves: the whole weeks it was moved by, so the grid can say
    /// what it shows. Adding a source of one's own clears it.
    public static let sample = "sample_weeks"
}

public protocol ChannelSettingsStore: Sendable {
    /// The logos an admin chose, by channel: addresses that win over the sources' icons.
    func channelLogos() async throws -> [ChannelID: String]
    /// Sets (or with nil, removes) the logo an admin chose for `channel`. Bumps the listings' generation: pages and
    /// feeds show it at once.
    func setChannelLogo(_ url: String?, of channel: ChannelID) async throws

    /// The groups an admin made, by name.
    func channelGroups() async throws -> [ChannelGroup]
    /// Makes `group`, or replaces the one of that name; bumps the generation. ``StoreError/Code/invalid`` past
    /// ``ChannelGroup/limits``.
    func saveChannelGroup(_ group: ChannelGroup) async throws
    /// Removes the group an admin made called `name` (and makes it no longer the guests' group); bumps the generation.
    func removeChannelGroup(named name: String) async throws
    /// The group guests see until they choose another: a hand-made or playlist group's name; nil for every channel.
    func guestGroup() async throws -> String?
    /// Sets the guests' group; bumps the generation.
    func setGuestGroup(_ name: String?) async throws
    /// A setting the guide keeps for itself by `name` (see its users); nil when unset.
    func guideSetting(_ name: String) async throws -> String?
    func setGuideSetting(_ name: String, _ value: String?) async throws

    /// The profile's favourite channels, in the order they were added.
    func favourites(of profile: ProfileID) async throws -> [ChannelID]
    /// Adds `channel` to the profile's favourites, or takes it out. ``StoreError/Code/invalid`` past
    /// ``ChannelGroup/Limits/favourites``.
    func setFavourite(_ channel: ChannelID, _ isFavourite: Bool, of profile: ProfileID) async throws
    /// The group the profile chose last on the grid or the now page; nil for every channel.
    func rememberedGroup(of profile: ProfileID) async throws -> String?
    func rememberGroup(_ name: String?, of profile: ProfileID) async throws

    /// The timeshift channels an admin defined, by id. Their programmes are made by GuideIngest's
    /// `TimeshiftChannels` after every import.
    func timeshiftChannels() async throws -> [TimeshiftChannel]
    /// Defines `channel`, or replaces the definition with its id.
    func saveTimeshiftChannel(_ channel: TimeshiftChannel) async throws
    func removeTimeshiftChannel(_ id: ChannelID) async throws
}

/// A group of channels an admin made by hand ("Sport", "Kids"), in the order they gave.
public struct ChannelGroup: Hashable, Sendable {
    public var name: String
    public var channels: [ChannelID]

    public init(name: String, channels: [ChannelID]) {
        self.name = name
        self.channels = channels
    }

    /// What one guide holds at most.
    public enum Limits {
        public static let nameLength = 100
        public static let groups = 200
        public static let channels = 5_000
        public static let favourites = 1_000
    }

    /// The name a viewer's favourites go by among the groups.
    public static let favouritesName = "Favourites"
}

/// The ``ChannelSettingsStore`` both stores implement, written once over ``SQLStatements``.
extension ChannelSettingsStore where Self: SQLBackend {
    public func channelLogos() async throws -> [ChannelID: String] {
        try await reading { db in
            var logos: [ChannelID: String] = [:]
            for row in try await db.rows("SELECT channel_id, url FROM channel_logo") {
                logos[ChannelID(try row.value(0, as: String.self))] = try row.value(1, as: String.self)
            }
            return logos
        }
    }

    public func setChannelLogo(_ url: String?, of channel: ChannelID) async throws {
        try await transaction { db in
            try await db.execute("DELETE FROM channel_logo WHERE channel_id = \(channel.rawValue)")
            if let url { try await db.execute("INSERT INTO channel_logo (channel_id, url) VALUES (\(channel.rawValue), \(url))") }
            try await db.execute("UPDATE guide_state SET generation = generation + 1")
        }
    }

    public func channelGroups() async throws -> [ChannelGroup] {
        try await reading { db in
            var groups: [ChannelGroup] = []
            for row in try await db.rows("""
                SELECT g.name, m.channel_id FROM channel_group g LEFT JOIN channel_group_member m ON m.group_id = g.id
                ORDER BY g.name \(.binaryOrder), m.position
                """) {
                let name = try row.value(0, as: String.self)
                if groups.last?.name != name { groups.append(ChannelGroup(name: name, channels: [])) }
                if let channel = try row.value(1, as: String?.self) { groups[groups.count - 1].channels.append(ChannelID(channel)) }
            }
            return groups
        }
    }

    public func saveChannelGroup(_ group: ChannelGroup) async throws {
        let name = group.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= ChannelGroup.Limits.nameLength, name != ChannelGroup.favouritesName else {
            throw StoreError(.invalid, saying: "a group's name has 1 to {count} characters and is not \"{favourites}\"", ["count": "\(ChannelGroup.Limits.nameLength)", "favourites": ChannelGroup.favouritesName])
        }
        var seen: Set<ChannelID> = []
        let channels = group.channels.filter { seen.insert($0).inserted }
        guard channels.count <= ChannelGroup.Limits.channels else {
            throw StoreError(.invalid, saying: "a group holds at most {count} channels", ["count": "\(ChannelGroup.Limits.channels)"])
        }
        try await transaction { db in
            try await db.execute("DELETE FROM channel_group WHERE name = \(name)")
            let count = try await db.value("SELECT COUNT(*) FROM channel_group", as: Int64.self) ?? 0
            guard count < ChannelGroup.Limits.groups else { throw StoreError(.invalid, saying: "the guide holds at most {count} groups", ["count": "\(ChannelGroup.Limits.groups)"]) }
            try await db.execute("INSERT INTO channel_group (name) VALUES (\(name))")
            let id = try await db.value("SELECT id FROM channel_group WHERE name = \(name)", as: Int64.self) ?? 0
            let rows = channels.enumerated().map { [SQLValue.integer(id), .integer(Int64($0.offset)), .text($0.element.rawValue)] }
            try await db.insert(rows) { chunk in "INSERT INTO channel_group_member (group_id, position, channel_id) VALUES \(rows: chunk)" }
            try await db.execute("UPDATE guide_state SET generation = generation + 1")
        }
    }

    public func removeChannelGroup(named name: String) async throws {
        try await transaction { db in
            try await db.execute("DELETE FROM channel_group WHERE name = \(name)")
            try await db.execute("DELETE FROM guide_setting WHERE name = 'guest_group' AND value = \(name)")
            try await db.execute("UPDATE guide_state SET generation = generation + 1")
        }
    }

    public func guestGroup() async throws -> String? {
        try await guideSetting("guest_group")
    }

    public func setGuestGroup(_ name: String?) async throws {
        try await transaction { db in
            try await Self.set("guest_group", name, in: db)
            try await db.execute("UPDATE guide_state SET generation = generation + 1")
        }
    }

    public func guideSetting(_ name: String) async throws -> String? {
        try await reading { db in try await db.value("SELECT value FROM guide_setting WHERE name = \(name)", as: String.self) }
    }

    public func setGuideSetting(_ name: String, _ value: String?) async throws {
        try await transaction { db in try await Self.set(name, value, in: db) }
    }

    private static func set(_ name: String, _ value: String?, in db: Statements) async throws {
        try await db.execute("DELETE FROM guide_setting WHERE name = \(name)")
        if let value { try await db.execute("INSERT INTO guide_setting (name, value) VALUES (\(name), \(value))") }
    }

    public func favourites(of profile: ProfileID) async throws -> [ChannelID] {
        try await reading { db in
            try await db.rows("SELECT channel_id FROM favourite_channel WHERE profile_id = \(profile.rawValue) ORDER BY position").map {
                ChannelID(try $0.value(0, as: String.self))
            }
        }
    }

    public func setFavourite(_ channel: ChannelID, _ isFavourite: Bool, of profile: ProfileID) async throws {
        try await transaction { db in
            try await db.execute("DELETE FROM favourite_channel WHERE profile_id = \(profile.rawValue) AND channel_id = \(channel.rawValue)")
            guard isFavourite else { return }
            let (count, last) = try await db.rows("""
                SELECT COUNT(*), COALESCE(MAX(position), 0) FROM favourite_channel WHERE profile_id = \(profile.rawValue)
                """).first.map { (try $0.value(0, as: Int64.self), try $0.value(1, as: Int64.self)) } ?? (0, 0)
            guard count < ChannelGroup.Limits.favourites else {
                throw StoreError(.invalid, saying: "a profile keeps at most {count} favourite channels", ["count": "\(ChannelGroup.Limits.favourites)"])
            }
            try await db.execute("""
                INSERT INTO favourite_channel (profile_id, channel_id, position) VALUES (\(profile.rawValue), \(channel.rawValue), \(last + 1))
                """)
        }
    }

    public func timeshiftChannels() async throws -> [TimeshiftChannel] {
        try await reading { db in
            try await db.rows("SELECT id, base_id, offset_minutes, name, number, logo FROM timeshift_channel ORDER BY id \(.binaryOrder)").map { row in
                TimeshiftChannel(id: ChannelID(try row.value(0, as: String.self)), base: ChannelID(try row.value(1, as: String.self)),
                                 offsetMinutes: Int(try row.value(2, as: Int64.self)), name: try row.value(3, as: String.self),
                                 number: try row.value(4, as: String?.self), logo: try row.value(5, as: String?.self))
            }
        }
    }

    public func saveTimeshiftChannel(_ channel: TimeshiftChannel) async throws {
        guard TimeshiftChannel.offsetRange.contains(channel.offsetMinutes), channel.offsetMinutes != 0 else {
            throw StoreError(.invalid, saying: "a timeshift is 1 to 1,440 minutes later or earlier")
        }
        guard channel.id != channel.base else { throw StoreError(.invalid, saying: "a timeshift channel needs an id of its own") }
        try await transaction { db in
            try await db.execute("DELETE FROM timeshift_channel WHERE id = \(channel.id.rawValue)")
            try await db.execute("""
                INSERT INTO timeshift_channel (id, base_id, offset_minutes, name, number, logo)
                VALUES (\(channel.id.rawValue), \(channel.base.rawValue), \(Int64(channel.offsetMinutes)), \(channel.name), \(channel.number), \(channel.logo))
                """)
        }
    }

    public func removeTimeshiftChannel(_ id: ChannelID) async throws {
        try await transaction { db in try await db.execute("DELETE FROM timeshift_channel WHERE id = \(id.rawValue)") }
    }

    public func rememberedGroup(of profile: ProfileID) async throws -> String? {
        try await reading { db in
            try await db.value("SELECT name FROM remembered_group WHERE profile_id = \(profile.rawValue)", as: String.self)
        }
    }

    public func rememberGroup(_ name: String?, of profile: ProfileID) async throws {
        try await transaction { db in
            try await db.execute("DELETE FROM remembered_group WHERE profile_id = \(profile.rawValue)")
            if let name { try await db.execute("INSERT INTO remembered_group (profile_id, name) VALUES (\(profile.rawValue), \(name))") }
        }
    }
}

extension SourceName {
    /// The guide setting a grabber source's configuration file is kept under (removed with the source).
    var grabberConfigurationSetting: String { "grabber-configuration:\(rawValue)" }
    /// The guide setting the user name and password its server asks for are kept under (removed with the source).
    var credentialsSetting: String { "source-credentials:\(rawValue)" }
}

extension ChannelSettingsStore {
    /// The configuration file kept for the grabber source `source`; nil before an admin configured it.
    public func grabberConfiguration(of source: SourceName) async throws -> String? {
        try await guideSetting(source.grabberConfigurationSetting)
    }

    /// The user name and password the source's server asks for, as an admin gave them (JSON); nil for none.
    public func sourceCredentials(of source: SourceName) async throws -> String? {
        try await guideSetting(source.credentialsSetting)
    }

    public func setSourceCredentials(_ json: String?, of source: SourceName) async throws {
        try await setGuideSetting(source.credentialsSetting, json)
    }

    /// Keeps `text` as the grabber source's configuration file (nil forgets it).
    public func setGrabberConfiguration(_ text: String?, of source: SourceName) async throws {
        try await setGuideSetting(source.grabberConfigurationSetting, text)
    }
}
