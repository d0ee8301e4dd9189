import Foundation
import GuideApplication
import GuideCore
import GuideWebFormats
import Hummingbird

/// Signing in and out, and the first run's setup of the admin profile.
struct SignInPages: Sendable {
    let accounts: Accounts
    let pages: Pages
    let settings: ServerSettings
    let addresses: ClientAddress
    let sessions: SessionMiddleware

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var name: String
        var returnTo: String
        var message: String?
        var isLocked: Bool
        var needsSetup: Bool
    }

    struct SetupModel: PageModel {
        var chrome: Chrome
        var title: String
        var name: String
        var message: String?
        var isAvailable: Bool
    }

    func register(on routes: RouteGroups) {
        routes.open.get(.signIn) { request, context in try await signInPage(request, context) }
        routes.open.post(.signIn) { request, context in try await signIn(request, context) }
        routes.open.post(.signOut) { request, context in try await signOut(request, context) }
        routes.open.get(.setup) { _, context in try await setupPage(context) }
        routes.open.post(.setup) { request, context in try await setup(request, context) }
    }

    func signInPage(_ request: Request, _ context: some GuideContext) async throws -> HTMLPage {
        let returnTo = Self.safeReturn(request.uri.queryParameters.get("next").map { String($0) })
        let needsSetup = try await !accounts.hasProfiles()
        let words = pages.words(context)
        return try await pages.page("signin", Model(chrome: pages.chrome(context, section: "signin"), title: words("Sign in"), name: "",
                                             returnTo: returnTo, message: nil, isLocked: false, needsSetup: needsSetup))
    }

    func signIn(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let form = try await SignInForm(request, context)
        let returnTo = form.returnTo
        let outcome = try await accounts.signIn(name: form.name, secret: form.secret, from: addresses.of(request, peer: context.peer))
        let words = pages.words(context)
        var model = await Model(chrome: pages.chrome(context, section: "signin"), title: words("Sign in"), name: form.name, returnTo: returnTo,
                          message: nil, isLocked: false, needsSetup: false)
        var retryAfter: Int?
        switch outcome {
        case .signedIn(_, let token):
            var response = Response.redirect(to: returnTo)
            response.setCookie(sessions.sessionCookie(token))
            return response
        case .wrong(let triesLeft, nil):
            model.message = triesLeft > 0 && triesLeft < 5
                ? words.plural("Wrong name, password or PIN. {count} more wrong try and this profile has to wait before trying again.",
                               "Wrong name, password or PIN. {count} more wrong tries and this profile has to wait before trying again.",
                               count: triesLeft)
                : words("Wrong name, password or PIN.")
        case .wrong(_, let until?):
            model.message = words("Wrong name, password or PIN.") + " " + waiting(until, context, words)
            model.isLocked = true
        case .waiting(let until):
            model.message = waiting(until, context, words) + " " + words("Tries before then are not checked.")
            model.isLocked = true
            retryAfter = seconds(until)
        case .busy(let seconds):
            model.message = words.plural("Too many sign-ins at once: try again in {count} second.",
                                         "Too many sign-ins at once: try again in {count} seconds.", count: seconds)
            retryAfter = seconds
        }
        var response = try pages.page("signin", model, status: retryAfter == nil ? .unauthorized : .tooManyRequests)
            .response(from: request, context: context)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    private func seconds(_ until: Date) -> Int {
        Int(Bounded.clamped(until.timeIntervalSince(settings.now()).rounded(.up), to: 1...86_400))
    }

    /// How long a locked profile waits, in whole sentences: seconds under two minutes, else minutes.
    private func waiting(_ until: Date, _ context: some GuideContext, _ words: Localizer) -> String {
        let wait = seconds(until), time = settings.clock(context).time(until)
        return wait < 120
            ? words.plural("Too many wrong tries: this profile has to wait {count} second before the next try (until {time}).",
                           "Too many wrong tries: this profile has to wait {count} seconds before the next try (until {time}).",
                           count: wait, ["time": time])
            : words.plural("Too many wrong tries: this profile has to wait {count} minute before the next try (until {time}).",
                           "Too many wrong tries: this profile has to wait {count} minutes before the next try (until {time}).",
                           count: (wait + 59) / 60, ["time": time])
    }

    func signOut(_ request: Request, _ context: some GuideContext) async throws -> Response {
        if let viewer = context.viewer {
            try await accounts.signOut(sessionToken: viewer.sessionToken)
        }
        var response = Response.redirect(to: SitePath.guide())
        response.setCookie(sessions.sessionCookie(""))
        return response
    }

    func setupPage(_ context: some GuideContext) async throws -> HTMLPage {
        let available = try await !accounts.hasProfiles()
        let words = pages.words(context)
        return try await pages.page("setup", SetupModel(chrome: pages.chrome(context, section: "setup"), title: words("Set up tvguide"), name: "",
                                                 message: nil, isAvailable: available))
    }

    /// Creates the first (admin) profile, for whoever knows the setup code `serve` printed.
    func setup(_ request: Request, _ context: some GuideContext) async throws -> Response {
        let form = try await SetupForm(request, context)
        let words = pages.words(context)
        var model = await SetupModel(chrome: pages.chrome(context, section: "setup"), title: words("Set up tvguide"), name: form.name,
                               message: nil, isAvailable: true)
        guard try await !accounts.hasProfiles() else {
            throw Refusal(.forbidden, saying: "tvguide is already set up: sign in, and ask an admin for a profile.")
        }
        guard let expected = settings.setupCode, let code = form.code,
              Self.sameCode(code.replacingOccurrences(of: "-", with: ""), expected.replacingOccurrences(of: "-", with: "")) else {
            model.message = words("That is not the setup code. tvguide serve printed it when it started.")
            return try pages.page("setup", model, status: .forbidden).response(from: request, context: context)
        }
        do {
            let profile = try await accounts.createProfile(name: form.name, role: .admin, kind: form.kind, secret: form.secret,
                                                           onlyIfFirst: true)
            guard case .signedIn(_, let token) = try await accounts.signIn(name: profile.name, secret: form.secret,
                                                                           from: addresses.of(request, peer: context.peer)) else {
                return Response.redirect(to: SitePath.signIn())
            }
            var response = Response.redirect(to: SitePath.admin())
            response.setCookie(sessions.sessionCookie(token))
            return response
        } catch let error as AccountError {
            model.message = error.message(words)
            return try pages.page("setup", model, status: .badRequest).response(from: request, context: context)
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

}

/// "Sign in": a profile's name, its secret as typed, and the page to go back to.
struct SignInForm: PostedForm {
    let name: String
    let secret: String
    /// A path on this site (``SignInPages/safeReturn(_:)``), else the guide.
    let returnTo: String

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", called: "The name") ?? ""
        secret = try form.typed("secret", called: "The secret") ?? ""
        returnTo = SignInPages.safeReturn(try form.text("next", limit: 2_000, called: "The page to go back to"))
    }
}

/// The first run's setup: the code serve printed, and the admin's name, kind of secret (a password unless chosen) and
/// secret.
struct SetupForm: PostedForm {
    let code: String?
    let name: String
    let kind: Profile.SecretKind
    let secret: String

    init(_ form: FormFields) throws(FieldError) {
        code = try form.text("code", limit: 64, called: "The setup code")
        name = try form.text("name", called: "The name") ?? ""
        kind = try form.choice("kind", called: "The kind of secret") ?? .password
        secret = try form.typed("secret", called: "The secret") ?? ""
    }
}
