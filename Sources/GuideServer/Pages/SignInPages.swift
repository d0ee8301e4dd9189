import Foundation
import GuideCore
import Hummingbird

/// Signing in and out, and the first run's setup of the admin profile.
struct SignInPages: Sendable {
    let site: Site
    let sessions: SessionMiddleware

    struct Model {
        var chrome: Chrome
        var title: String
        var name: String
        var returnTo: String
        var message: String?
        var isLocked: Bool
        var needsSetup: Bool
    }

    struct SetupModel {
        var chrome: Chrome
        var title: String
        var name: String
        var message: String?
        var isAvailable: Bool
    }

    func register(on router: Router<GuideRequestContext>) {
        router.get("signin") { request, context in try await signInPage(request, context) }
        router.post("signin") { request, context in try await signIn(request, context) }
        router.post("signout") { request, context in try await signOut(request, context) }
        router.get("setup") { _, context in try await setupPage(context) }
        router.post("setup") { request, context in try await setup(request, context) }
    }

    func signInPage(_ request: Request, _ context: GuideRequestContext) async throws -> HTMLPage {
        let returnTo = Self.safeReturn(request.uri.queryParameters.get("next").map { String($0) })
        let needsSetup = try await !site.accounts.hasProfiles()
        return try site.page("signin", Model(chrome: site.chrome(context, section: "signin"), title: "Sign in", name: "",
                                             returnTo: returnTo, message: nil, isLocked: false, needsSetup: needsSetup))
    }

    func signIn(_ request: Request, _ context: GuideRequestContext) async throws -> Response {
        let form = try await site.form(request, context)
        let name = form["name"] ?? ""
        let returnTo = Self.safeReturn(form["next"])
        let outcome = try await site.accounts.signIn(name: name, secret: form.raw("secret") ?? "")
        var model = Model(chrome: site.chrome(context, section: "signin"), title: "Sign in", name: name, returnTo: returnTo,
                          message: nil, isLocked: false, needsSetup: false)
        switch outcome {
        case .signedIn(_, let token):
            var response = Response.redirect(to: returnTo)
            response.setCookie(sessions.sessionCookie(token))
            return response
        case .wrong(let triesLeft):
            model.message = "Wrong name, password or PIN." + (triesLeft > 0 && triesLeft < 5
                ? " \(triesLeft) more wrong \(triesLeft == 1 ? "try" : "tries") and this profile has to wait before trying again." : "")
        case .locked(let until):
            let seconds = Int(until.timeIntervalSince(site.settings.now()).rounded(.up))
            model.message = "Too many wrong tries: this profile has to wait \(Self.wording(seconds: seconds)) before the next try "
                + "(until \(site.clock(context).time(until))). Tries before then are not checked."
            model.isLocked = true
        }
        return try site.page("signin", model, status: model.isLocked ? .tooManyRequests : .unauthorized)
            .response(from: request, context: context)
    }

    func signOut(_ request: Request, _ context: GuideRequestContext) async throws -> Response {
        if case .session(let token)? = context.viewer?.credential {
            try await site.accounts.signOut(sessionToken: token)
        }
        var response = Response.redirect(to: "/")
        response.setCookie(sessions.sessionCookie(""))
        return response
    }

    func setupPage(_ context: GuideRequestContext) async throws -> HTMLPage {
        let available = try await !site.accounts.hasProfiles()
        return try site.page("setup", SetupModel(chrome: site.chrome(context, section: "setup"), title: "Set up tvguide", name: "",
                                                 message: nil, isAvailable: available))
    }

    /// Creates the first (admin) profile, for whoever knows the setup code `serve` printed.
    func setup(_ request: Request, _ context: GuideRequestContext) async throws -> Response {
        let form = try await site.form(request, context)
        var model = SetupModel(chrome: site.chrome(context, section: "setup"), title: "Set up tvguide", name: form["name"] ?? "",
                               message: nil, isAvailable: true)
        guard try await !site.accounts.hasProfiles() else {
            throw HTTPError(.forbidden, message: "tvguide is already set up: sign in, and ask an admin for a profile.")
        }
        guard let expected = site.settings.setupCode, let code = form["code"],
              code.replacingOccurrences(of: "-", with: "") == expected.replacingOccurrences(of: "-", with: "") else {
            model.message = "That is not the setup code. tvguide serve printed it when it started."
            return try site.page("setup", model, status: .forbidden).response(from: request, context: context)
        }
        let kind = Profile.SecretKind(rawValue: form["kind"] ?? "") ?? .password
        do {
            let secret = form.raw("secret") ?? ""
            let profile = try await site.accounts.createProfile(name: form["name"] ?? "", role: .admin, kind: kind, secret: secret)
            guard case .signedIn(_, let token) = try await site.accounts.signIn(name: profile.name, secret: secret) else {
                return Response.redirect(to: "/signin")
            }
            var response = Response.redirect(to: "/admin")
            response.setCookie(sessions.sessionCookie(token))
            return response
        } catch let error as AccountError {
            model.message = error.description
            return try site.page("setup", model, status: .badRequest).response(from: request, context: context)
        }
    }

    /// Only a path on this site: never an address elsewhere (`//evil.example`, `https:...`).
    static func safeReturn(_ path: String?) -> String {
        guard let path, path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("\\") else { return "/" }
        return path
    }

    static func wording(seconds: Int) -> String {
        seconds < 120 ? "\(seconds) seconds" : "\((seconds + 59) / 60) minutes"
    }
}
