import Foundation
import GuideCore
import Hummingbird

/// A channel as the API shows it.
struct ChannelDocument: Codable, Sendable {
    var id: String
    var name: String
    var number: String?
    /// The logo's address as the source gives it.
    var icon: String?
    /// The logo through tvguide's cache (``ChannelLogos``), a path on this server.
    var logo: String?
    /// From the playlist describing it: its groups and its stream's address.
    var groups: [String]
    var stream: String?

    init(_ channel: Channel, playlist entry: PlaylistEntry? = nil) {
        id = channel.id.rawValue
        name = channel.name
        number = channel.number
        icon = channel.icons.first?.src
        logo = ChannelLogos.address(of: channel)
        groups = entry?.groups ?? []
        stream = entry?.stream
    }
}

/// `GET /api/coverage`: the first and last instant with listings, both null for an empty guide.
struct CoverageDocument: Encodable, Sendable {
    var start: String?
    var end: String?

    enum CodingKeys: String, CodingKey { case start, end }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
    }
}

extension CoverageDocument: ResponseEncodable {}
extension ProgrammeDocument: ResponseEncodable {}
