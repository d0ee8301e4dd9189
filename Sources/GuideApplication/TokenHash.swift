import Crypto
import Foundation

/// How a secret token is kept: its SHA-256 in hex. A stored hash finds the token's feed, calendar or session; the token
/// itself is never stored.
public enum TokenHash {
    public static func hex(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
