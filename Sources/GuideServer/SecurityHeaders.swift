import HTTPTypes
import Hummingbird

/// Headers every response carries: no inline script or style from anywhere, no framing, no MIME sniffing, no
/// referrer leaking to other sites.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https: http:; "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await next(request, context)
            add(to: &response.headers)
            return response
        } catch let error as any HTTPResponseError {
            // Errors become responses further out; they carry the same headers.
            var response = try error.response(from: request, context: context)
            add(to: &response.headers)
            return response
        }
    }

    private func add(to headers: inout HTTPFields) {
        // A response with a policy of its own keeps it (an image's is narrower than a page's).
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = Self.contentSecurityPolicy }
        headers[.xContentTypeOptions] = "nosniff"
        if let name = HeaderNames.referrerPolicy { headers[name] = "same-origin" }
        if let name = HeaderNames.frameOptions { headers[name] = "DENY" }
    }
}

/// Header names swift-http-types does not spell out.
enum HeaderNames {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")
    static let frameOptions = HTTPField.Name("X-Frame-Options")
    /// Where a browser says a request comes from: this site (`same-origin`), typed or bookmarked (`none`), or another.
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site")
    /// Seconds after which a browser loads the page again.
    static let refresh = HTTPField.Name("Refresh")
}
