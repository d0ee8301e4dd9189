import Foundation
import GuideCore
import GuideHTTP

/// Plex Media Server through its HTTP API with a token (`X-Plex-Token`), by ``JSONCall``: what tvguide asks of it is
/// that each DVR reload its guide.
struct PlexServer: Sendable {
    let call: JSONCall
    let base: String

    init(address: String, token: String, transport: any HTTPTransport, largest: Int, deadline: Duration) {
        base = address.hasSuffix("/") ? String(address.dropLast()) : address
        call = JSONCall(transport: transport, headers: [("X-Plex-Token", token)], largest: largest, deadline: deadline)
    }

    /// The keys of Plex's DVRs (`GET /livetv/dvrs`: `MediaContainer.Dvr[].key`).
    func dvrs() async throws(JSONCall.Failure) -> [String] {
        try await call.decode(DVRs.self, "GET", base + "/livetv/dvrs").mediaContainer.dvr?.compactMap(\.key)
            .filter { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber } } ?? []
    }

    /// `POST /livetv/dvrs/{key}/reloadGuide`.
    func reloadGuide(of dvr: String) async throws(JSONCall.Failure) {
        _ = try await call.send("POST", base + "/livetv/dvrs/\(dvr)/reloadGuide")
    }

    /// Plex's DVR list, as its API answers it in JSON.
    struct DVRs: Decodable {
        var mediaContainer: Container
        enum CodingKeys: String, CodingKey { case mediaContainer = "MediaContainer" }

        struct Container: Decodable {
            var dvr: [DVR]?
            enum CodingKeys: String, CodingKey { case dvr = "Dvr" }
        }

        /// A DVR; its `key` a string ("16") or, from some versions, a number.
        struct DVR: Decodable {
            var key: String?
            enum CodingKeys: String, CodingKey { case key }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                key = (try? container.decodeIfPresent(String.self, forKey: .key)) ?? (try? container.decodeIfPresent(Int.self, forKey: .key)).flatMap { $0.map(String.init) }
            }
        }
    }
}
