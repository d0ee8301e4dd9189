import GuideApplication
import HTTPTypes
import Hummingbird
import Synchronization

/// The site's route groups, by who may call them. A route is registered in exactly one, and its group's context
/// decides who may call it before the handler runs: no handler checks by hand (`scripts/check-routes`). Every route
/// is also written in one table (``RouteTable``), from which ``RouteIntake`` answers a known path asked with a method
/// it does not take: 405 with `Allow`.
struct RouteGroups {
    /// Anyone, a guest included: the guide's pages, sign-in, the feeds (which carry their own secret).
    let open: Routes<GuideRequestContext>
    /// A browser signed in with a session (``ProfileRequestContext``); a guest is sent to sign in.
    let profile: Routes<ProfileRequestContext>
    /// A browser signed in as an admin (``AdminRequestContext``).
    let admin: Routes<AdminRequestContext>
    /// A browser signed in with a profile that may record (``RecordRequestContext``).
    let record: Routes<RecordRequestContext>
    /// The JSON API's reads that need no credential; the only group that reads `Authorization: Bearer`.
    let api: Routes<GuideRequestContext>
    private let apiGroup: RouterGroup<GuideRequestContext>
    let table = RouteTable()

    init(_ router: Router<GuideRequestContext>, accounts: Accounts) {
        open = Routes(router, prefix: "", table: table, admit: { _ in })
        profile = Routes(checked: router.group(context: ProfileRequestContext.self), prefix: "", table: table)
        admin = Routes(checked: router.group(context: AdminRequestContext.self), prefix: "", table: table)
        record = Routes(checked: router.group(context: RecordRequestContext.self), prefix: "", table: table)
        apiGroup = router.group("api").add(middleware: BearerTokens(accounts: accounts))
        // The API's credential is a bearer token, which BearerTokens reads before its group's context admits it: the
        // API's handlers read a body only once their group has admitted the caller.
        api = Routes(apiGroup, prefix: "api/", table: table, admit: { _ in })
    }

    /// The API's routes that `Access` admits (``APIRequestContext``).
    func api<Access: APIAccess>(_ access: Access.Type) -> Routes<APIRequestContext<Access>> {
        Routes(apiGroup.group(context: APIRequestContext<Access>.self), prefix: "api/", table: table, admit: { _ in })
    }
}

/// One group's routes, registered on its Hummingbird group by their ``SitePath`` and written in the site's
/// ``RouteTable``.
struct Routes<Context: RequestContext> {
    private let group: any RouterMethods<Context>
    private let prefix: String
    private let table: RouteTable
    /// The group's decision from the request's head (``RouteTable/Route/admit``).
    private let admit: @Sendable (GuideRequestContext) throws -> Void

    init(_ group: any RouterMethods<Context>, prefix: String, table: RouteTable, admit: @escaping @Sendable (GuideRequestContext) throws -> Void) {
        (self.group, self.prefix, self.table, self.admit) = (group, prefix, table, admit)
    }

    /// A group whose context admits its callers (``CheckedGuideContext``): the same check decides from the head,
    /// before the body is read.
    init(checked group: any RouterMethods<Context>, prefix: String, table: RouteTable) where Context: CheckedGuideContext {
        self.init(group, prefix: prefix, table: table) { _ = try Context(context: $0) }
    }

    /// The route for `path` and `method`, taking bodies of `body`'s size (a form's, unless the route says otherwise).
    @discardableResult
    func on<Output: ResponseGenerator>(_ path: SitePath, method: HTTPRequest.Method, body: BodySize = .form,
                                       use handler: @escaping @Sendable (Request, Context) async throws -> Output) -> Self {
        // A group with a prefix (the API's `api/`) takes only its own paths, relative to it.
        assert(path.pattern.hasPrefix(prefix), "\(path) is not under \(prefix)")
        table.add(path.pattern, method, RouteTable.Route(admit: admit, body: body))
        let relative = path.pattern.dropFirst(prefix.count)
        _ = group.on(RouterPath(relative.isEmpty ? "/" : String(relative)), method: method, use: handler)
        return self
    }

    @discardableResult
    func get<Output: ResponseGenerator>(_ path: SitePath, use handler: @escaping @Sendable (Request, Context) async throws -> Output) -> Self {
        on(path, method: .get, use: handler)
    }

    @discardableResult
    func post<Output: ResponseGenerator>(_ path: SitePath, body: BodySize = .form,
                                         use handler: @escaping @Sendable (Request, Context) async throws -> Output) -> Self {
        on(path, method: .post, body: body, use: handler)
    }

    @discardableResult
    func put<Output: ResponseGenerator>(_ path: SitePath, use handler: @escaping @Sendable (Request, Context) async throws -> Output) -> Self {
        on(path, method: .put, use: handler)
    }

    @discardableResult
    func delete<Output: ResponseGenerator>(_ path: SitePath, use handler: @escaping @Sendable (Request, Context) async throws -> Output) -> Self {
        on(path, method: .delete, use: handler)
    }

    // A path with values: its handler gets them typed, parsed before it runs (a segment that is not one is its type's
    // refusal, 404).

    @discardableResult
    func on<A, Output: ResponseGenerator>(_ path: SitePath.One<A>, method: HTTPRequest.Method,
                                          use handler: @escaping @Sendable (Request, Context, A) async throws -> Output) -> Self {
        on(path.path, method: method) { request, context in try await handler(request, context, try path.value(context.parameters)) }
    }

    @discardableResult
    func get<A, Output: ResponseGenerator>(_ path: SitePath.One<A>, use handler: @escaping @Sendable (Request, Context, A) async throws -> Output) -> Self {
        on(path, method: .get, use: handler)
    }

    @discardableResult
    func post<A, Output: ResponseGenerator>(_ path: SitePath.One<A>, use handler: @escaping @Sendable (Request, Context, A) async throws -> Output) -> Self {
        on(path, method: .post, use: handler)
    }

    @discardableResult
    func put<A, Output: ResponseGenerator>(_ path: SitePath.One<A>, use handler: @escaping @Sendable (Request, Context, A) async throws -> Output) -> Self {
        on(path, method: .put, use: handler)
    }

    @discardableResult
    func delete<A, Output: ResponseGenerator>(_ path: SitePath.One<A>, use handler: @escaping @Sendable (Request, Context, A) async throws -> Output) -> Self {
        on(path, method: .delete, use: handler)
    }

    @discardableResult
    func get<A, B, Output: ResponseGenerator>(_ path: SitePath.Two<A, B>,
                                              use handler: @escaping @Sendable (Request, Context, A, B) async throws -> Output) -> Self {
        on(path.path, method: .get) { request, context in
            let (a, b) = try path.values(context.parameters)
            return try await handler(request, context, a, b)
        }
    }
}

/// Every route of the site, by path (as registered: `programmes/:id`) and method. Filled while the routes are
/// registered, read for each request whose path and method no route takes and for each request's route (``RouteIntake``).
final class RouteTable: Sendable {
    /// What a request's head decides for one route, before its body is read.
    struct Route: Sendable {
        /// Throws the group's refusal (sign in, 403) when the caller the head names may not call the route.
        let admit: @Sendable (GuideRequestContext) throws -> Void
        /// How large a body it takes.
        let body: BodySize
    }

    private let routes = Mutex<[String: [HTTPRequest.Method: Route]]>([:])

    func add(_ path: String, _ method: HTTPRequest.Method, _ route: Route) {
        routes.withLock { $0[path.hasPrefix("/") ? String(path.dropFirst()) : path, default: [:]][method] = route }
    }

    /// Each path and the methods its routes take.
    var paths: [(path: String, methods: Set<HTTPRequest.Method>)] {
        routes.withLock { $0.map { ($0.key, Set($0.value.keys)) } }.sorted { $0.path < $1.path }
    }

    /// The methods the routes whose pattern `path` fits take (a `:name` segment fits any one segment; a pattern with a
    /// `*` is passed over), HEAD wherever GET is; nil for a path no route has.
    func methods(for path: String) -> Set<HTTPRequest.Method>? {
        var found: Set<HTTPRequest.Method>?
        routes.withLock { routes in
            for (pattern, methods) in routes where !pattern.contains("*") && SitePath.pattern(pattern, fits: path) {
                found = (found ?? []).union(methods.keys)
            }
        }
        if found?.contains(.get) == true { found?.insert(.head) }
        return found
    }

    /// The route the router takes for `path` asked with `method`: of the patterns it fits, the one with the fewest
    /// `:name` segments (the router prefers a fixed segment to a value); nil when none takes it.
    func route(for path: String, _ method: HTTPRequest.Method) -> Route? {
        routes.withLock { routes in
            routes.filter { !$0.key.contains("*") && $0.value[method] != nil && SitePath.pattern($0.key, fits: path) }
                .min { $0.key.split(separator: "/").count { $0.hasPrefix(":") } < $1.key.split(separator: "/").count { $0.hasPrefix(":") } }?
                .value[method]
        }
    }
}

/// What a request's head decides before anything reads its body. A known path asked with a method none of its routes
/// takes: 405 with `Allow` (RFC 9110). Otherwise the context is given the route (who may call it, how large a body)
/// and a ticket for the memory its body may hold (``BodyIntake``), given back when the answer is made. Unknown paths
/// are left to the router's 404, their bodies unread.
struct RouteIntake: RouterMiddleware {
    typealias Context = GuideRequestContext
    let table: RouteTable
    let bodies: BodyIntake

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The router calls this only for routes it has, or for no route at all (its 404): only the second may need it.
        let path = request.uri.path
        if let methods = table.methods(for: path), !methods.contains(request.method) {
            let allow = methods.map(\.rawValue).sorted().joined(separator: ", ")
            throw Refusal(.methodNotAllowed, headers: [.allow: allow], saying: "{method} is not taken here; {allowed} are", ["method": request.method.rawValue, "allowed": allow])
        }
        var context = context
        // Only a request that may carry a body needs its route's decision before it (a GET's or HEAD's is never read).
        if request.method != .get, request.method != .head { context.route = table.route(for: path, request.method) }
        let ticket = bodies.ticket()
        context.bodyTicket = ticket
        defer { ticket.giveBack() }
        return try await next(request, context)
    }
}
