import Crypto
import Foundation
import GuideCore
import GuideStore
import HummingbirdBcrypt
import NIOPosix

/// Signing in and out, profiles, sessions and API tokens: the policy over an ``AccountStore``. Secrets people type
/// are hashed with bcrypt (slow, salted); the long random tokens browsers and programs hold are stored as SHA-256.
struct Accounts: Sendable {
    let store: any AccountStore
    let now: @Sendable () -> Date
    /// bcrypt's cost: 12 (about a quarter of a second) by default; tests lower it.
    let cost: UInt8
    let throttle = SignInThrottle()
    /// A bcrypt hash of nothing anyone knows, checked for unknown names so they take as long as known ones.
    private let decoyHash: String

    init(store: any AccountStore, now: @escaping @Sendable () -> Date, cost: UInt8) {
        self.store = store
        self.now = now
        self.cost = cost
        decoyHash = Bcrypt.hash(Self.randomToken(), cost: cost)
    }
    /// How long a sign-in lasts.
    static let sessionLength: TimeInterval = 30 * 86_400

    enum SignIn: Sendable {
        case signedIn(Profile, sessionToken: String)
        /// Wrong name or secret; `triesLeft` before waits begin (0 when they have).
        case wrong(triesLeft: Int)
        /// Too many wrong tries: no try is checked until `until`.
        case locked(until: Date)
    }

    /// Checks `secret` for the profile called `name`. A locked profile is refused without checking, so waiting is
    /// the only way on; an unknown name costs the same bcrypt time as a known one.
    func signIn(name: String, secret: String) async throws -> SignIn {
        let instant = now()
        guard let credentials = try await blocking({ try store.credentials(named: name) }) else {
            _ = await hashing { [decoyHash] in Bcrypt.verify(secret, hash: decoyHash) }
            return .wrong(triesLeft: throttle.freeTries)
        }
        if let until = credentials.lockedUntil, until > instant { return .locked(until: until) }
        let matches = await hashing { Bcrypt.verify(secret, hash: credentials.secretHash) }
        let profile = credentials.profile
        guard matches else {
            let failures = credentials.failures + 1
            let wait = throttle.wait(afterFailures: failures)
            let until = wait.map { instant.addingTimeInterval($0) }
            try await blocking { try store.recordSignIn(profile.id, failures: failures, lockedUntil: until) }
            if let until { return .locked(until: until) }
            return .wrong(triesLeft: throttle.freeTries - failures)
        }
        let token = Self.randomToken()
        try await blocking {
            try store.recordSignIn(profile.id, failures: 0, lockedUntil: nil)
            try store.createSession(tokenHash: Self.digest(token), for: profile.id, at: instant, expires: instant.addingTimeInterval(Self.sessionLength))
        }
        return .signedIn(profile, sessionToken: token)
    }

    func signOut(sessionToken: String) async throws {
        try await blocking { try store.deleteSession(tokenHash: Self.digest(sessionToken)) }
    }

    /// The profile signed in with this session cookie, if it is live.
    func profile(sessionToken: String) async throws -> Profile? {
        let instant = now()
        return try await blocking { try store.sessionProfile(tokenHash: Self.digest(sessionToken), at: instant) }
    }

    /// The profile a program's bearer token belongs to, if it is not revoked.
    func profile(apiToken: String) async throws -> Profile? {
        let instant = now()
        return try await blocking { try store.tokenProfile(tokenHash: Self.digest(apiToken), at: instant) }
    }

    /// Whether anyone can sign in yet; until then the server offers the one-time setup.
    func hasProfiles() async throws -> Bool {
        try await blocking { try !store.profiles().isEmpty }
    }

    /// A new profile, after checking its name and secret; the error's message is for the form.
    func createProfile(name: String, role: Profile.Role, kind: Profile.SecretKind, secret: String) async throws -> Profile {
        if let problem = Profile.problem(withName: name) ?? Profile.problem(with: secret, as: kind) {
            throw AccountError(problem)
        }
        let hash = await hashing { [cost] in Bcrypt.hash(secret, cost: cost) }
        do {
            return try await blocking { try store.createProfile(name: name, role: role, secretKind: kind, secretHash: hash) }
        } catch let error as StoreError where error.code == .conflict {
            throw AccountError("There is already a profile called \(name.trimmingCharacters(in: .whitespaces)).")
        }
    }

    /// A new API token for `profile`: the token itself is shown once and never stored.
    func createAPIToken(named name: String, for profile: ProfileID) async throws -> (token: String, record: APIToken) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 60 else { throw AccountError("Name the token (up to 60 characters), like \"Jellyfin\".") }
        let token = "tvg_" + Self.randomToken()
        let record = try await blocking { try store.createAPIToken(tokenHash: Self.digest(token), name: trimmed, for: profile) }
        return (token, record)
    }

    /// 32 random bytes as hex, from the system's secure generator.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }


    private func hashing<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        // bcrypt takes a quarter of a second of CPU: off the event loops, like the store's work. The pool is only
        // inactive while the server shuts down; then hashing here is the intended fallback.
        (try? await NIOThreadPool.singleton.runIfActive(body)) ?? body()
    }
}

/// A refusal whose message the page shows as it is.
struct AccountError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
