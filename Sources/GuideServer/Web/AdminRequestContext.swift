import GuideCore
import Hummingbird

/// The context of the admin pages' group: a browser signed in with an admin profile's session. A guest is sent to
/// sign in; a viewer gets 403; an API token is never an admin here, whatever its scope.
struct AdminRequestContext: CheckedGuideContext {
    var coreContext: CoreRequestContextStorage
    let base: GuideRequestContext
    /// The signed-in admin.
    let admin: Profile

    init(context: GuideRequestContext) throws {
        // A profile's session first (a guest is sent to sign in), then an admin's.
        let signedIn = try ProfileRequestContext(context: context)
        guard signedIn.profile.isAdmin else { throw Refusal(.forbidden, saying: "Only an admin profile can do this.") }
        (coreContext, base, admin) = (signedIn.coreContext, signedIn.base, signedIn.profile)
    }
}
