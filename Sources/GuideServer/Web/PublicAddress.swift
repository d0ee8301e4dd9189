import Hummingbird

extension ServerSettings {
    /// The guide's address for links it hands out (feeds' logos, the calendar feed): `--public-url`, else the
    /// `Host` the request was made to when it is a plain host and port (never a forwarded header, which any client
    /// can send), without a trailing `/`.
    func publicAddress(for request: Request) -> String {
        if let configured = publicURL { return configured.hasSuffix("/") ? String(configured.dropLast()) : configured }
        let host = request.head.authority ?? "localhost"
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
        return "http://" + (host.count <= 255 && host.allSatisfy(allowed.contains) ? host : "localhost")
    }
}
