import GuideApplication
import HTTPTypes
import Hummingbird
import Synchronization

/// The site's route groups, by who may call them. A route is registered in exactly one, and its group's context
/// decides who may call it before the handler runs: no handler checks by hand (`scripts/check-routes`). Every route
/// is also written in one table (``RouteTable``), from which ``OtherMethods`` answers a known path asked with a method
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
        open = Routes(router, prefix: "", table: table)
        profile = Routes(router.group(context: ProfileRequestContext.self), prefix: "", table: table)
        admin = Routes(router.group(context: AdminRequestContext.self), prefix: "", table: table)
        record = Routes(router.group(context: RecordRequestContext.self), prefix: "", table: table)
        apiGroup = router.group("api").add(middleware: BearerTokens(accounts: accounts))
        api = Routes(apiGroup, prefix: "api/", table: table)
    }

    /// The API's routes that `Access` admits (``APIRequestContext``).
    func api<Access: APIAccess>(_ access: Access.Type) -> Routes<APIRequestContext<Access>> {
        Routes(apiGroup.group(context: APIRequestContext<Access>.self), prefix: "api/", table: table)
    }
}

/// One group's routes, registered on its Hummingbird group by their ``SitePath`` and written in the site's
/// ``RouteTable``.
struct Routes<Context: RequestContext> {
    private let group: any RouterMethods<Context>
    private let prefix: String
    private let table: RouteTable

    init(_ group: any RouterMethods<Context>, prefix: String, table: RouteTable) {
        (self.group, self.prefix, self.table) = (group, prefix, table)
    }

    @discardableResult
    func on<Output: ResponseGenerator>(_ path: SitePath, method: HTTPRequest.Method,
                                       use handler: @escaping @Sendable (Request, Context) async throws -> Output) -> Self {
        // A group with a prefix (the API's `api/`) takes only its own paths, relative to it.
        assert(path.pattern.hasPrefix(prefix), "\(path) is not under \(prefix)")
        table.add(path.pattern, method)
        let relative = path.pattern.dropFirst(prefix.count)
        _ = group.on(RouterPath(relative.isEmpty ? "/" : String(relative)), method: method, use: handler)
        return self
    }

    @discardableResult
    func get<Output: ResponseGenerator>(_ path: SitePath, use handler: @escaping @Sendable (Request, Context) async throws -> Output) -> Self {
        on(path, method: .get, use: handler)
    }

    @discardableResult
    func post<Output: ResponseGenerator>(_ path: SitePath, use handler: @escaping @Sendable (Request, Context) async throws -> Output) -> Self {
        on(path, method: .post, use: handler)
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
/// registered, read for each request whose path and method no route takes (``OtherMethods``).
final class RouteTable: Sendable {
    private let routes = Mutex<[String: Set<HTTPRequest.Method>]>([:])

    func add(_ path: String, _ method: HTTPRequest.Method) {
        routes.withLock { _ = $0[path.hasPrefix("/") ? String(path.dropFirst()) : path, default: []].insert(method) }
    }

    /// Each path and the methods its routes take.
    var paths: [(path: String, methods: Set<HTTPRequest.Method>)] {
        routes.withLock { $0.map { ($0.key, $0.value) } }.sorted { $0.path < $1.path }
    }

    /// The methods the routes whose pattern `path` fits take (a `:name` segment fits any one segment; a pattern with a
    /// `*` is passed over), HEAD wherever GET is; nil for a path no route has.
    func methods(for path: String) -> Set<HTTPRequest.Method>? {
        var found: Set<HTTPRequest.Method>?
        routes.withLock { routes in
            for (pattern, methods) in routes where !pattern.contains("*") && SitePath.pattern(pattern, fits: path) {
                found = (found ?? []).union(methods)
            }
        }
        if found?.contains(.get) == true { found?.insert(.head) }
        return found
    }
}

/// A known path asked with a method none of its routes takes: 405 with `Allow` (RFC 9110), before anything else
/// reads the request (a form's token among them). Unknown paths are left to the router's 404.
struct OtherMethods: RouterMiddleware {
    typealias Context = GuideRequestContext
    let table: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The router calls this only for routes it has, or for no route at all (its 404): only the second may need it.
        if let methods = table.methods(for: request.uri.path), !methods.contains(request.method) {
            let allow = methods.map(\.rawValue).sorted().joined(separator: ", ")
            throw Refusal(.methodNotAllowed, headers: [.allow: allow], saying: "{method} is not taken here; {allowed} are", ["method": request.method.rawValue, "allowed": allow])
        }
        return try await next(request, context)
    }
}
