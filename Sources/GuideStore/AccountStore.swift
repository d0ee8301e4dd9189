import Foundation
import GuideCore

/// Where profiles, their channel lineups, sign-in sessions and API tokens live. Secrets arrive already hashed:
/// hashing is the caller's policy, storing is this protocol's.
public protocol AccountStore: Sendable {
    /// Every profile, by name.
    func profiles() async throws -> [Profile]
    func profile(_ id: ProfileID) async throws -> Profile?
    /// A profile by name (case-insensitive), with its secret's hash.
    func credentials(named name: String) async throws -> Credentials?
    /// Adds a profile; fails with `.conflict` when the name is taken. With `onlyIfFirst`, fails with `.conflict` when
    /// any profile exists, decided atomically: of two first-run setups at once, one succeeds.
    func createProfile(name: String, role: Profile.Role, secretKind: Profile.SecretKind, secretHash: String,
                       onlyIfFirst: Bool) async throws -> Profile
    /// Replaces a profile's secret (an owner who forgot it, from the command line).
    func resetSecret(of id: ProfileID, secretKind: Profile.SecretKind, secretHash: String) async throws
    func deleteProfile(_ id: ProfileID) async throws
    /// Saves the day start hour and zone.
    func updateSettings(of id: ProfileID, dayStartHour: Int, timeZone: String?) async throws
    /// Saves how the profile's pages look.
    func setTheme(_ theme: Profile.Theme, of id: ProfileID) async throws
    /// The profile's language (nil: the browser's) and clock.
    func setLanguage(_ language: Language?, hours: ViewerClock.HourCycle, of id: ProfileID) async throws
    /// The languages the profile reads listings in, in order (empty: its pages' language, then the browser's).
    func setListingLanguages(_ languages: [String], of id: ProfileID) async throws

    /// Counts one sign-in try against `key` in one statement that increments and returns, so tries at the same time
    /// are each counted and at most `rule.freeTries` of them go on to be checked; a key that is waiting is not
    /// counted and says until when.
    func countSignInTry(_ key: ThrottleKey, rule: SignInThrottle.Rule, at instant: Date) async throws -> SignInCount
    /// After a right secret from `address` for `name`: that address's counts start again, it is exempt from the
    /// name's shared count until `trustedUntil`, and the shared count starts again unless the name is waiting.
    func recordSignInSuccess(address: String, name: String, trustedUntil: Date, at instant: Date) async throws
    /// The counts of one name (from every address, and the shared one), for `tvguide profiles list`.
    func signInCounts(name: String) async throws -> [ThrottleKey: (failures: Int, waitingUntil: Date?)]
    /// Forgets every count of `name`: `tvguide profiles unlock`. The number forgotten.
    @discardableResult
    func clearSignInCounts(name: String) async throws -> Int
    /// Forgets counts idle since before `instant` (trusted addresses stay until their trust ends).
    func pruneSignInCounts(idleSince instant: Date) async throws

    /// The channels a profile chose, in its order; empty when it has not chosen (the guide then shows all).
    func lineup(of id: ProfileID) async throws -> [ChannelID]
    func setLineup(_ channels: [ChannelID], of id: ProfileID) async throws

    /// Starts a session at `instant` (forgetting sessions expired by then).
    func createSession(tokenHash: String, for id: ProfileID, at instant: Date, expires: Date) async throws
    /// The profile a live session belongs to; nil when unknown or expired.
    func sessionProfile(tokenHash: String, at instant: Date) async throws -> Profile?
    func deleteSession(tokenHash: String) async throws

    func createAPIToken(tokenHash: String, name: String, scope: APIToken.Scope, for id: ProfileID) async throws -> APIToken
    func apiTokens(of id: ProfileID) async throws -> [APIToken]
    func revokeAPIToken(_ tokenID: Int64, of id: ProfileID) async throws
    /// The profile an API token belongs to and what the token may do, noting its use; nil when unknown or revoked.
    func tokenProfile(tokenHash: String, at instant: Date) async throws -> (profile: Profile, scope: APIToken.Scope)?
}

extension AccountStore {
    /// Adds a profile beside any others.
    public func createProfile(name: String, role: Profile.Role, secretKind: Profile.SecretKind, secretHash: String) async throws -> Profile {
        try await createProfile(name: name, role: role, secretKind: secretKind, secretHash: secretHash, onlyIfFirst: false)
    }
}

/// A profile with what signing in checks.
public struct Credentials: Sendable {
    public var profile: Profile
    public var secretHash: String

    public init(profile: Profile, secretHash: String) {
        self.profile = profile
        self.secretHash = secretHash
    }
}

/// What one sign-in count is kept for: a client address and a name, either of them "" for "any".
public struct ThrottleKey: Hashable, Sendable {
    public var address: String
    public var name: String

    /// `name` folded as names match (case-insensitive) and cut at 41 characters, longer than any profile name: a
    /// megabyte of name is stored as a short key.
    public init(address: String, name: String) {
        self.address = String(address.prefix(64))
        self.name = String(name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased().prefix(41))
    }
}

/// The outcome of counting one sign-in try.
public enum SignInCount: Sendable, Equatable {
    /// Counted: the tries counted in a row, this one included; whether the key is exempt from the name's shared count.
    case counted(failures: Int, trusted: Bool)
    /// Not counted, and not to be checked: the key waits until then.
    case waiting(until: Date)
}

/// A token a program sends as `Authorization: Bearer ...`; only its hash is stored.
public struct APIToken: Hashable, Sendable {
    /// What a token may do, each including the ones before: a media server gets `read`, a scheduler `refresh`.
    public enum Scope: String, Sendable, CaseIterable, Comparable {
        /// Read what admins read (sources, health, refresh progress); the guide itself needs no token.
        case read
        /// Also start refreshes.
        case refresh
        /// Also import any location and change the profile's lineup.
        case admin

        /// Each scope's place in the order read < refresh < admin.
        private var rank: Int {
            switch self {
            case .read: 0
            case .refresh: 1
            case .admin: 2
            }
        }

        public static func < (lhs: Scope, rhs: Scope) -> Bool { lhs.rank < rhs.rank }
    }

    public var id: Int64
    public var name: String
    public var scope: Scope
    public var created: Date
    public var lastUsed: Date?

    public init(id: Int64, name: String, scope: Scope, created: Date, lastUsed: Date?) {
        self.id = id
        self.name = name
        self.scope = scope
        self.created = created
        self.lastUsed = lastUsed
    }
}
