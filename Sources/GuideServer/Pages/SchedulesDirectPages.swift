import Foundation
import GuideApplication
import GuideCore
import GuideHTTP
import GuideIngest
import GuideStore
import GuideWebFormats
import Hummingbird
import SchedulesDirect

/// `/admin/schedules-direct`: the guide's Schedules Direct account on the admin's pages. Sign in (the password kept only
/// as SD's SHA-1, never shown again), the account's state and SD's messages and locks, its lineups (each added as a
/// source in one step), lineups found by country and postal code added to the account or removed from it. Every call
/// goes through the one client, which keeps SD's rules (``SchedulesDirectClient``).
struct SchedulesDirectPages: Sendable {
    let store: any SourceStore & ChannelSettingsStore & ResponseCache
    let pages: Pages
    let settings: ServerSettings
    /// Nil where this tvguide has no way to SD: the page says so.
    let connection: SDConnection?
    /// Refreshes the SD sources when artwork is chosen or given up, so their programmes name it or stop naming it.
    let scheduler: RefreshScheduler

    struct Model: PageModel {
        var chrome: Chrome
        var title: String
        var message: String?
        var isError: Bool
        var isAvailable: Bool
        var signedIn: Bool
        var username: String
        var account: String?
        var notices: [String]
        var lineups: [LineupEntry]
        var maxLineups: Int
        var countries: [Choice]
        var postalCode: String
        var postalExample: String
        var searched: Bool
        var found: [FoundEntry]
        var isArtworkChosen: Bool
        var imageCalls: String
    }

    struct LineupEntry {
        var id: String
        var name: String
        var location: String
        var sourceName: String
        /// The source already reading it, if one does, and its page.
        var source: String?
        var sourceLink: String?
    }

    struct FoundEntry {
        var id: String
        var name: String
        var transport: String
        var location: String
        var onAccount: Bool
    }

    func register(on routes: RouteGroups) {
        routes.admin.get(.schedulesDirect) { request, context in
            let query = request.uri.queryParameters
            return try await page(context, find: (query.get("country") ?? "", query.get("postalcode") ?? ""))
        }
        routes.admin.post(.schedulesDirectSignIn) { request, context in try await signIn(request, context) }
        routes.admin.post(.schedulesDirectSignOut) { request, context in try await signOut(request, context) }
        routes.admin.post(.schedulesDirectLineup) { request, context in try await changeLineup(request, context) }
        routes.admin.post(.schedulesDirectArtwork) { request, context in try await chooseArtwork(request, context) }
    }

    /// The page: the sign-in form, or the account, its lineups and (with `find`) the lineups of a place.
    func page(_ context: AdminRequestContext, find: (country: String, postalCode: String) = ("", ""), message: String? = nil,
              isError: Bool = false, status: HTTPResponse.Status = .ok) async throws -> HTMLPage {
        let words = pages.words(context)
        var model = await Model(chrome: pages.chrome(context, section: "admin"), title: words("Schedules Direct"), message: message,
                                isError: isError, isAvailable: connection != nil, signedIn: false, username: "", account: nil,
                                notices: [], lineups: [], maxLineups: 4, countries: [], postalCode: find.postalCode,
                                postalExample: "", searched: false, found: [], isArtworkChosen: false, imageCalls: "")
        guard let connection, let client = try await connection.client(store: store, now: settings.now),
              let account = try await SDConnection.account(in: store) else {
            return try pages.page("schedules-direct", model, status: status)
        }
        model.signedIn = true
        model.username = account.username
        model.isArtworkChosen = try await SDConnection.isArtworkChosen(in: store)
        let calls = try await client.imageCallsToday()
        model.imageCalls = words.plural("{made} of the {count} image call tvguide allows itself a day made today (UTC).",
                                        "{made} of the {count} image calls tvguide allows itself a day made today (UTC).", count: calls.limit,
                                        ["made": words.number(calls.made)])
        for (scope, lock) in try await client.locksInForce() {
            let until = lock.until.map { words("until {time}", ["time": CivilTime.iso8601($0)]) }
                ?? words("until the user name or password is changed here")
            let what = scope == .everything ? words("every call") : scope == .images ? words("images") : words("lineup changes")
            // Schedules Direct's own code and reason, as it gives them.
            model.notices.append(words("Stopped ({what}) {until}: Schedules Direct {code}: {reason}",
                                       ["what": what, "until": until, "code": String(describing: lock.code), "reason": lock.sentence.worded(words)]))
        }
        var problems: [String] = []
        do {
            let state = try await client.status()
            model.account = words("{online}; the account expires {expires}.", ["online": state.isOnline ? words("Online") : words("Not online"),
                                                                              "expires": state.account?.expires ?? words("(not said)")])
            model.maxLineups = state.account?.maxLineups ?? 4
            model.notices += ((state.account?.messages ?? []) + (state.notifications ?? [])).map(\.text).filter { !$0.isEmpty }.map { words("SD says: {message}", ["message": $0]) }
            let sources = try await store.sources(counting: false).map(\.definition).filter { $0.format == .schedulesdirect }
            model.lineups = try await client.lineups().filter { $0.isDeleted != true }.map { lineup in
                let source = sources.first { SourceDefinition.lineups(in: $0.location).contains(lineup.lineup) }?.name.rawValue
                return LineupEntry(id: lineup.lineup, name: lineup.name ?? lineup.lineup, location: lineup.location ?? "",
                                   sourceName: String((lineup.name ?? lineup.lineup).prefix(100)), source: source,
                                   sourceLink: source.map { SitePath.source(query: "name=" + SitePath.encoded($0)) })
            }
            let countries = try await client.countries()
            let chosen = countries.first { $0.shortName == find.country }
            model.countries = [Choice(value: "", label: words("Choose a country"), isSelected: chosen == nil)]
                + countries.map { Choice(value: $0.shortName, label: $0.fullName, isSelected: $0.shortName == find.country) }
            model.postalExample = chosen?.postalCodeExample ?? "90210"
            let onAccount = Set(model.lineups.map(\.id))
            if let chosen, try await client.transmitterCountries().contains(chosen.shortName) {
                // Freeview countries: their lineups are the transmitters'.
                model.searched = true
                model.found = try await client.transmitters(country: chosen.shortName).map { transmitter in
                    FoundEntry(id: transmitter.lineup, name: transmitter.name, transport: words("DVB-T transmitter"), location: chosen.fullName,
                               onAccount: onAccount.contains(transmitter.lineup))
                }
            }
            if let chosen, !find.postalCode.isEmpty {
                guard find.postalCode.utf8.count <= 16, find.postalCode.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " }) else {
                    throw Refusal(.badRequest, saying: "A postal code is letters and digits, like {example}.",
                                                                ["example": chosen.postalCodeExample ?? "90210"])
                }
                model.searched = true
                model.found += try await client.headends(country: chosen.shortName, postalCode: find.postalCode).flatMap { headend in
                    headend.lineups.map { lineup in
                        FoundEntry(id: lineup.lineup, name: lineup.name ?? lineup.lineup, transport: headend.transport ?? "",
                                   location: headend.location ?? "", onAccount: onAccount.contains(lineup.lineup))
                    }
                }
            }
        } catch let failure as SDFailure {
            problems.append(failure.sentence.worded(words))
        }
        if !problems.isEmpty {
            model.message = ([message].compactMap { $0 } + problems).joined(separator: " ")
            model.isError = true
        }
        return try pages.page("schedules-direct", model, status: status)
    }

    /// Signs in: checked with one login (SD's `status`) before it is kept.
    func signIn(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await SDSignInForm(request, context)
        let words = pages.words(context)
        guard let connection else { return try await page(context, message: words("This tvguide has no way to Schedules Direct."), isError: true) }
        let account = SchedulesDirectClient.Account(username: form.username, password: form.password)
        let client = SchedulesDirectClient(account: account, transport: connection.transport,
                                           states: StoredSDState(cache: store, now: settings.now), base: connection.base, now: settings.now)
        do {
            _ = try await client.status()
        } catch let failure as SDFailure {
            return try await page(context, message: words("Not signed in: {failure}", ["failure": failure.sentence.worded(words)]), isError: true, status: .badRequest)
        }
        try await SDConnection.keep(account, in: store)
        return try await page(context, message: words("Signed in to Schedules Direct as {username}.", ["username": form.username]))
    }

    func signOut(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let words = pages.words(context)
        _ = try await SDSignInForm.Empty(request, context)
        try await SDConnection.keep(nil, in: store)
        return try await page(context, message: words(
            "Signed out: tvguide keeps no Schedules Direct account now. Its sources fail until one is signed in."))
    }

    /// Adds a lineup to the account or removes it (SD allows 6 changes a day).
    func changeLineup(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await SDLineupForm(request, context)
        let words = pages.words(context)
        guard let connection, let client = try await connection.client(store: store, now: settings.now) else {
            return try await page(context, message: words("Sign in to Schedules Direct first."), isError: true, status: .badRequest)
        }
        do {
            let left = form.adding ? try await client.addLineup(form.lineup) : try await client.removeLineup(form.lineup)
            let done = form.adding ? words("Added {lineup} to the account", ["lineup": form.lineup])
                : words("Removed {lineup} from the account", ["lineup": form.lineup])
            return try await page(context, message: done + (left.map { words.plural("; {count} change left today.", "; {count} changes left today.", count: $0) } ?? "."))
        } catch let failure as SDFailure {
            return try await page(context, message: failure.sentence.worded(words), isError: true, status: .badGateway)
        }
    }
}

extension SchedulesDirectPages {
    /// Chooses SD's programme artwork or gives it up, and refreshes the SD sources so their programmes say so.
    func chooseArtwork(_ request: Request, _ context: AdminRequestContext) async throws -> HTMLPage {
        let form = try await SDArtworkForm(request, context)
        try await SDConnection.chooseArtwork(form.isChosen, in: store)
        let sources = try await store.sources(counting: false).map(\.definition).filter { $0.format == .schedulesdirect }.map(\.name)
        if !sources.isEmpty { _ = try? await scheduler.start(sources) }  // Already refreshing: that refresh reads the new choice.
        let words = pages.words(context)
        return try await page(context, message: form.isChosen
            ? words("Artwork chosen: programmes show Schedules Direct's images after their sources' refresh, each fetched when first opened.")
            : words("Artwork given up: no image is asked of Schedules Direct; programmes stop naming one after their sources' refresh."))
    }
}

/// Whether SD's artwork is chosen (a tick box).
struct SDArtworkForm: PostedForm {
    let isChosen: Bool

    init(_ form: FormFields) throws(FieldError) {
        isChosen = form.isTicked("artwork")
    }
}

/// SD's user name and password, as typed.
struct SDSignInForm: PostedForm {
    let username: String
    let password: String

    init(_ form: FormFields) throws(FieldError) {
        username = try form.text("username", limit: 100, called: "The user name") ?? ""
        password = try form.typed("password", limit: 200, called: "The password") ?? ""
        guard !username.isEmpty else { throw FieldError(name: "username", saying: "The user name is needed") }
        guard !password.isEmpty else { throw FieldError(name: "password", saying: "The password is needed") }
    }

    /// A form with nothing but its token.
    struct Empty: PostedForm {
        init(_ form: FormFields) throws(FieldError) {}
    }
}

/// A lineup to add to the account or remove from it.
struct SDLineupForm: PostedForm {
    enum Action: String, CaseIterable {
        case add, remove
    }

    let lineup: String
    let adding: Bool

    init(_ form: FormFields) throws(FieldError) {
        lineup = try form.text("lineup", limit: 64, called: "The lineup") ?? ""
        guard SourceDefinition.lineups(in: lineup) == [lineup], SourceDefinition(name: SourceName("x"), format: .schedulesdirect,
                                                                                   location: lineup, refreshInterval: 86_400).problem == nil else {
            throw FieldError(name: "lineup", saying: "The lineup takes a Schedules Direct lineup id, like USA-IL57303-X")
        }
        adding = try form.choice("action", as: Action.self, called: "The action") != .remove
    }
}
