import Foundation
import GuideCore
import Hummingbird
import NIOCore

/// What every page reads of a request, whichever group it came through: the browser's session, its form token, zone
/// and theme. ``GuideRequestContext`` has them first; the groups' contexts carry them on.
protocol GuideContext: RequestContext {
    var viewer: Viewer? { get }
    var csrfToken: String { get }
    var posted: PostedBody? { get }
    var browserZone: TimeZone? { get }
    var browserTheme: Profile.Theme? { get }
    /// Whether pages are laid out for a television and its remote (``TVMode``).
    var isTV: Bool { get }
    var acceptLanguage: AcceptLanguage? { get }
    var peer: SocketAddress? { get }
    var local: SocketAddress? { get }
    /// The request's body, within its route's and caller's limit and the server's bound (``GuideRequestContext/body(of:)``).
    func body(of request: Request) async throws -> ByteBuffer
}

/// A context a route group makes from ``GuideRequestContext`` once it has checked who is asking: it keeps the request
/// as it came (`base`) and adds what the group proved.
protocol CheckedGuideContext: GuideContext, ChildRequestContext where ParentContext == GuideRequestContext {
    var base: GuideRequestContext { get }
}

extension CheckedGuideContext {
    var viewer: Viewer? { base.viewer }
    var csrfToken: String { base.csrfToken }
    var posted: PostedBody? { base.posted }
    var browserZone: TimeZone? { base.browserZone }
    var browserTheme: Profile.Theme? { base.browserTheme }
    var isTV: Bool { base.isTV }
    var acceptLanguage: AcceptLanguage? { base.acceptLanguage }
    var peer: SocketAddress? { base.peer }
    var local: SocketAddress? { base.local }
    var maxUploadSize: Int { base.maxUploadSize }
    func body(of request: Request) async throws -> ByteBuffer { try await base.body(of: request) }
    var responseEncoder: JSONEncoder { GuideRequestContext.encoder }
}

extension GuideContext {
    /// The language of the pages: the profile's choice, else the one the browser prefers most of those with a
    /// catalog, else English.
    var language: Language { viewer?.profile.language ?? acceptLanguage.flatMap(Language.preferred) ?? .english }

    /// How dates, times and numbers are written: the browser's own region when it asks for the page's language in
    /// one ("en-GB" writes 24-hour times, "en-US" 12-hour), else the language's.
    var locale: Locale? { language.locale(acceptLanguage) }

    /// The languages the viewer reads listings in, most preferred first: where a programme has titles and
    /// descriptions in several (XMLTV's `lang`), these choose what the grid, On now, search and details show.
    var listingLanguages: [String] {
        LocalizedText.readingOrder(chosen: viewer?.profile.listingLanguages ?? [], profile: viewer?.profile.language?.code,
                                   accepted: acceptLanguage)
    }
}
