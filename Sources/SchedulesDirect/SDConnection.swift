import Foundation
import GuideHTTP
import GuideStore

/// How the guide reaches Schedules Direct: SD's address (a test's stand-in, `TVGUIDE_SCHEDULES_DIRECT_URL`), the
/// transport, and the account an admin signed in with, kept in the guide's settings (the user name and SD's SHA-1 of
/// the password, never the password).
public struct SDConnection: Sendable {
    public static let usernameSetting = "schedules-direct-username"
    public static let passwordSetting = "schedules-direct-password-sha1"
    /// "on" when an admin chose SD's programme artwork (off unless chosen: each image counts against the account's
    /// daily limit).
    public static let artworkSetting = "schedules-direct-artwork"

    public var base: String
    public var transport: any HTTPTransport

    public init(base: String = SchedulesDirectClient.defaultBase, transport: any HTTPTransport) {
        (self.base, self.transport) = (base, transport)
    }

    /// The account kept in `store`; nil when no admin has signed in to SD.
    public static func account(in store: any ChannelSettingsStore) async throws -> SchedulesDirectClient.Account? {
        guard let username = try await store.guideSetting(usernameSetting), let hash = try await store.guideSetting(passwordSetting) else {
            return nil
        }
        return SchedulesDirectClient.Account(username: username, passwordHash: hash)
    }

    /// Keeps `account` as the guide's SD account (nil forgets it).
    public static func keep(_ account: SchedulesDirectClient.Account?, in store: any ChannelSettingsStore) async throws {
        try await store.setGuideSetting(usernameSetting, account?.username)
        try await store.setGuideSetting(passwordSetting, account?.passwordHash)
    }

    /// Whether an admin chose SD's programme artwork.
    public static func isArtworkChosen(in store: any ChannelSettingsStore) async throws -> Bool {
        try await store.guideSetting(artworkSetting) == "on"
    }

    public static func chooseArtwork(_ chosen: Bool, in store: any ChannelSettingsStore) async throws {
        try await store.setGuideSetting(artworkSetting, chosen ? "on" : nil)
    }

    /// A client for the account kept in `store`, its state kept there too; nil when no admin has signed in.
    public func client(store: any ChannelSettingsStore & ResponseCache, now: @escaping @Sendable () -> Date) async throws -> SchedulesDirectClient? {
        guard let account = try await Self.account(in: store) else { return nil }
        return SchedulesDirectClient(account: account, transport: transport, states: StoredSDState(cache: store, now: now), base: base, now: now)
    }
}
