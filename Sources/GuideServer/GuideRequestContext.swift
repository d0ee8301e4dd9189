import Foundation
import GuideApplication
import GuideCore
import GuideStore
import Hummingbird
import NIOCore

/// The context of every request as it arrives: who is signed in (by session cookie only), the form token for its
/// pages, the browser's zone and theme. Route groups turn it into the context their handlers need
/// (``ProfileRequestContext``, ``AdminRequestContext``, ``APIRequestContext``), so a handler that needs a profile
/// cannot run without one.
public struct GuideRequestContext: RequestContext, GuideContext {
    public var coreContext: CoreRequestContextStorage
    /// The profile signed in by this browser's session cookie; nil for a guest. Never an API token: those are read
    /// only by the API's group (``BearerTokens``).
    var viewer: Viewer?
    /// The API token the request carries and whose it is; set only under `/api` (``BearerTokens``).
    var apiToken: TokenHolder?
    /// The value every form on the page carries back: bound to the session (or a guest's nonce cookie) by
    /// ``FormTokens``.
    var csrfToken = ""
    /// The form a page posted, read once by ``SessionMiddleware``, which checks its token on it; the handler's form
    /// type reads the same fields (``PostedForm``, ``MultipartForm/posted(_:)``).
    var posted: PostedBody?
    /// The zone the browser reports (the `tz` cookie the page's script sets), when it names a real zone.
    var browserZone: TimeZone?
    /// A guest's theme (the `theme` cookie "/theme" sets); a profile's is its own.
    var browserTheme: Profile.Theme?
    /// Whether pages are laid out for a television and its remote (``TVMode``).
    var isTV = false
    /// The browser's `Accept-Language` (its first 512 characters), read once: the pages' language and formats when
    /// the viewer chose none, and the languages listings are shown in.
    var acceptLanguage: AcceptLanguage?
    /// The path asked for, to come back to after signing in.
    var path = "/"
    /// The connection's other end (a browser, or a reverse proxy: ``ClientAddress``).
    let peer: SocketAddress?
    /// The connection's own end: the address of this machine the client reached (``ServerSettings/publicAddress(for:local:)``).
    let local: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
        local = source.channel.localAddress
    }

    /// The route the request asked for, found from its head (``RouteIntake``): who may call it and how large a body
    /// it takes. Nil for a path no route has.
    var route: RouteTable.Route?
    /// The request's share of the memory bodies may hold (``BodyIntake``).
    var bodyTicket: BodyIntake.Ticket?

    /// The route's body size for a caller who proved who they are (a session or an API token); a guest's otherwise
    /// (``BodySize``). Past it, 413.
    public var maxUploadSize: Int { (route?.body ?? .form).limit(signedIn: viewer != nil || apiToken != nil) }

    /// The request's body, read within ``maxUploadSize`` and the server's bound. Read it only once the caller is
    /// admitted: a group's context has admitted them; a page's form is read by ``SessionMiddleware`` after its
    /// route's group has.
    func body(of request: Request) async throws -> ByteBuffer {
        guard let bodyTicket else { throw HTTPError(.internalServerError) }
        return try await bodyTicket.read(request, upTo: maxUploadSize)
    }

    public var responseEncoder: JSONEncoder { Self.encoder }

    /// JSON written as the CLI writes it.
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// A browser's signed-in profile and the session that proves it.
struct Viewer: Sendable {
    var profile: Profile
    /// The session cookie's token, which the page's form token is bound to.
    var sessionToken: String
}

/// A program's `Authorization: Bearer` token: whose it is and what it may do.
struct TokenHolder: Sendable {
    var profile: Profile
    var scope: APIToken.Scope
}
