import Foundation

/// Why TVmaze could not answer.
public enum TVMazeError: Error, CustomStringConvertible, Equatable {
    case badURL(String)
    /// An answer other than 200 or 404 (after the retries, for 429 and 5xx).
    case status(Int, url: String)
    /// No answer: the connection failed or dropped, every try.
    case unreachable(url: String, detail: String)
    /// An answer that is not what TVmaze sends.
    case unreadable(path: String, detail: String)
    /// TVmaze has no such thing (a show or episode id it does not know).
    case notFound(path: String)
    /// Not asked: the request could not be made in time (too many before it); try again after so many seconds.
    case busy(retryAfter: Int)
    /// The user API refused the username and API key (401).
    case unauthorized

    /// Whether asking later may work (so a stale cached answer stands in).
    public var isTemporary: Bool {
        switch self {
        case .status(let code, _): code == 429 || code >= 500
        case .unreachable, .busy: true
        case .badURL, .unreadable, .notFound, .unauthorized: false
        }
    }

    public var description: String {
        switch self {
        case .badURL(let url): "\(url) is not a URL: check --tvmaze-url"
        case .status(429, let url): "TVmaze kept asking us to slow down (429) for \(url); try again in a minute"
        case .status(let code, let url): "TVmaze answered \(code) for \(url)"
        case .unreachable(let url, let detail): "TVmaze could not be reached for \(url): \(detail)"
        case .unreadable(let path, let detail): "TVmaze's answer for \(path) could not be read: \(detail)"
        case .notFound(let path): "TVmaze has nothing at \(path)"
        case .busy(let seconds): "tvguide is busy asking TVmaze for others; try again in \(seconds) seconds"
        case .unauthorized: "TVmaze refused the username and API key: copy the key again from your TVmaze dashboard (API section)"
        }
    }
}
