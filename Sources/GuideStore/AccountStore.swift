import Foundation
import GuideCore

/// Where profiles, their channel lineups, sign-in sessions and API tokens live. Secrets arrive already hashed:
/// hashing is the caller's policy, storing is this protocol's.
public protocol AccountStore: Sendable {
    /// Every profile, by name.
    func profiles() throws -> [Profile]
    func profile(_ id: ProfileID) throws -> Profile?
    /// A profile by name (case-insensitive), with its secret's hash and its sign-in record.
    func credentials(named name: String) throws -> Credentials?
    /// Adds a profile; fails with `.conflict` when the name is taken.
    func createProfile(name: String, role: Profile.Role, secretKind: Profile.SecretKind, secretHash: String) throws -> Profile
    func deleteProfile(_ id: ProfileID) throws
    /// Saves the day start hour and zone.
    func updateSettings(of id: ProfileID, dayStartHour: Int, timeZone: String?) throws
    /// Records a sign-in attempt's outcome: `failures` wrong tries in a row, and until when further tries wait.
    func recordSignIn(_ id: ProfileID, failures: Int, lockedUntil: Date?) throws

    /// The channels a profile chose, in its order; empty when it has not chosen (the guide then shows all).
    func lineup(of id: ProfileID) throws -> [ChannelID]
    func setLineup(_ channels: [ChannelID], of id: ProfileID) throws

    /// Starts a session at `instant` (forgetting sessions expired by then).
    func createSession(tokenHash: String, for id: ProfileID, at instant: Date, expires: Date) throws
    /// The profile a live session belongs to; nil when unknown or expired.
    func sessionProfile(tokenHash: String, at instant: Date) throws -> Profile?
    func deleteSession(tokenHash: String) throws

    func createAPIToken(tokenHash: String, name: String, for id: ProfileID) throws -> APIToken
    func apiTokens(of id: ProfileID) throws -> [APIToken]
    func revokeAPIToken(_ tokenID: Int64, of id: ProfileID) throws
    /// The profile an API token belongs to, noting its use; nil when unknown or revoked.
    func tokenProfile(tokenHash: String, at instant: Date) throws -> Profile?
}

/// A profile with what signing in checks.
public struct Credentials: Sendable {
    public var profile: Profile
    public var secretHash: String
    /// Wrong tries in a row since the last success.
    public var failures: Int
    /// Tries before this instant are refused without checking.
    public var lockedUntil: Date?

    public init(profile: Profile, secretHash: String, failures: Int, lockedUntil: Date?) {
        self.profile = profile
        self.secretHash = secretHash
        self.failures = failures
        self.lockedUntil = lockedUntil
    }
}

/// A token a program sends as `Authorization: Bearer ...`; only its hash is stored.
public struct APIToken: Hashable, Sendable {
    public var id: Int64
    public var name: String
    public var created: Date
    public var lastUsed: Date?

    public init(id: Int64, name: String, created: Date, lastUsed: Date?) {
        self.id = id
        self.name = name
        self.created = created
        self.lastUsed = lastUsed
    }
}
