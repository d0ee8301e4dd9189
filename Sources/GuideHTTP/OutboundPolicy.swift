import Foundation

/// Which addresses tvguide may connect to when a viewer, a guest, a listings file or a playlist names the address
/// (webhook, ntfy and Web Push targets, channel logos, playlist guide offers), as Gitea's `webhook.ALLOWED_HOST_LIST`
/// does: any public address; never loopback, private (RFC 1918, RFC 4193, carrier-grade NAT), link-local (the cloud
/// metadata services among them), multicast, broadcast, unspecified or reserved addresses, nor IPv4 written inside
/// IPv6, unless the admin allows them with `allowed-hosts`. The rule is applied to the address actually connected to
/// (``PolicedTransport``), on every redirect.
public struct OutboundPolicy: Sendable, Equatable {
    /// What an admin may allow, in `allowed-hosts` (comma-separated).
    public enum Allowance: Sendable, Equatable {
        /// `private`: RFC 1918, RFC 4193 and carrier-grade NAT networks (a home's LAN); not loopback or link-local.
        case privateNetworks
        /// `loopback`: 127.0.0.0/8 and ::1 (a receiver on the same machine).
        case loopback
        /// `*`: every address (no rule at all).
        case everything
        /// A host name (`ha.lan`) or an address (`192.168.1.10`), with a port (`:8123`) or any port.
        case host(String, port: Int?)
    }

    public var allowances: [Allowance]

    /// Public addresses only: the default.
    public static let external = OutboundPolicy(allowances: [])

    public init(allowances: [Allowance]) {
        self.allowances = allowances
    }

    /// `allowed-hosts` as an admin writes it: `private, loopback, ha.lan, 192.168.1.10:8123, [fd00::5]:443, *`.
    public init(parsing text: String) throws(OutboundPolicyError) {
        var allowances: [Allowance] = []
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            switch item.lowercased() {
            case "private": allowances.append(.privateNetworks)
            case "loopback": allowances.append(.loopback)
            case "*": allowances.append(.everything)
            case "external": break
            default:
                guard let (host, port) = Self.hostAndPort(item) else {
                    throw OutboundPolicyError("names \(item), which is not a host name, an address, host:port, private, loopback, external or *")
                }
                allowances.append(.host(host, port: port))
            }
        }
        self.allowances = allowances
    }

    /// The allowances as `allowed-hosts` writes them ("external" for none).
    public var written: String {
        allowances.isEmpty ? "external" : allowances.map { allowance in
            switch allowance {
            case .privateNetworks: "private"
            case .loopback: "loopback"
            case .everything: "*"
            case .host(let host, let port): (host.contains(":") && port != nil ? "[\(host)]" : host) + (port.map { ":\($0)" } ?? "")
            }
        }.joined(separator: ", ")
    }

    /// Whether connecting to `address` (its bytes: 4 or 16) for `host`:`port` (the URL's) is allowed.
    public func allows(_ address: [UInt8], host: String, port: Int) -> Bool {
        let kind = Self.classify(address)
        if kind == .public { return true }
        let written = Self.written(address)
        for allowance in allowances {
            switch allowance {
            case .everything: return true
            case .privateNetworks where kind == .private: return true
            case .loopback where kind == .loopback: return true
            case .host(let name, let allowedPort) where allowedPort == nil || allowedPort == port:
                if name == host.lowercased() || name == written { return true }
            default: continue
            }
        }
        return false
    }

    /// What kind of network an address is on.
    public enum Kind: Sendable, Equatable {
        case `public`, `private`, loopback
        /// Link-local, multicast, broadcast, unspecified, reserved, documentation, or IPv4 inside IPv6.
        case special
    }

    public static func classify(_ address: [UInt8]) -> Kind {
        if address.count == 4 { return classify4(address) }
        guard address.count == 16 else { return .special }
        let words = stride(from: 0, to: 16, by: 2).map { UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]) }
        if words[0..<7].allSatisfy({ $0 == 0 }) && (words[7] == 1) { return .loopback }                      // ::1
        if words.allSatisfy({ $0 == 0 }) { return .special }                                                   // ::
        if words[0..<5].allSatisfy({ $0 == 0 }) && (words[5] == 0xFFFF || words[5] == 0) { return .special } // ::ffff:a.b.c.d, ::a.b.c.d
        if words[0] == 0x64 && words[1] == 0xFF9B { return .special }                                         // 64:ff9b::/96 (NAT64)
        if words[0] == 0x2002 { return .special }                                                              // 6to4
        if words[0] & 0xFE00 == 0xFC00 { return .private }                                                     // fc00::/7 (RFC 4193)
        if words[0] & 0xFFC0 == 0xFE80 || words[0] & 0xFFC0 == 0xFEC0 { return .special }                     // link-local, site-local
        if words[0] & 0xFF00 == 0xFF00 { return .special }                                                     // multicast
        if words[0] == 0x2001 && words[1] == 0x0DB8 { return .special }                                       // documentation
        if words[0] == 0x0100 && words[1..<4].allSatisfy({ $0 == 0 }) { return .special }                     // discard 100::/64
        return .public
    }

    private static func classify4(_ a: [UInt8]) -> Kind {
        switch (a[0], a[1]) {
        case (127, _): return .loopback
        case (10, _), (172, 16...31), (192, 168): return .private
        case (100, 64...127): return .private                                   // carrier-grade NAT
        case (0, _), (169, 254), (224...255, _): return .special                // unspecified, link-local, multicast, reserved, broadcast
        case (192, 0) where a[2] == 0 || a[2] == 2: return .special             // IETF protocol assignments, documentation
        case (198, 18...19): return .special                                    // benchmarking
        case (198, 51) where a[2] == 100, (203, 0) where a[2] == 113: return .special
        default: return .public
        }
    }

    /// The address's bytes, when `text` is an IPv4 or IPv6 address (brackets allowed).
    public static func bytes(of text: String) -> [UInt8]? {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        guard bare.utf8.count <= 45 else { return nil }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        if inet_pton(AF_INET6, bare, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The address in its one written form (`127.0.0.1`, `::1`).
    public static func written(_ address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        return address.withUnsafeBytes { bytes in
            inet_ntop(family, bytes.baseAddress, &buffer, socklen_t(buffer.count)).map { String(cString: $0) } ?? ""
        }
    }

    /// `name`, `name:port`, `address`, `[v6]:port`, lower-cased; nil when it is none of them.
    private static func hostAndPort(_ item: String) -> (String, Int?)? {
        var host = item.lowercased(), port: Int?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()), (1...65_535).contains(number) else { return nil }
                port = number
            }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]), (1...65_535).contains(number) else { return nil }
            port = number
            host = String(host[..<colon])
        }
        if let address = bytes(of: host) { return (written(address), port) }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !host.isEmpty, host.utf8.count <= 253, labels.allSatisfy({ label in
            !label.isEmpty && label.count <= 63 && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }) else { return nil }
        return (host, port)
    }
}

/// `allowed-hosts` could not be read.
public struct OutboundPolicyError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
