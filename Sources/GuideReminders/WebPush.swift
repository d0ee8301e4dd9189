import Crypto
import Foundation
import GuideCore

/// Web Push as browsers' push services take it: the message encrypted for the subscription (RFC 8291, `aes128gcm`
/// of RFC 8188) and the request signed by the server's VAPID key (RFC 8292).
public enum WebPush {
    /// A browser's subscription: where to send, and its keys (`p256dh`, 65 bytes; `auth`, 16), as the browser's
    /// `PushSubscription.toJSON()` gives them (base64url).
    public struct Subscription: Sendable, Codable, Equatable {
        public var endpoint: String
        public var p256dh: String
        public var auth: String

        public init(endpoint: String, p256dh: String, auth: String) {
            (self.endpoint, self.p256dh, self.auth) = (endpoint, p256dh, auth)
        }

        /// The keys as a delivery channel keeps them (its secret): `{"p256dh": ..., "auth": ...}`.
        public var keysJSON: String {
            String(decoding: (try? JSONSerialization.data(withJSONObject: ["p256dh": p256dh, "auth": auth], options: [.sortedKeys])) ?? Data(),
                   as: UTF8.self)
        }

        public init?(endpoint: String, keysJSON: String?) {
            guard let data = keysJSON?.data(using: .utf8),
                  let keys = (try? JSONSerialization.jsonObject(with: data)) as? [String: String],
                  let p256dh = keys["p256dh"], let auth = keys["auth"] else { return nil }
            self.init(endpoint: endpoint, p256dh: p256dh, auth: auth)
        }

        /// Why it cannot be used; nil when the keys are a P-256 point and a 16-byte secret and the endpoint https.
        public var problem: Sentence? {
            guard let url = URL(string: endpoint), url.scheme?.lowercased() == "https", url.host?.isEmpty == false,
                  endpoint.count <= 2048 else { return Sentence(saying: "a push endpoint is an https URL") }
            guard let key = WebPush.base64URLDecoded(p256dh), (try? P256.KeyAgreement.PublicKey(x963Representation: key)) != nil else {
                return Sentence(saying: "the subscription's p256dh is not a P-256 public key")
            }
            guard WebPush.base64URLDecoded(auth)?.count == 16 else { return Sentence(saying: "the subscription's auth secret is not 16 bytes") }
            return nil
        }
    }

    /// `payload` encrypted for `subscription`: salt, record size, the server's one-time public key, then the one
    /// record (RFC 8291 section 3.4, RFC 8188 section 2). `salt` and `serverKey` are made fresh unless a test gives them.
    public static func encrypt(_ payload: Data, for subscription: Subscription, salt: Data? = nil,
                               serverKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey()) throws -> Data {
        guard let uaPublic = base64URLDecoded(subscription.p256dh), let authSecret = base64URLDecoded(subscription.auth) else {
            throw DeliveryFailure(Sentence(saying: "the subscription's keys are not base64url"), isPermanent: true)
        }
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: uaPublic)
        let asPublic = serverKey.publicKey.x963Representation
        let shared = try serverKey.sharedSecretFromKeyAgreement(with: receiver)
        // IKM = HKDF(salt: auth_secret, ikm: ECDH, info: "WebPush: info" 0x00 ua_public as_public).
        let keyInfo = Data("WebPush: info".utf8) + [0] + uaPublic + asPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let salt = salt ?? Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let cek = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: aes128gcm".utf8) + [0],
                                         outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: nonce".utf8) + [0],
                                           outputByteCount: 12).withUnsafeBytes { Data($0) }
        // One record: the payload, then the delimiter 0x02 of the last record.
        let sealed = try AES.GCM.seal(payload + [2], using: cek, nonce: try AES.GCM.Nonce(data: nonce))
        var body = salt
        body += withUnsafeBytes(of: UInt32(4096).bigEndian) { Data($0) }
        body.append(UInt8(asPublic.count))
        body += asPublic
        body += sealed.ciphertext + sealed.tag
        return body
    }

    /// The largest payload sent: push services take 4,096 bytes of body, less the header and the tag.
    public static let largestPayload = 3_000

    /// `Authorization: vapid t=JWT, k=KEY` for a request to `endpoint`: an ES256 JWT for the endpoint's origin,
    /// expiring in 12 hours, naming `subject` (a mailto: or https: contact).
    public static func authorization(for endpoint: String, key: P256.Signing.PrivateKey, subject: String, at instant: Date) throws -> String {
        guard let url = URL(string: endpoint), let scheme = url.scheme, let host = url.host else {
            throw DeliveryFailure(Sentence(saying: "the push endpoint {address} is not a URL", ["address": endpoint]), isPermanent: true)
        }
        let audience = scheme + "://" + host + (url.port.map { ":\($0)" } ?? "")
        let header = base64URL(Data(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = try JSONSerialization.data(withJSONObject: ["aud": audience, "exp": Int(instant.timeIntervalSince1970) + 12 * 3600,
                                                                 "sub": subject], options: [.sortedKeys])
        let signingInput = header + "." + base64URL(claims)
        let signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        return "vapid t=\(signingInput).\(base64URL(signature)), k=\(base64URL(key.publicKey.x963Representation))"
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func base64URLDecoded(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
