import Foundation
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import GuideWebFormats
import Hummingbird

/// `/admin/boxes`: presets for the boxes people already have, each a short form that makes an ordinary source and
/// fetches it: a Tvheadend server's XMLTV export (its user name and password kept apart from the address, answered to
/// its Digest or Basic challenge), an HDHomeRun tuner's guide (format `hdhomerun`).
struct BoxPresetPages: Sendable {
    let store: any SourceStore & ChannelSettingsStore
    let pages: Pages
    let scheduler: RefreshScheduler
    /// What the Enigma2 preset asks the receiver its bouquets with (the admin's address: as sources are fetched).
    let feeds: any HTTPTransport

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var message: String?
        var isError: Bool
    }

    func register(on routes: RouteGroups) {
        routes.admin.get(.boxes) { _, context in try await page(context) }
        routes.admin.post(.tvheadendPreset) { request, context in try await addTvheadend(request, context) }
        routes.admin.post(.hdhomerunPreset) { request, context in try await addHDHomeRun(request, context) }
        routes.admin.post(.enigma2Preset) { request, context in try await addEnigma2(request, context) }
    }

    func page(_ context: AdminRequestContext, message: String? = nil, isError: Bool = false,
              status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let words = pages.words(context)
        let model = await Model(chrome: pages.chrome(context, section: "admin"), title: words("Your own boxes"), message: message, isError: isError)
        return try pages.page("boxes", model, status: status)
    }

    func addTvheadend(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await TvheadendForm(request, context)
        let definition = SourceDefinition(name: SourceName(form.name), format: .xmltv,
                                          location: "http://\(form.host.contains(":") ? "[\(form.host)]" : form.host):\(form.port)/xmltv/channels")
        let credentials = form.username.map { HTTPCredentials(username: $0, password: form.password ?? "") }
        return try await add(definition, credentials: credentials, context)
    }

    func addHDHomeRun(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await HDHomeRunForm(request, context)
        var definition = SourceDefinition(name: SourceName(form.name), format: .hdhomerun,
                                          location: "http://\(form.host.contains(":") ? "[\(form.host)]" : form.host)" + (form.port == 80 ? "" : ":\(form.port)"))
        definition.days = form.days
        return try await add(definition, credentials: nil, context)
    }

    func addEnigma2(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await Enigma2Form(request, context)
        let base = "http://\(form.host.contains(":") ? "[\(form.host)]" : form.host)" + (form.port == 80 ? "" : ":\(form.port)")
        let credentials = form.username.map { HTTPCredentials(username: $0, password: form.password ?? "") }
        let words = pages.words(context)
        let bouquet: (name: String, location: String)
        do {
            bouquet = try await OpenWebifGuide(transport: feeds, credentials: credentials).bouquet(at: base, named: form.bouquet)
        } catch let error as IngestError {
            return try await page(context, message: words("Could not read the receiver's bouquets: {error}", ["error": error.sentence.worded(words)]),
                                  isError: true, status: .badGateway)
        } catch {
            return try await page(context, message: words("Could not reach the receiver at {address}: {error}", ["address": base, "error": Sentence(error).worded(words)]), isError: true, status: .badGateway)
        }
        let definition = SourceDefinition(name: SourceName(form.name ?? "Enigma2 \(bouquet.name)"), format: .openwebif, location: bouquet.location)
        return try await add(definition, credentials: credentials, context)
    }

    /// Adds the source the preset made (with the password its server asks for, if any) and starts fetching it.
    private func add(_ definition: SourceDefinition, credentials: HTTPCredentials?, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        do {
            if let problem = definition.problem { throw StoreError(.invalid, problem) }
            try await store.addSource(definition)
        } catch let error as StoreError {
            return try await page(context, message: words("Could not add {name}: {error}", ["name": definition.name.rawValue, "error": error.message(words)]), isError: true, status: .badRequest)
        }
        if let credentials {
            try await store.setSourceCredentials(String(decoding: try JSONEncoder().encode(credentials), as: UTF8.self), of: definition.name)
        }
        _ = try? await scheduler.start([definition.name])
        return try await page(context, message: words(
            "Added {name} ({location}); fetching its listings now. The sources page shows how it goes, and its page its channels.",
            ["name": definition.name.rawValue, "location": definition.location]))
    }
}

/// A host as a preset takes it: a name or an address, nothing else (no scheme, path, user or port).
private func presetHost(_ form: FormFields, _ field: String) throws(FieldError) -> String {
    let host = try form.text(field, limit: 253, called: "The address") ?? ""
    guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-.:".unicodeScalars.contains($0)) }) else {
        throw FieldError(name: field, saying: "The address takes a host name or an IP address, like 192.168.1.20 or tvheadend.lan")
    }
    guard host.filter({ $0 == ":" }).count != 1 else {
        throw FieldError(name: field, saying: "The address takes the host alone: its port has a field of its own")
    }
    return host
}

/// Tvheadend: its host, its HTTP port (9981), and the user name and password it asks for, if it does.
struct TvheadendForm: PostedForm {
    let name: String
    let host: String
    let port: Int
    let username: String?
    let password: String?

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: 100, called: "The name") ?? "Tvheadend"
        host = try presetHost(form, "host")
        port = try form.integer("port", in: 1...65_535, called: "The port") ?? 9981
        username = try form.text("username", limit: 200, called: "The user name")
        password = try form.typed("password", limit: 200, called: "The password")
    }
}

/// An Enigma2 receiver: its address, OpenWebif's port (80), the user name and password it asks for if it does, and the
/// bouquet whose channels to take (its first when blank).
struct Enigma2Form: PostedForm {
    let name: String?
    let host: String
    let port: Int
    let username: String?
    let password: String?
    let bouquet: String?

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: 100, called: "The name")
        host = try presetHost(form, "host")
        port = try form.integer("port", in: 1...65_535, called: "The port") ?? 80
        username = try form.text("username", limit: 200, called: "The user name")
        password = try form.typed("password", limit: 200, called: "The password")
        bouquet = try form.text("bouquet", limit: 200, called: "The bouquet")
    }
}

/// An HDHomeRun: its address (its port, 80, for tuners that present themselves elsewhere) and the days of guide.
struct HDHomeRunForm: PostedForm {
    let name: String
    let host: String
    let port: Int
    let days: Int

    init(_ form: FormFields) throws(FieldError) {
        name = try form.text("name", limit: 100, called: "The name") ?? "HDHomeRun"
        host = try presetHost(form, "host")
        port = try form.integer("port", in: 1...65_535, called: "The port") ?? 80
        days = try form.integer("days", in: SourceDefinition.daysRange, called: "The days") ?? 7
    }
}
