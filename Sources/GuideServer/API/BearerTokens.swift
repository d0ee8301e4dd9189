import Hummingbird

/// Reads a program's `Authorization: Bearer` token, on the API's group only: the one place a token is a credential
/// (the feeds carry their own secret in their address, `/metrics` checks its own). An unknown or revoked token is
/// 401 at once; a known one is put in the context, for the group's ``APIRequestContext`` to check its scope.
struct BearerTokens: RouterMiddleware {
    typealias Context = GuideRequestContext
    let accounts: Accounts

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Bearer ") {
            let token = String(authorization.dropFirst("Bearer ".count))
            guard let holder = try await accounts.profile(apiToken: token) else {
                throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "the API token is unknown or was revoked")
            }
            context.apiToken = TokenHolder(profile: holder.profile, scope: holder.scope)
        }
        return try await next(request, context)
    }
}
