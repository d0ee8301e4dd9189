import GuideCore
import GuideStore
import Hummingbird

/// Who may call a group of API routes: whether a browser's session may read them, the scope a token needs, and
/// whether only an admin's credential will do. Each route group of the API names one (``APIRequestContext``).
protocol APIAccess: Sendable {
    /// Whether a browser's session cookie is enough (reads only: another site can make a browser send cookies).
    static var acceptsSessions: Bool { get }
    /// The narrowest token scope that may call the group.
    static var scope: APIToken.Scope { get }
    /// Whether the credential must be an admin profile's.
    static var adminsOnly: Bool { get }
}

/// A profile reading its own things: a session, or a token of any scope.
enum ProfileReads: APIAccess {
    static let acceptsSessions = true, scope = APIToken.Scope.read, adminsOnly = false
}

/// An admin reading the server's sources and health: an admin's session, or an admin's token of any scope.
enum AdminReads: APIAccess {
    static let acceptsSessions = true, scope = APIToken.Scope.read, adminsOnly = true
}

/// A profile changing its own things (lineup, reminders, delivery channels, saved searches): a token of scope admin.
enum ProfileChanges: APIAccess {
    static let acceptsSessions = false, scope = APIToken.Scope.admin, adminsOnly = false
}

/// Starting a refresh: an admin's token of scope refresh or wider.
enum Refreshes: APIAccess {
    static let acceptsSessions = false, scope = APIToken.Scope.refresh, adminsOnly = true
}

/// Importing listings: an admin's token of scope admin.
enum Imports: APIAccess {
    static let acceptsSessions = false, scope = APIToken.Scope.admin, adminsOnly = true
}

/// The context of an API group whose routes `Access` admits: the profile whose credential was accepted, before any
/// handler of the group runs. 401 without a credential the group takes, 403 for a token of a narrower scope or a
/// profile that is not an admin where only admins may call.
struct APIRequestContext<Access: APIAccess>: CheckedGuideContext {
    var coreContext: CoreRequestContextStorage
    let base: GuideRequestContext
    /// Whose credential the request carries.
    let profile: Profile

    init(context: GuideRequestContext) throws {
        if let holder = context.apiToken {
            guard holder.scope >= Access.scope else {
                throw HTTPError(.forbidden, message: "this token's scope is \(holder.scope.rawValue); this needs a token with scope \(Access.scope.rawValue)")
            }
            profile = holder.profile
        } else if Access.acceptsSessions, let viewer = context.viewer {
            profile = viewer.profile
        } else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: Access.acceptsSessions
                ? "send Authorization: Bearer with an API token, or sign in"
                : "changes need Authorization: Bearer with an API token of scope \(Access.scope.rawValue) (an admin creates them on /admin)")
        }
        guard profile.isAdmin || !Access.adminsOnly else {
            throw HTTPError(.forbidden, message: "only an admin's credential can do this")
        }
        coreContext = context.coreContext
        base = context
    }
}
