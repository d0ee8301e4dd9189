import GuideCore

/// Where the web door serves what the other doors and the written feeds name, as paths on its site: a channel's logo
/// (nil for a channel whose logo cannot be fetched), a programme's artwork by its query value, and a programme's page.
/// The composition root takes them from the web door; a feed puts the address it was asked at before them, Home
/// Assistant the guide's public address.
public struct WebLinks: Sendable {
    public var logo: @Sendable (Channel) -> String?
    public var artwork: @Sendable (String) -> String
    public var programme: @Sendable (ProgrammeID) -> String

    public init(logo: @escaping @Sendable (Channel) -> String?, artwork: @escaping @Sendable (String) -> String,
                programme: @escaping @Sendable (ProgrammeID) -> String) {
        (self.logo, self.artwork, self.programme) = (logo, artwork, programme)
    }

    /// The artwork addresses under `base`, as GuideExport names them.
    public func artwork(at base: String) -> @Sendable (String) -> String {
        { [artwork] query in base + artwork(query) }
    }
}
