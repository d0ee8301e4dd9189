import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/admin`: profiles, API tokens and imports, for admin profiles.
struct AdminPages: Sendable {
    let store: any ImportStore & AccountStore & SourceStore
    let accounts: Accounts
    let pages: Pages
    let settings: ServerSettings
    /// Fetches what an admin imports by URL.
    let feeds: any HTTPTransport

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var profiles: [ProfileEntry]
        var tokens: [TokenEntry]
        var newToken: String?
        var message: String?
        var isError: Bool
        var counts: String
        var coverage: String
        /// For a guide with no sources yet: "Where do your listings come from?"
        var firstRun: FirstRun?
    }

    struct FirstRun {
        var countries: [Choice]
        var country: String?
        var ways: [ListingsWays.Way]
    }

    struct ProfileEntry {
        var id: Int64
        var name: String
        var role: String
        var kind: String
        var isSelf: Bool
    }

    struct TokenEntry {
        var id: Int64
        var name: String
        var scope: String
        var created: String
        var lastUsed: String
    }


    func register(on routes: RouteGroups) {
        routes.admin.get(.admin) { request, context in try await adminPage(request, context, message: nil) }
        routes.admin.post(.adminProfiles) { request, context in try await createProfile(request, context) }
        routes.admin.post(.removeProfile) { request, context in try await deleteProfile(request, context) }
        routes.admin.post(.adminTokens) { request, context in try await createToken(request, context) }
        routes.admin.post(.revokeToken) { request, context in try await revokeToken(request, context) }
        routes.admin.post(.adminImport) { request, context in try await importListings(request, context) }
    }

    func adminPage(_ request: Request, _ context: AdminRequestContext, message: String?, isError: Bool = false,
                   newToken: String? = nil, status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let admin = context.admin
        let (clock, words) = (settings.clock(context), pages.words(context))
        let when = { (instant: Date) in words.moment(instant, clock) }
        let counts = try await store.counts()
        let coverage = try await store.coverage()
        let model = await Model(
            chrome: pages.chrome(context, section: "admin"), title: words("Admin"),
            profiles: try store.profiles().map {
                ProfileEntry(id: $0.id.rawValue, name: $0.name, role: $0.role == .admin ? words("admin") : words("viewer"),
                             kind: $0.secretKind == .pin ? words("PIN") : words("password"), isSelf: $0.id == admin.id)
            },
            tokens: try await store.apiTokens(of: admin.id).map {
                TokenEntry(id: $0.id, name: $0.name, scope: Self.scope($0.scope, words), created: when($0.created),
                           lastUsed: $0.lastUsed.map(when) ?? words("never"))
            },
            newToken: newToken, message: message, isError: isError,
            counts: words.plural("{count} programme on {channels}", "{count} programmes on {channels}", count: counts.programmes,
                                 ["channels": words.plural("{count} channel", "{count} channels", count: counts.channels)]),
            coverage: coverage.map { words("{start} to {end}", ["start": when($0.start), "end": when($0.end)]) } ?? words("no listings"),
            firstRun: try await store.sources().isEmpty ? Self.firstRun(country: request.uri.queryParameters.get("country"), words) : nil)
        return try pages.page("admin", model, status: status)
    }

    /// The newcomer's choices: the country picker, and once one is picked, the ways to listings there.
    static func firstRun(country: String?, _ words: Localizer) -> FirstRun {
        let picked = ListingsWays.countries.first { $0.code == country }
        let countries = ListingsWays.countries.map { ($0.code, ListingsWays.name($0, words)) }
            .sorted { $0.1.compare($1.1, locale: words.locale) == .orderedAscending }
        return FirstRun(
            countries: [Choice(value: "", label: words("Choose your country"), isSelected: picked == nil)]
                + countries.map { Choice(value: $0.0, label: $0.1, isSelected: $0.0 == picked?.code) }
                + [Choice(value: "elsewhere", label: words("Elsewhere"), isSelected: country == "elsewhere")],
            country: picked.map { ListingsWays.name($0, words) } ?? (country == "elsewhere" ? words("elsewhere") : nil),
            ways: picked != nil || country == "elsewhere" ? ListingsWays.ways(for: picked?.code ?? "", words) : [])
    }

    /// What a token's scope lets a program do, in a word.
    static func scope(_ scope: APIToken.Scope, _ words: Localizer) -> String {
        switch scope {
        case .read: words("read")
        case .refresh: words("refresh")
        case .admin: words("admin")
        }
    }

    func createProfile(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await NewProfileForm(request, context)
        do {
            let profile = try await accounts.createProfile(name: form.name, role: form.role, kind: form.kind, secret: form.secret)
            let words = pages.words(context)
            return try await adminPage(request, context, message: words("Added {name} ({role}).", [
                "name": profile.name, "role": profile.role == .admin ? words("admin") : words("viewer")]))
        } catch let error as AccountError {
            return try await adminPage(request, context, message: error.message(pages.words(context)), isError: true, status: .badRequest)
        }
    }

    func deleteProfile(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let admin = context.admin
        guard let id = try await IDForm(request, context).id.map(ProfileID.init(rawValue:)), id != admin.id else {
            return try await adminPage(request, context, message: words("Choose another profile to remove; you cannot remove your own."),
                                       isError: true, status: .badRequest)
        }
        try await store.deleteProfile(id)
        return try await adminPage(request, context, message: words("Removed the profile, its sessions and its tokens."))
    }

    func createToken(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let admin = context.admin
        let form = try await NewTokenForm(request, context)
        do {
            let created = try await accounts.createAPIToken(named: form.name, scope: form.scope, for: admin.id)
            return try await adminPage(request, context, message: words("Created the token {name}. Copy it now: it is not shown again.",
                                                                                         ["name": created.record.name]),
                                       newToken: created.token)
        } catch let error as AccountError {
            return try await adminPage(request, context, message: error.message(words), isError: true, status: .badRequest)
        }
    }

    func revokeToken(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        let admin = context.admin
        guard let id = try await IDForm(request, context).id else { throw Refusal(.badRequest, saying: "Which token? The form sent none.") }
        try await store.revokeAPIToken(id, of: admin.id)
        return try await adminPage(request, context, message: words("Revoked the token: programs using it are refused from now on."))
    }

    /// Imports an XMLTV or Radio Times file or URL named in the form.
    func importListings(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        guard let location = try await ImportForm(request, context).location else {
            return try await adminPage(request, context, message: words("Name a file on the server or an http(s) URL to import."),
                                       isError: true, status: .badRequest)
        }
        do {
            let summary = try await ListingImporter(store: store).importLocation(location, transport: feeds, clock: settings.clock)
            return try await adminPage(request, context, message: words.plural(
                "Imported {count} programme on {channels} from {location}{repairs}.", "Imported {count} programmes on {channels} from {location}{repairs}.",
                count: summary.programmes, ["channels": words.plural("{count} channel", "{count} channels", count: summary.channels), "location": location,
                                            "repairs": summary.issues.total == 0 ? "" : " " + words.plural("({count} repair)", "({count} repairs)",
                                                                                                             count: summary.issues.total)]))
        } catch {
            return try await adminPage(request, context, message: words("Could not import {location}: {error}. The guide is unchanged.",
                                                                        ["location": location, "error": Sentence(error).worded(words)]),
                                       isError: true, status: .unprocessableContent)
        }
    }
}

/// Admin, "Add a profile": a name, a role (a viewer unless chosen), a PIN or a password, and the secret as typed.
struct NewProfileForm: PostedForm {
    let name: String
    let role: Profile.Role
    let kind: Profile.SecretKind
    let secret: String

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", called: "The name") ?? ""
        role = try form.choice("role", called: "The role") ?? .viewer
        kind = try form.choice("kind", called: "The kind of secret") ?? .pin
        secret = try form.typed("secret", called: "The secret") ?? ""
    }
}

/// Admin, "Create a token": a name and a scope (read unless chosen).
struct NewTokenForm: PostedForm {
    let name: String
    let scope: APIToken.Scope

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", called: "The name") ?? ""
        scope = try form.choice("scope", called: "The scope") ?? .read
    }
}

/// Admin, "Import": a file on the server or an http(s) URL.
struct ImportForm: PostedForm {
    let location: String?

    init(_ form: FormFields) throws(FieldError) {
        location = try form.text("location", limit: 2048, called: "The file or URL")
    }
}
