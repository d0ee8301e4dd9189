import Foundation
import GuideCore

/// How a server runs: its clock, the zone and day start it assumes for guests, cookie security and where it keeps
/// the XMLTV files it serves.
public struct ServerSettings: Sendable {
    /// The guide's one clock (`tvguide serve --pretend-now` and tests move it).
    public var clock: GuideClock
    /// The wall-clock time, from ``clock``.
    public var now: @Sendable () -> Date { clock.now }
    /// The zone for viewers whose browser does not say theirs.
    public var timeZone: TimeZone
    /// The hour a guide day starts for guests (profiles choose their own).
    public var dayStartHour: Int
    /// Whether cookies carry `Secure`. Browsers keep Secure cookies on https and on loopback (127.0.0.1, localhost);
    /// off only for plain http on a home network, on purpose (`--insecure-cookies`).
    public var secureCookies: Bool
    /// bcrypt's cost for new secrets (12 is about a quarter of a second).
    public var secretCost: UInt8
    /// The cost a server uses unless a test asks for less.
    public static let defaultSecretCost: UInt8 = 12
    /// The one-time code that lets the first visitor create the admin profile, printed by `serve`; nil once one exists.
    public var setupCode: String?
    /// Where `/xmltv.xml` and `/xmltv.xml.gz` are written, once per version of the listings.
    public var exportDirectory: String
    /// Reverse proxies in front of the server (`--trusted-proxy`): only their `X-Forwarded-For` names the client.
    public var trustedProxies: [String] = []
    /// How many days of listings, from today, installed guides keep for use offline (`--offline-days`, 1-7).
    public var offlineDays: Int = 3
    /// Who may read `/metrics` (`--metrics`).
    public var metrics: MetricsAccess = .loopback
    /// The most memory request bodies may hold at once, in all: 100 MiB, two of the largest uploads (a tracker's
    /// export, 50 MiB). A body that would pass it is refused with 503 and `Retry-After`.
    public var bodiesInFlight = 100 << 20

    /// Who may read `/metrics`: nobody, a client on this machine (the connection's own address, never a forwarded
    /// one), or any client with an API token.
    public enum MetricsAccess: String, Sendable, CaseIterable {
        case off, loopback, token
    }
    /// The address people open the guide at (`--public-url`): media servers' feeds name logos under it (else under
    /// the address the feed was asked for at).
    public var publicURL: String?
    /// The names the admin gave this server (`--host` when it is a name): a request's `Host` naming one of them is
    /// its address for links when there is no `publicURL`.
    public var hostNames: [String] = []

    public init(clock: GuideClock, timeZone: TimeZone = .current, dayStartHour: Int = 5,
                secureCookies: Bool = true, secretCost: UInt8 = defaultSecretCost, setupCode: String? = nil,
                exportDirectory: String = FileManager.default.temporaryDirectory.appendingPathComponent("tvguide-export").path) {
        self.clock = clock
        self.timeZone = timeZone
        self.dayStartHour = dayStartHour
        self.secureCookies = secureCookies
        self.secretCost = secretCost
        self.setupCode = setupCode
        self.exportDirectory = exportDirectory
    }
}
