import Foundation
import GuideStore
import Hummingbird
import Logging

/// The web guide and its API, served by Hummingbird.
public enum GuideServer {
    /// Every route, behind the security headers.
    public static func router(store: any ListingStore) -> Router<GuideRequestContext> {
        let router = Router(context: GuideRequestContext.self)
        router.add(middleware: SecurityHeaders())
        APIRoutes(store: store).register(on: router)
        return router
    }

    /// Real listings (see Resources/PROVENANCE.md) for a first run, so the guide is never empty.
    public static var sampleListings: URL? {
        Bundle.module.url(forResource: "sample-listings.xml", withExtension: "gz")
    }

    /// The server on `host`:`port`.
    public static func application(store: any ListingStore, host: String, port: Int,
                                   logger: Logger = Logger(label: "tvguide")) -> some ApplicationProtocol {
        Application(router: router(store: store),
                    configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "tvguide"),
                    logger: logger)
    }
}
