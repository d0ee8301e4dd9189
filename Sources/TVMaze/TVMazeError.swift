import Foundation
import GuideCore

/// Why TVmaze could not answer.
public enum TVMazeError: WordedError, CustomStringConvertible, Equatable {
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

    /// Why, worded where it is shown; the details from elsewhere (a system's error, a decoder's) as they came.
    public var sentence: Sentence {
        switch self {
        case .badURL(let url): Sentence(saying: "{url} is not a URL: check --tvmaze-url", ["url": url])
        case .status(429, let url): Sentence(saying: "TVmaze kept asking us to slow down (429) for {url}; try again in a minute", ["url": url])
        case .status(let code, let url): Sentence(saying: "TVmaze answered {status} for {url}", ["status": "\(code)", "url": url])
        case .unreachable(let url, let detail): Sentence(saying: "TVmaze could not be reached for {url}: {detail}", ["url": url, "detail": detail])
        case .unreadable(let path, let detail): Sentence(saying: "TVmaze's answer for {path} could not be read: {detail}", ["path": path, "detail": detail])
        case .notFound(let path): Sentence(saying: "TVmaze has nothing at {path}", ["path": path])
        case .busy(let seconds): Sentence(saying: "tvguide is busy asking TVmaze for others; try again in {seconds} seconds", ["seconds": "\(seconds)"])
        case .unauthorized: Sentence(saying: "TVmaze refused the username and API key: copy the key again from your TVmaze dashboard (API section)")
        }
    }

    public var description: String { sentence.description }
}
