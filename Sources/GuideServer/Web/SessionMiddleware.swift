import Foundation
import GuideCore
import GuideWebFormats
import Hummingbird
import HTTPTypes

/// Works out which profile a browser is signed in as (its session cookie; never an API token, which only the API's
/// group reads), gives every page a form token bound to that session (``FormTokens``), and refuses any form post
/// whose token is not the one the server issued to this browser (CSRF). The JSON API takes no cookies for changes:
/// a program proves itself with `Authorization: Bearer`, which another site cannot make a browser send.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = GuideRequestContext
    let accounts: Accounts
    let formTokens: FormTokens
    /// Whether cookies carry `Secure` (on unless the admin serves plain HTTP beyond loopback on purpose).
    let secureCookies: Bool
    /// `__Host-` when the guide is served over https (its public address says so): such a cookie is Secure, for this
    /// host and path / only, and no neighbouring subdomain can set it.
    let cookiePrefix: String

    init(accounts: Accounts, formTokens: FormTokens, secureCookies: Bool, publicURL: String?) {
        self.accounts = accounts
        self.formTokens = formTokens
        self.secureCookies = secureCookies
        cookiePrefix = secureCookies && publicURL?.lowercased().hasPrefix("https://") == true ? "__Host-" : ""
    }

    static let sessionCookie = "tvguide_session"
    static let csrfCookie = "tvguide_csrf"
    static let zoneCookie = "tz"
    static let themeCookie = "theme"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        try await identify(request, &context)
        let asked = TVMode.asked(request)

        var newNonce: String?
        if let viewer = context.viewer {
            context.csrfToken = try await formTokens.token(session: viewer.sessionToken)
        } else {
            let nonce = request.cookies[cookiePrefix + Self.csrfCookie].map(\.value).flatMap { Self.isToken($0) ? $0 : nil }
            if nonce == nil { newNonce = Accounts.randomToken() }
            context.csrfToken = try await formTokens.token(guestNonce: nonce ?? newNonce ?? "")
        }

        if request.method == .post, !request.uri.path.hasPrefix("/api/"), let route = context.route {
            // Admitted from the head before a byte of the body is read: the route's group decides (a guest is sent to
            // sign in, a viewer refused an admin's page), and a guest who was never given a form token is refused.
            // The body is then read within the route's limit for this caller (``BodySize``) and the server's bound.
            try route.admit(context)
            guard newNonce == nil else { throw FormTokenRefused() }
            // Read and parsed once, here: the token is checked on the parsed form, and the handler's form type reads
            // the same fields from the context. A file's form (multipart) carries its token as a field too.
            let body = try await context.body(of: request)
            let posted: PostedBody = if let upload = MultipartForm(contentType: request.headers[.contentType], body: body) { .files(upload) } else {
                .fields(FormFields(encoded: String(buffer: body)))
            }
            guard let sent = posted.text("csrf"), Self.constantTimeEqual(sent, context.csrfToken) else { throw FormTokenRefused() }
            context.posted = posted
        }
        var response = try await next(request, context)
        if let newNonce {
            response.setCookie(cookie(Self.csrfCookie, newNonce, sameSite: .strict))
        }
        // `?tv=1` (or 0) is remembered, so the pages it leads to keep the layout.
        if let asked {
            response.setCookie(Cookie(name: TVMode.cookie, value: asked ? "1" : "0", maxAge: 400 * 24 * 3600, path: "/",
                                      secure: secureCookies, httpOnly: true, sameSite: .lax))
        }
        return response
    }

    /// Who is asking, and how they read: the signed-in profile, the browser's zone, theme and languages, and whether
    /// it is a television. ``ErrorPages``, which runs before this middleware, asks it too for the page it makes.
    func identify(_ request: Request, _ context: inout Context) async throws {
        context.path = request.uri.path
        if let token = request.cookies[cookiePrefix + Self.sessionCookie]?.value, Self.isToken(token),
           let profile = try await accounts.profile(sessionToken: token) {
            context.viewer = Viewer(profile: profile, sessionToken: token)
        }
        if let zone = request.cookies[Self.zoneCookie]?.value.removingPercentEncoding, let timeZone = TimeZone(identifier: zone) {
            context.browserZone = timeZone
        }
        context.browserTheme = request.cookies[Self.themeCookie].flatMap { Profile.Theme(rawValue: $0.value) }
        context.acceptLanguage = request.headers[.acceptLanguage].map { AcceptLanguage(String($0.prefix(512))) }
        context.isTV = TVMode.asked(request) ?? TVMode.isOn(request)
    }

    /// The session cookie after signing in (or, with an empty value, signing out).
    func sessionCookie(_ token: String) -> Cookie {
        cookie(Self.sessionCookie, token, sameSite: .lax, maxAge: token.isEmpty ? 0 : Int(Accounts.sessionLength))
    }

    private func cookie(_ name: String, _ value: String, sameSite: Cookie.SameSite, maxAge: Int? = nil) -> Cookie {
        Cookie(name: cookiePrefix + name, value: value, maxAge: maxAge, path: "/", secure: secureCookies, httpOnly: true, sameSite: sameSite)
    }

    private static func isToken(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// A form post whose token is missing or not this browser's (``ErrorPages`` words it).
    struct FormTokenRefused: Error {}

    private static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
