import GuideHTTPServing
import Hummingbird

/// A rendered page.
struct HTMLPage: ResponseGenerator {
    var html: String
    var status: HTTPResponse.Status = .ok
    /// Seconds after which the browser loads the page again (a `Refresh` header): a page saying how far work is.
    var refresh: Int?

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        if let refresh, let name = HeaderNames.refresh { headers[name] = String(refresh) }
        return CompressibleBody.response(Array(html.utf8), for: request, status: status, headers: headers)
    }
}

extension Response {
    /// See Other: where a form goes after it did its work, so reloading does not post it again.
    static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }
}
