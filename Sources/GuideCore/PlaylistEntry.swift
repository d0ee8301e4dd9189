import Foundation

/// One channel of an IPTV playlist (M3U's `#EXTINF` line, the lines that qualify it, and its stream's URL): what a
/// playlist adds to a guide's channel. Numbers in it have been read into their ranges (``Bounded``) by the reader.
public struct PlaylistEntry: Hashable, Codable, Sendable {
    /// The title after `#EXTINF`'s comma: what the playlist calls the channel.
    public var name: String
    /// `tvg-id`: the XMLTV channel id the playlist says it is.
    public var guideID: String?
    /// `tvg-name`: the name guide tools match on when there is no id.
    public var guideName: String?
    /// `tvg-logo`.
    public var logo: String?
    /// `tvg-chno`: the channel number as players show it ("101", "4.1", "CS363"), at most 16 characters.
    public var number: String?
    /// `group-title` (split at `;`) and `#EXTGRP` lines, in order, without repeats.
    public var groups: [String]
    /// `tvg-shift`: hours the guide's times are moved for this channel, -24 to 24.
    public var shiftHours: Double?
    /// `catchup` (the kind: "default", "append", "shift", "flussonic"...), `catchup-days` (0 to 365) and
    /// `catchup-source` (the address template).
    public var catchup: Catchup?
    /// `#EXTVLCOPT:` options (`http-user-agent`, `http-referrer`...), by name.
    public var playerOptions: [String: String]
    /// The stream's address: the line after the entry's tags.
    public var stream: String
    /// Every other attribute of the `#EXTINF` line (`tvg-country`, `tvg-language`...), by name.
    public var attributes: [String: String]

    public struct Catchup: Hashable, Codable, Sendable {
        public var kind: String
        public var days: Int?
        public var source: String?

        public init(kind: String, days: Int? = nil, source: String? = nil) {
            (self.kind, self.days, self.source) = (kind, days, source)
        }
    }

    public init(name: String, guideID: String? = nil, guideName: String? = nil, logo: String? = nil, number: String? = nil,
                groups: [String] = [], shiftHours: Double? = nil, catchup: Catchup? = nil, playerOptions: [String: String] = [:],
                stream: String, attributes: [String: String] = [:]) {
        self.name = name
        self.guideID = guideID
        self.guideName = guideName
        self.logo = logo
        self.number = number
        self.groups = groups
        self.shiftHours = shiftHours
        self.catchup = catchup
        self.playerOptions = playerOptions
        self.stream = stream
        self.attributes = attributes
    }

    /// The hours `tvg-shift` may move a channel.
    public static let shiftRange = -24.0...24.0
    /// The days of catch-up a playlist may claim.
    public static let catchupDaysRange = 0...365

    /// What `name` is matched on against a guide's channel names: folded (case and accents), without bracketed parts
    /// ("(720p)", "[Geo-blocked]"), circled markers ("Ⓖ", "Ⓨ"), picture-quality words ("HD", "FHD", "UHD", "4K",
    /// "SD") and everything but letters and digits. "BBC One HD Ⓖ" and "BBC One" both give "bbcone".
    public static func matchKey(_ name: String) -> String {
        var kept = ""
        var depth = 0
        for character in name {
            switch character {
            case "(", "[", "{": depth += 1
            case ")", "]", "}": depth = max(0, depth - 1)
            default:
                // Markers go before folding, which would turn "Ⓖ" into "g".
                if depth == 0, !Self.isMarker(character) { kept.append(character) }
            }
        }
        let words = SearchText.fold(kept).split { !$0.isLetter && !$0.isNumber }
        return words.filter { !Self.qualityWords.contains(String($0)) }.joined()
    }

    static let qualityWords: Set<String> = ["hd", "fhd", "uhd", "sd", "4k", "8k", "hevc", "h264", "h265", "1080p", "1080i", "720p",
                                            "576p", "576i", "480p", "360p", "50fps", "60fps"]

    /// Enclosed letters and numbers (Ⓖ, ⓨ, ①): playlists mark geo-blocking and link kinds with them.
    static func isMarker(_ character: Character) -> Bool {
        character.unicodeScalars.contains { (0x2460...0x24FF).contains($0.value) || (0x1F100...0x1F1FF).contains($0.value) }
    }
}

/// What an M3U playlist's `#EXTM3U` header line says: the guides it names (`x-tvg-url`, `url-tvg`; comma-separated)
/// and its other attributes.
public struct PlaylistHeader: Hashable, Codable, Sendable {
    public var guideURLs: [String]
    public var attributes: [String: String]

    public init(guideURLs: [String] = [], attributes: [String: String] = [:]) {
        (self.guideURLs, self.attributes) = (guideURLs, attributes)
    }
}
