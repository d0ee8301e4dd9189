import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The address a request comes from, as sign-in throttling counts it: the connection's peer, or, when that peer is a
/// reverse proxy named with `--trusted-proxy`, the address the proxy says it forwarded for (the rightmost
/// `X-Forwarded-For` entry that is not itself a trusted proxy). IPv6 addresses count by their /64 network, which one
/// home or one attacker's host usually holds whole.
struct ClientAddress: Sendable {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The proxies whose `X-Forwarded-For` is believed, as written (`127.0.0.1`, `::1`).
    let trustedProxies: Set<String>

    init(trustedProxies: [String]) {
        self.trustedProxies = Set(trustedProxies.compactMap(Self.canonical))
    }

    func of(_ request: Request, peer: SocketAddress?) -> String {
        guard let peerText = peer?.ipAddress.flatMap(Self.canonical) else { return "unknown" }
        var client = peerText
        if trustedProxies.contains(peerText), let forwarded = request.headers[values: Self.forwardedFor].last {
            for entry in forwarded.split(separator: ",").reversed() {
                guard let address = Self.canonical(entry.trimmingCharacters(in: .whitespaces)) else { break }
                client = address
                if !trustedProxies.contains(address) { break }
            }
        }
        return Self.throttleKey(client)
    }

    /// The address in its one written form, or nil when `text` is not an IPv4 or IPv6 address.
    static func canonical(_ text: String) -> String? {
        guard text.utf8.count <= 45 else { return nil }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            return inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)).map { String(cString: $0) }
        }
        if inet_pton(AF_INET6, text, &v6) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            return inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)).map { String(cString: $0) }
        }
        return nil
    }

    /// IPv4 as it is; IPv6 as its /64 network (`2001:db8:1:2::/64`).
    static func throttleKey(_ canonical: String) -> String {
        guard canonical.contains(":"), !canonical.hasPrefix("::ffff:") else { return canonical }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, canonical, &v6) == 1 else { return canonical }
        withUnsafeMutableBytes(of: &v6) { bytes in for index in 8..<16 { bytes[index] = 0 } }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return (inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)).map { String(cString: $0) } ?? canonical) + "/64"
    }
}
