import GuideCore
import Hummingbird

/// The context of the recording routes' group: a browser signed in with a profile an admin lets record (an admin
/// always may). A guest is sent to sign in; another viewer gets 403.
struct RecordRequestContext: CheckedGuideContext {
    var coreContext: CoreRequestContextStorage
    let base: GuideRequestContext
    /// The signed-in profile, which may record.
    let profile: Profile

    init(context: GuideRequestContext) throws {
        let signedIn = try ProfileRequestContext(context: context)
        guard signedIn.profile.mayRecord else { throw Refusal(.forbidden, saying: "An admin has not let this profile record.") }
        (coreContext, base, profile) = (signedIn.coreContext, signedIn.base, signedIn.profile)
    }
}
