import GuideCore
import Hummingbird

/// The context of the profile pages' group: a browser signed in with a session. A guest is sent to sign in and come
/// back, before any handler of the group runs.
struct ProfileRequestContext: CheckedGuideContext {
    var coreContext: CoreRequestContextStorage
    let base: GuideRequestContext
    /// The signed-in profile.
    let profile: Profile

    init(context: GuideRequestContext) throws {
        guard let viewer = context.viewer else { throw SignInRequired(returnTo: context.path) }
        coreContext = context.coreContext
        base = context
        profile = viewer.profile
    }
}

/// Thrown when a page needs a signed-in profile; becomes a redirect to the sign-in page (``ErrorPages``).
struct SignInRequired: Error {
    var returnTo: String
}
