import Crypto
import Foundation
import GuideStore
import Synchronization

/// The token every form carries back (CSRF): an HMAC of the browser's session token (a guest's: of a random nonce in
/// its `tvguide_csrf` cookie) under a key the server keeps in its database, shared by every instance. A client can
/// choose a cookie, but not the token that goes with it, and a signed-in profile's token is good for its own session
/// only.
final class FormTokens: Sendable {
    private let store: any ReminderStore
    private let now: @Sendable () -> Date
    private let key = Mutex<SymmetricKey?>(nil)

    init(store: any ReminderStore, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// The form token for a signed-in session.
    func token(session: String) async throws -> String {
        try await token(binding: "session " + session)
    }

    /// The form token for a guest whose cookie holds `nonce`.
    func token(guestNonce nonce: String) async throws -> String {
        try await token(binding: "guest " + nonce)
    }

    private func token(binding: String) async throws -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(binding.utf8), using: try await serverKey())
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// The key, read (or made and kept) once per process.
    private func serverKey() async throws -> SymmetricKey {
        if let known = key.withLock({ $0 }) { return known }
        let hex = try await store.serverSecret(named: "form-token-key", make: Accounts.randomToken, at: now())
        let made = SymmetricKey(data: Data(hex.utf8))
        key.withLock { $0 = made }
        return made
    }
}
