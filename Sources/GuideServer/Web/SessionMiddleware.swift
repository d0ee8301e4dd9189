import Foundation
import GuideCore
import Hummingbird
import HTTPTypes

/// Works out who is asking (session cookie or API token), gives every page a form token, and refuses any form post
/// whose token does not match its cookie (CSRF). The JSON API takes no cookies for changes: a program proves itself
/// with `Authorization: Bearer`, which another site cannot make a browser send.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = GuideRequestContext
    let accounts: Accounts
    /// Whether cookies carry `Secure` (on unless the admin serves plain HTTP beyond loopback on purpose).
    let secureCookies: Bool

    static let sessionCookie = "tvguide_session"
    static let csrfCookie = "tvguide_csrf"
    static let zoneCookie = "tz"
    static let themeCookie = "theme"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var request = request
        if let token = request.cookies[Self.sessionCookie]?.value, Self.isToken(token),
           let profile = try await accounts.profile(sessionToken: token) {
            context.viewer = Viewer(profile: profile, credential: .session(token))
        }
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") {
            let token = String(authorization.dropFirst("Bearer ".count))
            guard let holder = try await accounts.profile(apiToken: token) else {
                throw HTTPError(.unauthorized, message: "the API token is unknown or was revoked")
            }
            context.viewer = Viewer(profile: holder.profile, credential: .apiToken(holder.scope))
        }
        if let zone = request.cookies[Self.zoneCookie]?.value.removingPercentEncoding, let timeZone = TimeZone(identifier: zone) {
            context.browserZone = timeZone
        }
        context.browserTheme = request.cookies[Self.themeCookie].flatMap { Profile.Theme(rawValue: $0.value) }
        let existing = request.cookies[Self.csrfCookie]?.value
        let csrf = existing.flatMap { Self.isToken($0) ? $0 : nil } ?? Accounts.randomToken()
        context.csrfToken = csrf

        let isAPI = request.uri.path.hasPrefix("/api/")
        if request.method == .post, !isAPI {
            let body = try await request.collectBody(upTo: context.maxUploadSize)
            let form = FormFields(encoded: String(buffer: body))
            guard let sent = form.raw("csrf"), let existing, Self.constantTimeEqual(sent, existing) else {
                throw HTTPError(.forbidden, message: "This form is out of date or came from another site. Go back, reload the page and try again.")
            }
        }
        var response = try await next(request, context)
        if existing != csrf {
            response.setCookie(cookie(Self.csrfCookie, csrf, sameSite: .strict))
        }
        return response
    }

    /// The session cookie after signing in (or, with an empty value, signing out).
    func sessionCookie(_ token: String) -> Cookie {
        cookie(Self.sessionCookie, token, sameSite: .lax, maxAge: token.isEmpty ? 0 : Int(Accounts.sessionLength))
    }

    private func cookie(_ name: String, _ value: String, sameSite: Cookie.SameSite, maxAge: Int? = nil) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: secureCookies, httpOnly: true, sameSite: sameSite)
    }

    private static func isToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
