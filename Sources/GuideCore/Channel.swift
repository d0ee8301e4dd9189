/// A television or radio channel as a listings source describes it.
public struct Channel: Hashable, Codable, Sendable {
    public var id: ChannelID
    /// Display names in source order; the first is the one a guide shows.
    public var displayNames: [LocalizedText]
    public var icons: [Icon]
    public var urls: [String]
    /// The channel number viewers tune to (XMLTV `lcn` or a number-only display name).
    public var number: String?

    public init(id: ChannelID, displayNames: [LocalizedText] = [], icons: [Icon] = [], urls: [String] = [], number: String? = nil) {
        self.id = id
        self.displayNames = displayNames
        self.icons = icons
        self.urls = urls
        self.number = number
    }

    /// The name to show: the first display name that is not just a number, else the id.
    public var name: String {
        displayNames.first(where: { !$0.text.allSatisfy(\.isNumber) })?.text
            ?? displayNames.first?.text ?? id.rawValue
    }

    /// The channel with `logo` first among its icons (once), when there is one.
    public func withLogo(_ logo: String?) -> Channel {
        guard let logo else { return self }
        var channel = self
        channel.icons = [Icon(src: logo)] + icons.filter { $0.src != logo }
        return channel
    }
}

/// An image for a channel, programme or rating, as XMLTV's `icon` element gives it.
public struct Icon: Hashable, Codable, Sendable {
    public var src: String
    public var width: Int?
    public var height: Int?

    /// The widths and heights in pixels a feed may state; others are left out.
    public static let sizeRange = 0...100_000

    public init(src: String, width: Int? = nil, height: Int? = nil) {
        self.src = src
        self.width = width
        self.height = height
    }
}
