import Hummingbird

/// The site's route groups, by who may call them. A route is registered in exactly one, and its group's context
/// decides who may call it before the handler runs: no handler checks by hand (`scripts/check-routes`).
struct RouteGroups {
    /// Anyone, a guest included: the guide's pages, sign-in, the feeds (which carry their own secret).
    let open: Router<GuideRequestContext>
    /// A browser signed in with a session (``ProfileRequestContext``); a guest is sent to sign in.
    let profile: RouterGroup<ProfileRequestContext>
    /// A browser signed in as an admin (``AdminRequestContext``).
    let admin: RouterGroup<AdminRequestContext>
    /// The JSON API's reads that need no credential; the only group that reads `Authorization: Bearer`.
    let api: RouterGroup<GuideRequestContext>

    init(_ router: Router<GuideRequestContext>, accounts: Accounts) {
        open = router
        profile = router.group(context: ProfileRequestContext.self)
        admin = router.group(context: AdminRequestContext.self)
        api = router.group("api").add(middleware: BearerTokens(accounts: accounts))
    }

    /// The API's routes that `Access` admits (``APIRequestContext``).
    func api<Access: APIAccess>(_ access: Access.Type) -> RouterGroup<APIRequestContext<Access>> {
        api.group(context: APIRequestContext<Access>.self)
    }
}
