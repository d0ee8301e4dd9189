import Foundation
import GuideCore
import GuideStore
import Hummingbird
import NIOCore

/// The context of every request: who is asking, the form token for its pages, JSON written as the CLI writes it,
/// and request bodies kept small.
public struct GuideRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The signed-in profile (by session cookie) or the program (by API token); nil for a guest.
    var viewer: Viewer?
    /// The value every form on the page carries back, matched against the `tvguide_csrf` cookie.
    var csrfToken = ""
    /// The zone the browser reports (the `tz` cookie the page's script sets), when it names a real zone.
    var browserZone: TimeZone?
    /// A guest's theme (the `theme` cookie "/theme" sets); a profile's is its own.
    var browserTheme: Profile.Theme?
    /// The connection's other end (a browser, or a reverse proxy: ``ClientAddress``).
    let peer: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
    }

    /// Forms and API calls are a few kilobytes; anything much larger is refused with 413.
    public var maxUploadSize: Int { 64 * 1024 }

    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// Who is asking, and how they proved it.
struct Viewer: Sendable {
    enum Credential: Sendable {
        /// A browser's session cookie, holding this token.
        case session(String)
        /// A program's `Authorization: Bearer` token, and what it may do.
        case apiToken(APIToken.Scope)
    }

    var profile: Profile
    var credential: Credential
}
