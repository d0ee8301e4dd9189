import Crypto
import Foundation
import GuideStore
import Synchronization

/// The server's VAPID key (RFC 8292): made the first time it is needed and kept in the store, so every instance and
/// every restart signs with the same one and browsers' subscriptions keep working.
public final class VAPIDKey: Sendable {
    let store: any ReminderStore
    /// Who push services may contact about this server: `mailto:` an address, or the guide's https address.
    public let subject: String
    let now: @Sendable () -> Date
    private let cached = Mutex<P256.Signing.PrivateKey?>(nil)

    public init(store: any ReminderStore, subject: String, now: @escaping @Sendable () -> Date) {
        (self.store, self.subject, self.now) = (store, subject, now)
    }

    public func key() async throws -> P256.Signing.PrivateKey {
        if let key = cached.withLock({ $0 }) { return key }
        let pem = try await store.serverSecret(named: "vapid-p256", make: { P256.Signing.PrivateKey().pemRepresentation }, at: now())
        let key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        cached.withLock { $0 = key }
        return key
    }

    /// The public key as browsers take it for `applicationServerKey`: the uncompressed point, base64url.
    public func publicKey() async throws -> String {
        WebPush.base64URL(try await key().publicKey.x963Representation)
    }
}
