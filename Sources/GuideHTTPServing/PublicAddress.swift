import GuideApplication
import GuideCore
import Hummingbird
import NIOCore

extension ServerSettings {
    /// The guide's address for links it hands out (feeds' logos, the calendar feed): `--public-url`; else the `Host`
    /// the request was made to only when it names this server as the admin configured it (`host`) or as the connection
    /// reached it (its own address, or `localhost` over loopback), on the port it was reached on; else that address
    /// itself. A guest's made-up `Host` (or a forwarded header, which any client can send) never names the guide, so
    /// it never reaches a media server's feed, and there is one feed per address of this machine, not one per `Host`.
    public func publicAddress(for request: Request, local: SocketAddress?) -> String {
        if let configured = publicURL { return configured.hasSuffix("/") ? String(configured.dropLast()) : configured }
        return directAddress(for: request, local: local)
    }

    /// The address of this machine the client reached, whatever `--public-url` says: a host name the request gives when
    /// it is one of the machine's, else the address itself, with the port reached (a feed's tuner port, which no
    /// reverse proxy fronts).
    public func directAddress(for request: Request, local: SocketAddress?) -> String {
        guard let local, let ip = local.ipAddress, let port = local.port else { return "http://localhost" }
        let own = ip.hasPrefix("::ffff:") && ip.contains(".") ? String(ip.dropFirst(7)) : ip
        let written = own.contains(":") ? "[\(own)]" : own
        if let authority = request.head.authority, let (host, asked) = Self.hostAndPort(authority), asked == nil || asked == port {
            let names = Set(hostNames.map { $0.lowercased() } + [own.lowercased(), written.lowercased()]
                            + (own == "::1" || own.hasPrefix("127.") ? ["localhost"] : []))
            if names.contains(host) { return "http://\(host):\(port)" }
        }
        return "http://\(written):\(port)"
    }

    /// `host[:port]` or `[v6][:port]`, lower-cased, when it is made of a host's characters only.
    private static func hostAndPort(_ authority: String) -> (String, Int?)? {
        let text = authority.lowercased()
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-:[]")
        guard text.utf8.count <= 255, text.allSatisfy(allowed.contains) else { return nil }
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
            return (String(text[...close]), rest.isEmpty ? nil : Bounded.integer(String(rest.dropFirst()), in: 1...65_535).map { Int($0) })
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first, !name.isEmpty else { return nil }
        if parts.count == 2 {
            guard let port = Bounded.integer(String(parts[1]), in: 1...65_535) else { return nil }
            return (String(name), Int(port))
        }
        return (String(name), nil)
    }
}
