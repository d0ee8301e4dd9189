import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import Hummingbird

/// `/admin`: profiles, API tokens and imports, for admin profiles.
struct AdminPages: Sendable {
    let site: Site
    /// Fetches what an admin imports by URL.
    let feeds: any HTTPTransport

    struct Model {
        var chrome: Chrome
        var title: String
        var profiles: [ProfileEntry]
        var tokens: [TokenEntry]
        var newToken: String?
        var message: String?
        var isError: Bool
        var counts: String
        var coverage: String
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
        routes.admin.get("admin") { request, context in try await adminPage(request, context, message: nil) }
        routes.admin.post("admin/profiles") { request, context in try await createProfile(request, context) }
        routes.admin.post("admin/profiles/delete") { request, context in try await deleteProfile(request, context) }
        routes.admin.post("admin/tokens") { request, context in try await createToken(request, context) }
        routes.admin.post("admin/tokens/revoke") { request, context in try await revokeToken(request, context) }
        routes.admin.post("admin/import") { request, context in try await importListings(request, context) }
    }

    func adminPage(_ request: Request, _ context: AdminRequestContext, message: String?, isError: Bool = false,
                   newToken: String? = nil, status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let admin = context.admin
        let site = self.site
        let clock = site.clock(context)
        let counts = try await site.store.counts()
        let coverage = try await site.store.coverage()
        let model = await Model(
            chrome: site.chrome(context, section: "admin"), title: "Admin",
            profiles: try site.store.profiles().map {
                ProfileEntry(id: $0.id.rawValue, name: $0.name, role: $0.role.rawValue,
                             kind: $0.secretKind == .pin ? "PIN" : "password", isSelf: $0.id == admin.id)
            },
            tokens: try await site.store.apiTokens(of: admin.id).map {
                TokenEntry(id: $0.id, name: $0.name, scope: $0.scope.rawValue, created: "\(clock.date($0.created)) \(clock.time($0.created))",
                           lastUsed: $0.lastUsed.map { "\(clock.date($0)) \(clock.time($0))" } ?? "never")
            },
            newToken: newToken, message: message, isError: isError,
            counts: "\(counts.programmes) programmes on \(counts.channels) channels",
            coverage: coverage.map { "\(clock.date($0.start)) \(clock.time($0.start)) to \(clock.date($0.end)) \(clock.time($0.end))" } ?? "no listings")
        return try site.page("admin", model, status: status)
    }

    func createProfile(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await site.form(request, context)
        do {
            let profile = try await site.accounts.createProfile(
                name: form["name"] ?? "", role: Profile.Role(rawValue: form["role"] ?? "") ?? .viewer,
                kind: Profile.SecretKind(rawValue: form["kind"] ?? "") ?? .pin, secret: form.raw("secret") ?? "")
            return try await adminPage(request, context, message: "Added \(profile.name) (\(profile.role.rawValue)).")
        } catch let error as AccountError {
            return try await adminPage(request, context, message: error.description, isError: true, status: .badRequest)
        }
    }

    func deleteProfile(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let admin = context.admin
        let form = try await site.form(request, context)
        guard let id = form["id"].flatMap({ Bounded.integer($0, in: 1...Int64.max) }).map(ProfileID.init(rawValue:)), id != admin.id else {
            return try await adminPage(request, context, message: "Choose another profile to remove; you cannot remove your own.",
                                       isError: true, status: .badRequest)
        }
        let site = self.site
        try await site.store.deleteProfile(id)
        return try await adminPage(request, context, message: "Removed the profile, its sessions and its tokens.")
    }

    func createToken(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let admin = context.admin
        let form = try await site.form(request, context)
        do {
            let scope = APIToken.Scope(rawValue: form["scope"] ?? "") ?? .read
            let created = try await site.accounts.createAPIToken(named: form["name"] ?? "", scope: scope, for: admin.id)
            return try await adminPage(request, context, message: "Created the token \(created.record.name). Copy it now: it is not shown again.",
                                       newToken: created.token)
        } catch let error as AccountError {
            return try await adminPage(request, context, message: error.description, isError: true, status: .badRequest)
        }
    }

    func revokeToken(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let admin = context.admin
        let form = try await site.form(request, context)
        guard let id = form["id"].flatMap({ Bounded.integer($0, in: 1...Int64.max) }) else { throw HTTPError(.badRequest, message: "Which token? The form sent none.") }
        let site = self.site
        try await site.store.revokeAPIToken(id, of: admin.id)
        return try await adminPage(request, context, message: "Revoked the token: programs using it are refused from now on.")
    }

    /// Imports an XMLTV or Radio Times file or URL named in the form.
    func importListings(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await site.form(request, context)
        guard let location = form["location"] else {
            return try await adminPage(request, context, message: "Name a file on the server or an http(s) URL to import.",
                                       isError: true, status: .badRequest)
        }
        do {
            let summary = try await ListingImporter(store: site.store).importLocation(location, transport: feeds)
            return try await adminPage(request, context, message: "Imported \(summary.programmes) programmes on \(summary.channels) channels from \(location)"
                                       + (summary.issues.total > 0 ? " (\(summary.issues.total) repairs)." : "."))
        } catch {
            return try await adminPage(request, context, message: "Could not import \(location): \(error). The guide is unchanged.",
                                       isError: true, status: .unprocessableContent)
        }
    }
}
