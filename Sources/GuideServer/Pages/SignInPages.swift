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

    func register(on routes: RouteGroups) {
        routes.open.get("signin") { request, context in try await signInPage(request, context) }
        routes.open.post("signin") { request, context in try await signIn(request, context) }
        routes.open.post("signout") { request, context in try await signOut(request, context) }
        routes.open.get("setup") { _, context in try await setupPage(context) }
        routes.open.post("setup") { request, context in try await setup(request, context) }
    }

    func signInPage(_ request: Request, _ context: some GuideContext) async throws -> HTMLPage {
        let returnTo = Self.safeReturn(request.uri.queryParameters.get("next").map { String($0) })
        let needsSetup = try await !site.accounts.hasProfiles()
        return try await site.page("signin", Model(chrome: site.chrome(context, section: "signin"), title: "Sign in", name: "",
                                             returnTo: returnTo, message: nil, isLocked: false, needsSetup: needsSetup))
    }

    func signIn(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let form = try await site.form(request, context)
        let name = form["name"] ?? ""
        let returnTo = Self.safeReturn(form["next"])
        let outcome = try await site.accounts.signIn(name: name, secret: form.raw("secret") ?? "", from: site.clientAddress(request, context))
        var model = await Model(chrome: site.chrome(context, section: "signin"), title: "Sign in", name: name, returnTo: returnTo,
                          message: nil, isLocked: false, needsSetup: false)
        var retryAfter: Int?
        switch outcome {
        case .signedIn(_, let token):
            var response = Response.redirect(to: returnTo)
            response.setCookie(sessions.sessionCookie(token))
            return response
        case .wrong(let triesLeft, nil):
            model.message = "Wrong name, password or PIN." + (triesLeft > 0 && triesLeft < 5
                ? " \(triesLeft) more wrong \(triesLeft == 1 ? "try" : "tries") and this profile has to wait before trying again." : "")
        case .wrong(_, let until?):
            model.message = "Wrong name, password or PIN. " + waiting(until, context)
            model.isLocked = true
        case .waiting(let until):
            model.message = waiting(until, context) + " Tries before then are not checked."
            model.isLocked = true
            retryAfter = seconds(until)
        case .busy(let seconds):
            model.message = "Too many sign-ins at once: try again in \(seconds) seconds."
            retryAfter = seconds
        }
        var response = try site.page("signin", model, status: retryAfter == nil ? .unauthorized : .tooManyRequests)
            .response(from: request, context: context)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    private func seconds(_ until: Date) -> Int {
        Int(Bounded.clamped(until.timeIntervalSince(site.settings.now()).rounded(.up), to: 1...86_400))
    }

    private func waiting(_ until: Date, _ context: some GuideContext) -> String {
        "Too many wrong tries: this profile has to wait \(Self.wording(seconds: seconds(until))) before the next try "
            + "(until \(site.clock(context).time(until)))."
    }

    func signOut(_ request: Request, _ context: some GuideContext) async throws -> Response {
        if let viewer = context.viewer {
            try await site.accounts.signOut(sessionToken: viewer.sessionToken)
        }
        var response = Response.redirect(to: "/")
        response.setCookie(sessions.sessionCookie(""))
        return response
    }

    func setupPage(_ context: some GuideContext) async throws -> HTMLPage {
        let available = try await !site.accounts.hasProfiles()
        return try await site.page("setup", SetupModel(chrome: site.chrome(context, section: "setup"), title: "Set up tvguide", name: "",
                                                 message: nil, isAvailable: available))
    }

    /// Creates the first (admin) profile, for whoever knows the setup code `serve` printed.
    func setup(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let form = try await site.form(request, context)
        var model = await SetupModel(chrome: site.chrome(context, section: "setup"), title: "Set up tvguide", name: form["name"] ?? "",
                               message: nil, isAvailable: true)
        guard try await !site.accounts.hasProfiles() else {
            throw HTTPError(.forbidden, message: "tvguide is already set up: sign in, and ask an admin for a profile.")
        }
        guard let expected = site.settings.setupCode, let code = form["code"],
              Self.sameCode(code.replacingOccurrences(of: "-", with: ""), expected.replacingOccurrences(of: "-", with: "")) else {
            model.message = "That is not the setup code. tvguide serve printed it when it started."
            return try site.page("setup", model, status: .forbidden).response(from: request, context: context)
        }
        let kind = Profile.SecretKind(rawValue: form["kind"] ?? "") ?? .password
        do {
            let secret = form.raw("secret") ?? ""
            let profile = try await site.accounts.createProfile(name: form["name"] ?? "", role: .admin, kind: kind, secret: secret,
                                                                onlyIfFirst: true)
            guard case .signedIn(_, let token) = try await site.accounts.signIn(name: profile.name, secret: secret,
                                                                                 from: site.clientAddress(request, context)) else {
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

    /// Only a path on this site: never an address elsewhere (`//evil.example`, `https:...`), nor one with spaces or
    /// control characters, which browsers drop (`/<TAB>/evil.example` is `//evil.example` to them).
    static func safeReturn(_ path: String?) -> String {
        guard let path, path.hasPrefix("/"), !path.hasPrefix("//"), !path.contains("\\"), path.utf8.count <= 2_000,
              !path.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control
                                                    || $0.properties.generalCategory == .format }) else { return "/" }
        return path
    }

    /// Whether the codes are equal, in time that does not depend on where they differ.
    static func sameCode(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8.prefix(64)), b = Array(expected.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<b.count { difference |= (index < a.count ? a[index] : 0) ^ b[index] }
        return difference == 0
    }

    static func wording(seconds: Int) -> String {
        seconds < 120 ? "\(seconds) seconds" : "\((seconds + 59) / 60) minutes"
    }
}
