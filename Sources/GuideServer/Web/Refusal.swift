import GuideApplication
import GuideCore
import HTTPTypes
import Hummingbird

/// A request tvguide will not answer as asked, with why as a ``Sentence``: a page says it in the viewer's language
/// (``ErrorPages``), the JSON API and the grid's row requests in English, as Hummingbird's `HTTPError` does.
struct Refusal: WordedError, HTTPResponseError, CustomStringConvertible {
    let status: HTTPResponse.Status
    /// Sent with it, such as `Retry-After`.
    let headers: HTTPFields
    let sentence: Sentence

    init(_ status: HTTPResponse.Status, headers: HTTPFields = [:], saying text: String, _ values: [String: String] = [:]) {
        (self.status, self.headers, sentence) = (status, headers, Sentence(saying: text, values))
    }

    /// Why, as a type said it (a search's or a channel's problem).
    init(_ status: HTTPResponse.Status, headers: HTTPFields = [:], _ sentence: Sentence) {
        (self.status, self.headers, self.sentence) = (status, headers, sentence)
    }

    /// What the application refused, with the status its reason names.
    init(_ refused: ActionRefusal) {
        switch refused.reason {
        case .notFound: self.init(.notFound, refused.sentence)
        case .invalid: self.init(.badRequest, refused.sentence)
        case .tooMany(let seconds): self.init(.tooManyRequests, headers: [.retryAfter: String(seconds)], refused.sentence)
        }
    }

    /// In `words`' language, as an HTTP error.
    func error(_ words: Localizer) -> HTTPError {
        HTTPError(status, headers: headers, message: sentence.worded(words))
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try error(.english).response(from: request, context: context)
    }

    var description: String { sentence.description }
}
