import Crypto
import Foundation
import GuideApplication
import GuideCore
import GuideStore
import HummingbirdBcrypt

/// Signing in and out, profiles, sessions and API tokens: the policy over an ``AccountStore``. Secrets people type
/// are hashed with bcrypt (slow, salted); the long random tokens browsers and programs hold are stored as SHA-256.
struct Accounts: Sendable {
    let store: any AccountStore
    let now: @Sendable () -> Date
    /// bcrypt's cost: 12 (about a quarter of a second) by default; tests lower it.
    let cost: UInt8
    let throttle = SignInThrottle()
    /// bcrypt's own thread and queue.
    let hasher: SecretHasher
    /// A bcrypt hash of nothing anyone knows, checked for unknown names so they take as long as known ones.
    private let decoyHash: String

    init(store: any AccountStore, now: @escaping @Sendable () -> Date, cost: UInt8, hasher: SecretHasher = SecretHasher()) {
        self.store = store
        self.now = now
        self.cost = cost
        self.hasher = hasher
        decoyHash = Bcrypt.hash(Self.randomToken(), cost: cost)
    }
    /// How long a sign-in lasts.
    static let sessionLength: TimeInterval = 30 * 86_400

    enum SignIn: Sendable {
        case signedIn(Profile, sessionToken: String)
        /// Wrong name or secret, checked; `triesLeft` before waits begin, or the wait this try started.
        case wrong(triesLeft: Int, waitUntil: Date?)
        /// Not checked: too many tries from this address, or for this name; no try is checked until `until`.
        case waiting(until: Date)
        /// Not checked: too many sign-ins at once; try again in `retryAfter` seconds.
        case busy(retryAfter: Int)
    }

    /// Checks `secret` for the profile called `name`, tried from `address`. The try is counted first, atomically,
    /// for the address and name, the address, and (unless the address signed in to the name lately) the name from
    /// everywhere; a try that has to wait is refused without checking. Unknown and known names are counted, checked
    /// (against a decoy) and answered alike.
    func signIn(name: String, secret: String, from address: String) async throws -> SignIn {
        let instant = now()
        guard hasher.hasRoom else { return .busy(retryAfter: 2) }
        let pair = ThrottleKey(address: address, name: name)
        var pairFailures = 0, pairTrusted = false
        let counts: [(ThrottleKey, SignInThrottle.Rule)] = [
            (ThrottleKey(address: address, name: ""), throttle.address), (pair, throttle.addressAndName),
            (ThrottleKey(address: "", name: name), throttle.name),
        ]
        // Counts idle for a day go first (one indexed delete): an attack that never succeeds leaves no lasting rows.
        try await store.pruneSignInCounts(idleSince: instant.addingTimeInterval(-throttle.forgetAfter))
        for (key, rule) in counts {
            // The name's shared count (address "") is for addresses that have not signed in to it lately.
            if key.address.isEmpty, pairTrusted { continue }
            switch try await store.countSignInTry(key, rule: rule, at: instant) {
            case .waiting(let until):
                return .waiting(until: until)
            case .counted(let failures, let trusted) where key == pair:
                (pairFailures, pairTrusted) = (failures, trusted)
            case .counted:
                break
            }
        }
        let credentials = try await store.credentials(named: name)
        let matches: Bool
        do {
            matches = try await hasher.verify(secret, hash: credentials?.secretHash ?? decoyHash)
        } catch {
            return .busy(retryAfter: error.retryAfter)
        }
        guard matches, let profile = credentials?.profile else {
            let wait = throttle.addressAndName.wait(afterFailures: pairFailures)
            return .wrong(triesLeft: max(0, throttle.addressAndName.freeTries - pairFailures), waitUntil: wait.map { instant.addingTimeInterval($0) })
        }
        let token = Self.randomToken()
        try await store.recordSignInSuccess(address: address, name: name, trustedUntil: instant.addingTimeInterval(throttle.trustFor),
                                      at: instant)
        try await store.createSession(tokenHash: Self.digest(token), for: profile.id, at: instant, expires: instant.addingTimeInterval(Self.sessionLength))

        return .signedIn(profile, sessionToken: token)
    }

    func signOut(sessionToken: String) async throws {
        try await store.deleteSession(tokenHash: Self.digest(sessionToken))
    }

    /// The profile signed in with this session cookie, if it is live.
    func profile(sessionToken: String) async throws -> Profile? {
        let instant = now()
        return try await store.sessionProfile(tokenHash: Self.digest(sessionToken), at: instant)
    }

    /// The profile a program's bearer token belongs to and what the token may do, if it is not revoked.
    func profile(apiToken: String) async throws -> (profile: Profile, scope: APIToken.Scope)? {
        let instant = now()
        return try await store.tokenProfile(tokenHash: Self.digest(apiToken), at: instant)
    }

    /// Whether anyone can sign in yet; until then the server offers the one-time setup.
    func hasProfiles() async throws -> Bool {
        try await !store.profiles().isEmpty
    }

    /// A new profile, after checking its name and secret; the error's message is for the form.
    /// `onlyIfFirst`: the first-run setup, which fails when any profile exists (one setup ever succeeds).
    func createProfile(name: String, role: Profile.Role, kind: Profile.SecretKind, secret: String,
                       onlyIfFirst: Bool = false) async throws -> Profile {
        if let problem = Profile.problem(withName: name) ?? Profile.problem(with: secret, as: kind) {
            throw AccountError(problem)
        }
        let hash: String
        do {
            hash = try await hasher.hash(secret, cost: cost)
        } catch {
            throw AccountError(saying: "tvguide is busy checking sign-ins; try again in a few seconds.")
        }
        do {
            return try await store.createProfile(name: name, role: role, secretKind: kind, secretHash: hash, onlyIfFirst: onlyIfFirst)
        } catch let error as StoreError where error.code == .conflict {
            throw onlyIfFirst ? AccountError(saying: "tvguide is already set up: sign in, and ask an admin for a profile.")
                : AccountError(saying: "There is already a profile called {name}.", ["name": name.trimmingCharacters(in: .whitespaces)])
        }
    }

    /// A new API token for `profile`: the token itself is shown once and never stored.
    func createAPIToken(named name: String, scope: APIToken.Scope, for profile: ProfileID) async throws -> (token: String, record: APIToken) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 60 else { throw AccountError(saying: "Name the token (up to 60 characters), like \"Jellyfin\".") }
        let token = "tvg_" + Self.randomToken()
        let record = try await store.createAPIToken(tokenHash: Self.digest(token), name: trimmed, scope: scope, for: profile)
        return (token, record)
    }

    /// 32 random bytes as hex, from the system's secure generator.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func digest(_ token: String) -> String {
        TokenHash.hex(token)
    }
}

/// A refusal for the form that asked, worded in the viewer's language when shown.
struct AccountError: Error, CustomStringConvertible {
    private let worded: @Sendable (Localizer) -> String

    /// A sentence in English with `{placeholders}` (the catalog's key).
    init(saying text: String, _ values: [String: String] = [:]) {
        worded = { words in words(text, values: values) }
    }

    /// A field's problem.
    init(_ problem: FieldError) {
        worded = { words in problem.message(words) }
    }

    func message(_ words: Localizer) -> String { worded(words) }

    var description: String { message(.english) }
}
