import Foundation

/// The one rule for following a redirect, whoever follows it (``PolicedTransport``'s hops, ``JSONCall``'s): at most
/// ``most`` hops; only a GET or HEAD follows one (another method's redirect is its answer: its body, a sign-in's
/// password among them, is never sent on); and a hop to another origin carries only the headers that say what the
/// request is (``plain``), never one that says who sends it, whatever its name (`Authorization`, `Cookie`,
/// Schedules Direct's `token`, `X-Emby-Token`, `X-Plex-Token`, an API key's header).
public enum RedirectHop {
    public static let most = 5

    /// Headers that go on to another origin.
    static let plain: Set<String> = ["accept", "accept-encoding", "accept-language", "user-agent", "content-type", "if-none-match",
                                     "if-modified-since", "range"]

    /// Where `reply` sends a request for `url` made with `method` (the transport checks it as it checks any address:
    /// another scheme is refused there); nil when the reply is the answer.
    static func next(from url: URL, method: String, reply: HTTPReply) -> URL? {
        guard ["GET", "HEAD"].contains(method), [301, 302, 303, 307, 308].contains(reply.status), let location = reply.headers["location"],
              let next = URL(string: location, relativeTo: url)?.absoluteURL else {
            return nil
        }
        return next
    }

    /// The headers a hop from `url` to `next` carries, and the names of those left behind (another origin's hop).
    static func headers(_ headers: [(String, String)], from url: URL, to next: URL) -> (kept: [(String, String)], dropped: [String]) {
        guard origin(of: next) != origin(of: url) else { return (headers, []) }
        let kept = headers.filter { plain.contains($0.0.lowercased()) }
        return (kept, headers.filter { !plain.contains($0.0.lowercased()) }.map(\.0))
    }

    /// Scheme, host and port: what a credential was given for.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }
}
